#pragma once
// A candidate's election (CandidateState): the votes recorded so far, its
// retries, and whether it is backing off before its next epoch. It votes for
// itself; it wins with a majority of grants, and loses once the grants it
// has and may still get are short of one (then it backs off at once instead
// of waiting for its election timeout). A prospective's pre-votes (KIP-996,
// ProspectiveState) are tallied the same way (EpochElection, which both
// NomineeStates share); a prospective never backs off.
#include <cassert>
#include <cstdint>
#include <map>
#include <vector>

#include "models/raft/raft_record.hpp"
#include "sim/events/time.hpp"

namespace ksim::models {

class RaftCandidateState {
 public:
  RaftCandidateState() = default;
  RaftCandidateState(RaftNodeId local, const std::vector<RaftNodeId>& voters, int retries) : retries_(retries) {
    for (const RaftNodeId v : voters) votes_[v] = Vote::Unrecorded;
    assert(votes_.contains(local) && "a candidate is a voter");
    votes_[local] = Vote::Granted;
  }

  int retries() const { return retries_; }
  std::size_t majority() const { return votes_.size() / 2 + 1; }
  bool won() const { return count(Vote::Granted) >= majority(); }
  bool lost() const { return count(Vote::Granted) + count(Vote::Unrecorded) < majority(); }
  bool unrecorded(RaftNodeId voter) const {
    const auto it = votes_.find(voter);
    return it != votes_.end() && it->second == Vote::Unrecorded;
  }
  std::vector<RaftNodeId> granting_voters() const { return in(Vote::Granted); }
  std::vector<RaftNodeId> unrecorded_voters() const { return in(Vote::Unrecorded); }

  // recordGrantedVote / recordRejectedVote: a voter answers once per epoch.
  void record(RaftNodeId voter, bool granted) {
    const auto it = votes_.find(voter);
    assert(it != votes_.end() && "only voters vote");
    assert((it->second == Vote::Unrecorded || (it->second == Vote::Granted) == granted) &&
           "a voter does not change its vote within an epoch");
    it->second = granted ? Vote::Granted : Vote::Rejected;
  }

  bool backing_off() const { return backoff_deadline_ != kNever; }
  SimTime backoff_deadline() const { return backoff_deadline_; }
  void start_backoff(SimTime deadline) { backoff_deadline_ = deadline; }

 private:
  enum class Vote { Unrecorded, Granted, Rejected };
  std::size_t count(Vote vote) const {
    std::size_t n = 0;
    for (const auto& [id, v] : votes_) n += v == vote ? 1 : 0;
    return n;
  }
  std::vector<RaftNodeId> in(Vote vote) const {
    std::vector<RaftNodeId> out;
    for (const auto& [id, v] : votes_) {
      if (v == vote) out.push_back(id);
    }
    return out;
  }

  std::map<RaftNodeId, Vote> votes_;
  int retries_ = 0;
  SimTime backoff_deadline_ = kNever;
};

}  // namespace ksim::models
