#include "models/raft/raft_leader_state.hpp"

#include <algorithm>
#include <cassert>

namespace ksim::models {

RaftLeaderState::RaftLeaderState(RaftNodeId local, Epoch epoch, Offset epoch_start_offset,
                                 const std::vector<RaftNodeId>& voters, SimTime now, SimTime fetch_timeout)
    : local_(local), epoch_(epoch), epoch_start_offset_(epoch_start_offset), fetch_timeout_(fetch_timeout) {
  for (const RaftNodeId v : voters) voters_[v].acknowledged = v == local;
  assert(voters_.contains(local) && "a leader is a voter");
  if (voters_.size() > 1) check_quorum_deadline_ = now + fetch_timeout + fetch_timeout / 2;
}

bool RaftLeaderState::update_local(Offset flushed_end_offset) {
  Progress& self = voters_.at(local_);
  assert((!self.end_offset || *self.end_offset <= flushed_end_offset) && "the leader's end never goes back");
  self.end_offset = flushed_end_offset;
  return maybe_update_high_watermark();
}

bool RaftLeaderState::update_replica(RaftNodeId replica, Offset fetch_offset, SimTime now) {
  assert(replica != local_ && "a leader does not fetch from itself");
  const auto voter = voters_.find(replica);
  if (voter == voters_.end()) {
    observers_[replica].end_offset = fetch_offset;
    return false;
  }
  voter->second.end_offset = fetch_offset;
  voter->second.acknowledged = true;
  // updateCheckQuorumForFollowingVoter: the leader counts as one of the majority.
  fetched_voters_.insert(replica);
  if (fetched_voters_.size() >= voters_.size() / 2) {
    fetched_voters_.clear();
    check_quorum_deadline_ = now + fetch_timeout_ + fetch_timeout_ / 2;
  }
  return maybe_update_high_watermark();
}

// LeaderState.maybeUpdateHighWatermark.
bool RaftLeaderState::maybe_update_high_watermark() {
  std::vector<Offset> ends;  // -1: not fetched yet in this epoch
  for (const auto& [id, p] : voters_) ends.push_back(p.end_offset.value_or(-1));
  std::sort(ends.begin(), ends.end(), std::greater<>());
  const Offset majority_end = ends[voters_.size() / 2];
  // Only an offset past the epoch's start commits: an entry of this epoch must be in it.
  if (majority_end <= epoch_start_offset_) return false;
  if (high_watermark_ && majority_end <= *high_watermark_) return false;
  high_watermark_ = majority_end;
  return true;
}

void RaftLeaderState::acknowledge(RaftNodeId voter) {
  const auto it = voters_.find(voter);
  assert(it != voters_.end() && "only voters acknowledge a leader");
  it->second.acknowledged = true;
}

bool RaftLeaderState::acknowledged(RaftNodeId voter) const {
  const auto it = voters_.find(voter);
  return it != voters_.end() && it->second.acknowledged;
}

std::vector<RaftNodeId> RaftLeaderState::voters_by_descending_fetch_offset() const {
  std::vector<std::pair<Offset, RaftNodeId>> order;
  for (const auto& [id, p] : voters_) {
    if (id != local_) order.emplace_back(p.end_offset.value_or(-1), id);
  }
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<RaftNodeId> out;
  for (const auto& [offset, id] : order) out.push_back(id);
  return out;
}

std::optional<Offset> RaftLeaderState::fetch_offset(RaftNodeId replica) const {
  if (const auto it = voters_.find(replica); it != voters_.end()) return it->second.end_offset;
  if (const auto it = observers_.find(replica); it != observers_.end()) return it->second.end_offset;
  return std::nullopt;
}

}  // namespace ksim::models
