#include "models/broker/partition.hpp"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "models/protocol/replica_list.hpp"

namespace ksim::models {

std::string_view to_string(Partition::Role role) {
  switch (role) {
    case Partition::Role::None: return "none";
    case Partition::Role::Leader: return "leader";
    case Partition::Role::Follower: return "follower";
  }
  return "?";
}

std::optional<std::string_view> Partition::broken_invariant() const {
  if (log_.high_watermark() > log_.log_end_offset()) return "high watermark at most the log end offset";
  if (log_.log_start_offset() > log_.high_watermark()) return "log start offset at most the high watermark";
  if (!is_leader() && !followers_.empty()) return "followers tracked only by the leader";
  if (!is_leader() && pending_isr_) return "an ISR change pending only while leading";
  if (pending_isr_ && pending_isr_->isr.empty()) return "a proposed ISR is never empty";
  if (!is_leader()) return std::nullopt;
  if (state_.leader != local_) return "the leader is the broker the controller named";
  if (!contains(state_.isr, local_)) return "the leader is in its ISR";
  if (log_.high_watermark() < epoch_high_watermark_) return "the high watermark never goes back within an epoch";
  return std::nullopt;
}

void Partition::check_invariants() const {
  const auto broken = broken_invariant();
  if (!broken) return;
  std::fprintf(stderr,
               "ksim: partition %d-%d on broker %d (%s, leader epoch %d): invariant '%.*s' broken (hw %lld, leo %lld)\n",
               tp_.topic, tp_.partition, local_, to_string(role_).data(), state_.leader_epoch,
               static_cast<int>(broken->size()), broken->data(), static_cast<long long>(log_.high_watermark()),
               static_cast<long long>(log_.log_end_offset()));
  std::abort();
}

void Partition::changed(PartitionChange change) {
  // An append leaves the high watermark, the role and the ISR as they were
  // and only lengthens the log: it cannot break an invariant.
  if (change != PartitionChange::LogGrew) check_invariants();
  if (is_leader()) epoch_high_watermark_ = log_.high_watermark();
  if (listener_) listener_->partition_changed(*this, change);
}

bool Partition::is_stale(const PartitionState& state) const {
  return state.leader_epoch < state_.leader_epoch ||
         (state.leader_epoch == state_.leader_epoch && state.partition_epoch < state_.partition_epoch);
}

bool Partition::is_new_epoch(const PartitionState& state) const {
  return state.leader_epoch > state_.leader_epoch || role_ == Role::None;
}

// Partition.makeLeader: a new leader knows nothing of its followers; a leader
// re-elected in a new epoch (an ISR change the ZooKeeper-era controller made
// with a new leader epoch) keeps each follower's log end and start offsets
// (Replica.resetReplicaState with isNewLeader false), so the high watermark
// can move at once rather than at each follower's next fetch.
void Partition::make_leader(const PartitionState& state, SimTime now) {
  const bool new_leader = !is_leader();
  const bool new_epoch = state.leader_epoch > state_.leader_epoch;
  if (new_leader || new_epoch) epoch_start_offset_ = log_.log_end_offset();
  std::vector<std::pair<BrokerId, FollowerState>> known;
  if (!new_leader) known.swap(followers_);
  role_ = Role::Leader;
  state_ = state;
  pending_isr_.reset();
  followers_.clear();
  for (const BrokerId b : state.replicas) {
    if (b == local_) continue;
    const auto it = std::find_if(known.begin(), known.end(), [&](const auto& f) { return f.first == b; });
    if (it == known.end()) {
      followers_.emplace_back(b, FollowerState{-1, now, now, 0});
    } else if (!new_epoch) {
      followers_.push_back(*it);  // the same epoch: nothing to reset
    } else {
      FollowerState f = it->second;
      const bool in_sync = contains(state.isr, b);
      f.last_caught_up = in_sync ? now : 0;
      f.last_fetch = in_sync ? now : 0;
      f.leader_end_offset_at_last_fetch = epoch_start_offset_;
      followers_.emplace_back(b, f);
    }
  }
  epoch_high_watermark_ = log_.high_watermark();
  changed(PartitionChange::State);
}

void Partition::make_follower(const PartitionState& state) {
  role_ = Role::Follower;
  epoch_start_offset_ = -1;
  state_ = state;
  followers_.clear();
  pending_isr_.reset();
  changed(PartitionChange::State);
}

void Partition::stop(const PartitionState& state) {
  go_offline();
  state_ = state;
  changed(PartitionChange::State);
}

void Partition::go_offline() {
  role_ = Role::None;
  followers_.clear();
  pending_isr_.reset();
  changed(PartitionChange::State);
}

void Partition::update_state(const PartitionState& state) {
  if (state.partition_epoch > state_.partition_epoch || state.leader_epoch != state_.leader_epoch) pending_isr_.reset();
  if (is_leader() && !state.replicas.empty() && state.replicas != state_.replicas) {
    // KIP-455: the replica set changed within the epoch (Partition.updateAssignmentAndIsr):
    // a replica being added is tracked from its first fetch, never caught up before it.
    // (A ZooKeeper-era ISR change carries no replica list: the partition's state znode has none.)
    std::erase_if(followers_, [&](const auto& f) { return !contains(state.replicas, f.first); });
    for (const BrokerId b : state.replicas) {
      if (b != local_ && !find_follower(b)) followers_.emplace_back(b, FollowerState{});
    }
  }
  state_ = state;
  changed(PartitionChange::State);
}

void Partition::reset_process_state() {
  role_ = Role::None;
  epoch_start_offset_ = -1;
  state_ = PartitionState{};
  followers_.clear();
  pending_isr_.reset();
  log_.set_high_watermark(std::min(log_.high_watermark(), log_.log_end_offset()));
  changed(PartitionChange::State);
}

const RecordBatch& Partition::append_as_leader(const RecordBatch& batch) {
  const RecordBatch& stored = log_.append_as_leader(batch, state_.leader_epoch);
  changed(PartitionChange::LogGrew);
  return stored;
}

void Partition::append_as_follower(const RecordBatch& batch) {
  log_.append_as_follower(batch);
  changed(PartitionChange::LogGrew);
}

void Partition::truncate_to(Offset offset) {
  log_.truncate_to(offset);
  changed(PartitionChange::LogShrank);
}

void Partition::follow_high_watermark(Offset leader_high_watermark) {
  log_.set_high_watermark(std::min(leader_high_watermark, log_.log_end_offset()));  // at least its log start offset
  changed(PartitionChange::FollowerHighWatermark);
}

std::vector<DeletedSegments> Partition::delete_old_segments(SimTime now, Offset highest_remote_offset) {
  std::vector<DeletedSegments> deleted = log_.delete_old_segments(now, highest_remote_offset);
  if (!deleted.empty()) changed(PartitionChange::LogStartMoved);
  return deleted;
}

std::vector<DeletedSegments> Partition::follow_log_start_offset(Offset leader_log_start_offset, SimTime now,
                                                                Offset highest_remote_offset) {
  if (!log_.maybe_increment_log_start_offset(leader_log_start_offset)) return {};
  std::vector<DeletedSegments> deleted = log_.delete_old_segments(now, highest_remote_offset);
  changed(PartitionChange::LogStartMoved);
  return deleted;
}

std::uint64_t Partition::truncate_fully_and_start_at(Offset offset) {
  const std::uint64_t removed = log_.truncate_fully_and_start_at(offset);
  changed(PartitionChange::LogShrank);
  return removed;
}

CleanerStats Partition::replace_cleaned(CleanedLog cleaned) {
  CleanerStats stats = log_.replace_cleaned(std::move(cleaned));
  changed(PartitionChange::LogCleaned);
  return stats;
}

void Partition::lose_unflushed() {
  log_.lose_unflushed();
  changed(PartitionChange::LogShrank);
}

void Partition::adopt_log_of(Partition& future) {
  assert(future.log_.log_end_offset() == log_.log_end_offset());
  future.log_.set_high_watermark(log_.high_watermark());
  std::swap(log_, future.log_);
  changed(PartitionChange::LogReplaced);
}

std::vector<BrokerId> Partition::maximal_isr() const {
  std::vector<BrokerId> isr = state_.isr;
  if (pending_isr_) {
    for (const BrokerId b : pending_isr_->isr) {
      if (!contains(isr, b)) isr.push_back(b);
    }
  }
  return isr;
}

bool Partition::update_follower_fetch_state(BrokerId follower, Offset fetch_offset, SimTime now) {
  FollowerState* f = find_follower(follower);
  if (!f) return false;
  const Offset leader_end = log_.log_end_offset();
  if (fetch_offset >= leader_end) {
    f->last_caught_up = std::max(f->last_caught_up, now);
  } else if (fetch_offset >= f->leader_end_offset_at_last_fetch) {
    f->last_caught_up = std::max(f->last_caught_up, f->last_fetch);
  }
  const bool moved = f->log_end_offset != fetch_offset;
  f->log_end_offset = fetch_offset;
  f->leader_end_offset_at_last_fetch = leader_end;
  f->last_fetch = now;
  return moved;
}

std::optional<std::vector<BrokerId>> Partition::isr_with(BrokerId follower,
                                                         const std::vector<BrokerId>& live_brokers) const {
  if (!is_leader() || pending_isr_ || in_isr(follower) || !contains(live_brokers, follower)) return std::nullopt;
  const FollowerState* f = this->follower(follower);
  if (!f) return std::nullopt;
  const auto epoch_start = log_.end_offset_for_epoch(state_.leader_epoch - 1);
  const Offset leader_epoch_start = epoch_start ? epoch_start->end_offset : 0;
  if (f->log_end_offset < log_.high_watermark() || f->log_end_offset < leader_epoch_start) return std::nullopt;
  std::vector<BrokerId> expanded = state_.isr;
  expanded.push_back(follower);
  return expanded;
}

std::optional<std::vector<BrokerId>> Partition::isr_without_lagging(SimTime now, SimTime max_lag) const {
  if (!is_leader() || pending_isr_) return std::nullopt;
  std::vector<BrokerId> kept;
  for (const BrokerId b : state_.isr) {
    const FollowerState* f = follower(b);
    // Replica.isCaughtUp: a follower at the leader's log end is in sync however long ago it fetched.
    const bool lagging = b != local_ && (!f || (f->log_end_offset != log_.log_end_offset() && now - f->last_caught_up > max_lag));
    if (!lagging) kept.push_back(b);
  }
  if (kept.size() == state_.isr.size()) return std::nullopt;
  return kept;
}

const IsrProposal& Partition::begin_isr_change(std::vector<BrokerId> proposed) {
  pending_isr_ = IsrProposal{std::move(proposed), state_.leader_epoch, state_.partition_epoch};
  changed(PartitionChange::PendingIsr);
  return *pending_isr_;
}

bool Partition::maybe_advance_high_watermark(std::int32_t min_insync_replicas, bool strict) {
  if (!is_leader()) return false;
  const std::size_t effective_min_isr =
      std::min(static_cast<std::size_t>(std::max(min_insync_replicas, 1)), state_.replicas.size());
  if (strict && state_.isr.size() < effective_min_isr) return false;  // Partition.isUnderMinIsr
  Offset hw = log_.log_end_offset();
  const auto include = [&](BrokerId b) {
    if (b == local_) return;
    const FollowerState* f = follower(b);
    const Offset follower_end = f ? f->log_end_offset : -1;
    hw = std::min(hw, follower_end < 0 ? log_.high_watermark() : follower_end);
  };
  for (const BrokerId b : state_.isr) include(b);
  if (pending_isr_) {
    for (const BrokerId b : pending_isr_->isr) include(b);  // counting a member twice changes nothing
  }
  if (hw <= log_.high_watermark()) return false;
  log_.set_high_watermark(hw);
  changed(PartitionChange::LeaderHighWatermark);
  return true;
}

}  // namespace ksim::models

