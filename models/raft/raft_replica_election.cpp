// RaftReplica: Vote, BeginQuorumEpoch and EndQuorumEpoch, and the handling
// every response shares (KafkaRaftClient.handle*Request/Response,
// maybeHandleCommonResponse, maybeTransition).
#include <algorithm>
#include <cassert>
#include <utility>

#include "models/raft/raft_replica.hpp"

namespace ksim::models {

// handleVoteRequest: one vote per epoch, to a candidate whose log is at least
// as up to date. A pre-vote (KIP-996) is answered the same way but recorded
// nowhere: the voter's epoch, vote and role stay as they are (unless the
// request's epoch is newer, which moves it there first, as any request does).
void RaftReplica::handle_vote(const VoteRequest& request) {
  auto response = std::make_unique<VoteResponse>();
  if (request.candidate_epoch < epoch()) {
    return respond(request.source, request.correlation_id, std::move(response), Error::FencedLeaderEpoch);
  }
  assert(request.last_offset >= 0 && request.last_offset_epoch >= 0);
  assert((request.pre_vote || request.last_offset_epoch < request.candidate_epoch) &&
         "a candidate's log is older than its epoch");
  assert(request.last_offset_epoch <= request.candidate_epoch);
  if (request.candidate_epoch > epoch()) transition_to_unattached(request.candidate_epoch);
  // OffsetAndEpoch.compareTo: the last epoch first, then the end offset.
  const bool log_up_to_date = std::pair(request.last_offset_epoch, request.last_offset) >=
                              std::pair(log().last_epoch(), log().end_offset());
  const bool granted = can_grant_vote(request, log_up_to_date);
  if (request.pre_vote) {
    ++(granted ? stats_.pre_votes_granted : stats_.pre_votes_rejected);
  } else if (granted && role_ == RaftRole::Unattached) {
    transition_to_voted(request.source);
  } else if (granted && role_ == RaftRole::Prospective && !state_.election().has_voted()) {
    // prospectiveAddVotedState: it stays Prospective, with its vote written and a new election timeout.
    state_.write_election({epoch(), kNoRaftNode, request.source});
    election_deadline_ = random_election_timeout();
  }
  response->vote_granted = granted;
  respond(request.source, request.correlation_id, std::move(response), Error::None);
}

// EpochState.canGrantVote of each role (QuorumState.unattachedOrProspectiveCanGrantVote
// for Unattached and Prospective).
bool RaftReplica::can_grant_vote(const VoteRequest& request, bool log_up_to_date) const {
  const RaftElection& election = state_.election();
  if (request.pre_vote) {
    switch (role_) {
      case RaftRole::Unattached:
      case RaftRole::Voted:
      case RaftRole::Prospective:
      case RaftRole::Candidate:  // CandidateState: a pre-vote is not its own vote
      case RaftRole::Resigned: return log_up_to_date && is_voter();
      case RaftRole::Leader: return false;
      // FollowerState: not while its leader answers its fetches (the fetch timeout
      // would make it Prospective itself once they fail).
      case RaftRole::Follower: return log_up_to_date && !fetched_from_leader_;
    }
    return false;
  }
  switch (role_) {
    case RaftRole::Unattached: return log_up_to_date && is_voter();
    case RaftRole::Voted: return election.voted_for == request.source;
    case RaftRole::Prospective:
      if (election.has_voted()) return election.voted_for == request.source;
      return !election.has_leader() && log_up_to_date;
    case RaftRole::Candidate:  // its own vote is implicit, never granted to another
    case RaftRole::Leader:
    case RaftRole::Follower:   // a leader is known in this epoch
    case RaftRole::Resigned: return false;
  }
  return false;
}

// handleVoteResponse: a nominee (Candidate, or KIP-996's Prospective) records
// the answer; a majority of grants makes a candidate the leader and a
// prospective a candidate. A candidate rejected by enough voters backs off at
// once; a prospective's loss is poll_prospective's to act on.
void RaftReplica::handle_vote_response(const VoteResponse& response) {
  handle_response(response, [&] {
    const bool nominee = role_ == RaftRole::Candidate || role_ == RaftRole::Prospective;
    if (!nominee || !candidate_.unrecorded(response.source)) return;
    candidate_.record(response.source, response.vote_granted);
    if (candidate_.won()) {
      if (role_ == RaftRole::Candidate) return transition_to_leader();
      ++stats_.pre_votes_won;
      return transition_to_candidate();
    }
    if (role_ == RaftRole::Candidate && candidate_.lost() && !candidate_.backing_off()) {
      // Rejected by enough voters: back off now rather than wait for the election timeout.
      candidate_.start_backoff(host_.now() + election_backoff(candidate_.retries()));
    }
  });
}

void RaftReplica::handle_begin_quorum_epoch(const BeginQuorumEpochRequest& request) {
  auto response = std::make_unique<BeginQuorumEpochResponse>();
  if (request.leader_epoch < epoch()) {
    return respond(request.source, request.correlation_id, std::move(response), Error::FencedLeaderEpoch);
  }
  maybe_transition(request.leader_id, request.leader_epoch);
  respond(request.source, request.correlation_id, std::move(response), Error::None);
}

void RaftReplica::handle_begin_quorum_epoch_response(const BeginQuorumEpochResponse& response) {
  handle_response(response, [&] {
    if (role_ == RaftRole::Leader) leader_state_->acknowledge(response.source);
  });
}

// handleEndQuorumEpochRequest: a follower of the resigning leader starts its
// election sooner the higher it stands among the preferred successors.
void RaftReplica::handle_end_quorum_epoch(const EndQuorumEpochRequest& request) {
  auto response = std::make_unique<EndQuorumEpochResponse>();
  if (request.leader_epoch < epoch()) {
    return respond(request.source, request.correlation_id, std::move(response), Error::FencedLeaderEpoch);
  }
  maybe_transition(request.leader_id, request.leader_epoch);
  if (role_ == RaftRole::Follower && leader() == request.leader_id) {
    fetch_deadline_ = host_.now() + end_epoch_backoff(request.preferred_successors);
  }
  respond(request.source, request.correlation_id, std::move(response), Error::None);
}

void RaftReplica::handle_end_quorum_epoch_response(const EndQuorumEpochResponse& response) {
  handle_response(response, [&] {
    assert(role_ == RaftRole::Resigned && "only a resigned leader sends EndQuorumEpoch");
    unacked_resignation_.erase(response.source);
  });
}

// maybeHandleCommonResponse: a response from an older epoch is moot; one from a
// newer epoch, or one that says this replica's epoch or leader is stale, moves
// it there. ksim: such an error that brings no newer epoch or leader (a resigned
// leader's NOT_LEADER_OR_FOLLOWER, an UNKNOWN_LEADER_EPOCH from a replica behind)
// counts as a failure and backs off retry.backoff.ms; Kafka sends again at once.
RaftReplica::Outcome RaftReplica::handle_common_response(const RaftResponseFields& response) {
  if (response.leader_epoch < epoch()) return Outcome::Handled;
  if (response.error == Error::UnknownLeaderEpoch) return Outcome::Failed;
  if (response.leader_epoch > epoch() || response.error == Error::FencedLeaderEpoch ||
      response.error == Error::NotLeaderOrFollower) {
    const bool news = response.leader_epoch > epoch() || (response.leader_id != kNoRaftNode && !has_leader());
    maybe_transition(response.leader_id, response.leader_epoch);
    return news ? Outcome::Handled : Outcome::Failed;
  }
  if (response.leader_id != kNoRaftNode && !has_leader()) {
    // The responder knows this epoch's leader: follow it, and take the data if
    // there is no error. (Not a prospective that knows it already: a voter's
    // answer names the leader it last knew, not one that is alive.)
    transition_to_follower(response.leader_epoch, response.leader_id);
    return response.error == Error::None ? Outcome::Continue : Outcome::Handled;
  }
  return Outcome::Continue;
}

// KafkaRaftClient.maybeTransition, after hasConsistentLeader.
void RaftReplica::maybe_transition(RaftNodeId leader, Epoch epoch) {
  if (leader == id_) {
    assert((epoch < this->epoch() || role_ == RaftRole::Leader || role_ == RaftRole::Resigned) &&
           "told it leads an epoch it does not");
  } else {
    assert((epoch != this->epoch() || leader == kNoRaftNode || !has_leader() || leader == this->leader()) &&
           "two leaders in one epoch");
  }
  if (epoch > this->epoch()) {
    if (leader != kNoRaftNode) transition_to_follower(epoch, leader);
    else transition_to_unattached(epoch);
  } else if (epoch == this->epoch() && leader != kNoRaftNode && (!has_leader() || role_ == RaftRole::Prospective)) {
    transition_to_follower(epoch, leader);  // a prospective hears from its epoch's leader: it follows again
  }
}

// maybeSendVoteRequests: to every voter not yet heard from, while the election
// can still be won; a prospective's are pre-votes in its own epoch (KIP-996).
SimTime RaftReplica::send_vote_requests() {
  if (candidate_.lost()) return kNever;
  SimTime next = kNever;
  for (const RaftNodeId voter : candidate_.unrecorded_voters()) {
    if (requests_.is_ready(voter, host_.now())) {
      auto request = std::make_unique<VoteRequest>();
      request->candidate_epoch = epoch();
      request->pre_vote = role_ == RaftRole::Prospective;
      request->last_offset_epoch = log().last_epoch();
      request->last_offset = log().end_offset();
      send_request(voter, std::move(request));
    }
    next = std::min(next, requests_.ready_at(voter));
  }
  return next;
}

// maybeSendBeginQuorumEpochRequests: to every other voter, every half fetch timeout.
void RaftReplica::send_begin_quorum_epoch() {
  for (const RaftNodeId voter : voters_) {
    if (voter == id_ || !requests_.is_ready(voter, host_.now())) continue;
    auto request = std::make_unique<BeginQuorumEpochRequest>();
    request->leader_epoch = epoch();
    request->leader_id = id_;
    send_request(voter, std::move(request));
  }
  leader_state_->begin_quorum_epoch_sent(host_.now());
}

SimTime RaftReplica::send_end_quorum_epoch() {
  SimTime next = kNever;
  for (const RaftNodeId voter : unacked_resignation_) {
    if (requests_.is_ready(voter, host_.now())) {
      auto request = std::make_unique<EndQuorumEpochRequest>();
      request->leader_epoch = epoch();
      request->leader_id = id_;
      request->preferred_successors = preferred_successors_;
      send_request(voter, std::move(request));
    }
    next = std::min(next, requests_.ready_at(voter));
  }
  return next;
}

// binaryExponentialElectionBackoffMs: 100 ms times a random number below 2^retries, capped.
SimTime RaftReplica::election_backoff(int retries) {
  assert(retries > 0);
  const std::uint64_t bound = std::uint64_t{2} << std::min(20, retries - 1);
  const SimTime backoff = milliseconds(100) * static_cast<SimTime>(host_.random().below(bound));
  return std::min(backoff, config_.election_backoff_max);
}

// endEpochElectionBackoff and strictExponentialElectionBackoffMs: the first
// preferred successor stands at once, the others after doubling waits.
SimTime RaftReplica::end_epoch_backoff(const std::vector<RaftNodeId>& preferred_successors) const {
  const auto found = std::find(preferred_successors.begin(), preferred_successors.end(), id_);
  const auto position = static_cast<int>(found - preferred_successors.begin());
  const auto total = static_cast<int>(preferred_successors.size());
  if (position == 0) return 0;
  if (position >= total) return config_.election_backoff_max;
  const SimTime base = config_.election_backoff_max >> (total - 1);
  return std::min(config_.election_backoff_max, base << (position - 1));
}

}  // namespace ksim::models
