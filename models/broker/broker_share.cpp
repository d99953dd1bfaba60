// KIP-932's share-partition leader (SharePartitionManager,
// core/src/main/java/kafka/server/share/SharePartitionManager.java): the
// broker leading a partition keeps a SharePartition per share group that
// fetches it, serves ShareFetch (acknowledgements first, then acquisition)
// and ShareAcknowledge, expires acquisition locks, and writes every change
// to the persisted share state, which a new leader loads (ShareStateStore).
//
// A ShareFetch that acquires nothing waits up to its max wait (Kafka's
// DelayedShareFetch), answered earlier when the high watermark moves or a
// lock expiry makes records available again.
#include <algorithm>
#include <cassert>

#include "models/broker/broker.hpp"

namespace ksim::models {

void Broker::attach_share_groups(ShareStateStore* store, ShareHistory* history) {
  share_store_ = store;
  share_history_ = history;
}

// The share-partition if this broker leads `tp`; loaded from the persisted
// state on first use in a leadership (SharePartition.maybeInitialize).
SharePartition* Broker::share_partition(const std::string& group, TopicPartition tp) {
  assert(share_store_ && "share requests come only to a cluster with share groups");
  const Replica* r = replica(tp);
  const std::pair<std::string, TopicPartition> key{group, tp};
  if (!r || !r->is_leader()) {
    share_partitions_.erase(key);
    return nullptr;
  }
  auto it = share_partitions_.find(key);
  if (it != share_partitions_.end() && it->second.leader_epoch == r->leader_epoch()) return &it->second.partition;
  if (it != share_partitions_.end()) share_partitions_.erase(it);  // a later leadership: load again
  const GroupCoordinatorConfig& g = config_.group_coordinator;
  const SharePartitionConfig config{g.share_record_lock_duration, g.share_delivery_count_limit,
                                    g.share_partition_max_record_locks};
  ShareHistory* history = share_history_;
  const PersistedSharePartition* persisted = share_store_->read(key);
  if (persisted && history) {
    ++history->persister_loads;
    history->loads[key].push_back(now());
  }
  if (!persisted && history) history->start_offsets.emplace(key, r->log().high_watermark());
  // share.auto.offset.reset: latest (Kafka's default) when the group never read the partition.
  SharePartition partition(group, tp, config, persisted, r->log().high_watermark(), [this, history](const ShareLeaderEvent& e) {
    if (history) history->leader_events.push_back(e);
    if (e.outcome == ShareOutcome::Released || e.outcome == ShareOutcome::DeliveryLimit) {
      publish(ShareRecordReleased{id_, e.group, e.partition, e.offset, to_string(e.why), e.why == ShareRelease::LockExpired,
                                  e.outcome == ShareOutcome::DeliveryLimit});
    }
  });
  it = share_partitions_.emplace(key, SharePartitionEntry{std::move(partition), r->leader_epoch()}).first;
  persist_share_partition(group, tp);
  return &it->second.partition;
}

void Broker::persist_share_partition(const std::string& group, TopicPartition tp) {
  share_changed_ = true;
  const auto it = share_partitions_.find({group, tp});
  if (it == share_partitions_.end()) return;
  share_store_->write({group, tp}, it->second.partition.persisted());
  if (share_history_) ++share_history_->persister_writes;
}

std::vector<std::pair<RecordAcknowledgement, Error>> Broker::apply_acknowledgements(
    const std::string& group, const std::string& member, const std::vector<RecordAcknowledgement>& acks) {
  std::vector<std::pair<RecordAcknowledgement, Error>> outcomes;
  std::set<TopicPartition> changed;
  bool released = false;
  for (const RecordAcknowledgement& a : acks) {
    SharePartition* sp = share_partition(group, a.partition);
    if (!sp) {
      outcomes.emplace_back(a, Error::NotLeaderOrFollower);
      continue;
    }
    const Error e = sp->acknowledge(member, a.offset, a.type, now());
    outcomes.emplace_back(a, e);
    if (e == Error::None) changed.insert(a.partition);
    released = released || (e == Error::None && a.type == AcknowledgeType::Release);
  }
  for (const TopicPartition tp : changed) persist_share_partition(group, tp);
  if (released) {
    for (const TopicPartition tp : changed) wake_share_fetches(tp);
  }
  return outcomes;
}

std::unique_ptr<ShareFetchResponse> Broker::try_share_fetch(const ShareFetchRequest& request, bool must_answer) {
  auto response = std::make_unique<ShareFetchResponse>();
  response->correlation_id = request.correlation_id;
  const SimTime lock_duration = config_.group_coordinator.share_record_lock_duration;
  // The partitions in turn, one further each fetch, so that a busy first
  // partition cannot take every fetch's max_records (as Kafka's share fetch
  // rotates its partitions).
  const std::size_t count = request.partitions.size();
  const std::size_t first = count == 0 ? 0 : static_cast<std::size_t>(share_fetch_rotation_++ % count);
  for (std::size_t i = 0; i < count; ++i) {
    const TopicPartition tp = request.partitions[(first + i) % count];
    SharePartition* sp = share_partition(request.group, tp);
    if (!sp) {
      response->partition_errors.emplace_back(tp, Error::NotLeaderOrFollower);
      continue;
    }
    const auto left = request.max_records - static_cast<std::int32_t>(response->records.size());
    if (left <= 0) break;
    const Replica& r = *replica(tp);
    std::vector<AcquiredRecord> got = sp->acquire(request.member_id, r.log(), r.log().high_watermark(), left, now());
    if (got.empty()) continue;
    const auto redelivered = static_cast<std::size_t>(
        std::count_if(got.begin(), got.end(), [](const AcquiredRecord& a) { return a.delivery_count > 1; }));
    publish(ShareRecordsAcquired{id_, request.group, tp, got.size(), redelivered});
    response->records.insert(response->records.end(), got.begin(), got.end());
    persist_share_partition(request.group, tp);
    // The timer holds the group's index, not its name (a timer's capture is small).
    const auto it = std::find(share_group_names_.begin(), share_group_names_.end(), request.group);
    const auto group = static_cast<std::uint32_t>(it - share_group_names_.begin());
    if (it == share_group_names_.end()) share_group_names_.push_back(request.group);
    set_timer(lock_duration, [this, group, tp] { expire_share_locks(share_group_names_[group], tp); });
  }
  if (response->records.empty() && response->partition_errors.empty() && !must_answer) return nullptr;
  return response;
}

void Broker::handle_share_fetch(ConnectionId connection, std::unique_ptr<ShareFetchRequest> request) {
  std::vector<std::pair<RecordAcknowledgement, Error>> acked =
      apply_acknowledgements(request->group, request->member_id, request->acknowledgements);
  request->acknowledgements.clear();
  std::unique_ptr<ShareFetchResponse> response = try_share_fetch(*request, !acked.empty());
  if (response) {
    response->acknowledged = std::move(acked);
    send(connection, std::move(response));
    return;
  }
  const std::uint64_t id = next_pending_id_++;
  const SimTime wait = request->max_wait;
  ParkedShareFetch& parked = parked_share_fetches_[id];
  parked.connection = connection;
  parked.request = std::move(request);
  parked.timer = set_timer(wait, [this, id] { answer_parked_share_fetch(id, true); });
}

void Broker::answer_parked_share_fetch(std::uint64_t id, bool must_answer) {
  const auto it = parked_share_fetches_.find(id);
  if (it == parked_share_fetches_.end()) return;
  std::unique_ptr<ShareFetchResponse> response = try_share_fetch(*it->second.request, must_answer);
  if (!response) return;
  cancel_timer(it->second.timer);
  send(it->second.connection, std::move(response));
  parked_share_fetches_.erase(it);
}

void Broker::wake_share_fetches(TopicPartition tp) {
  std::vector<std::uint64_t> asking;
  for (const auto& [id, parked] : parked_share_fetches_) {
    const auto& ps = parked.request->partitions;
    if (std::find(ps.begin(), ps.end(), tp) != ps.end()) asking.push_back(id);
  }
  for (const std::uint64_t id : asking) answer_parked_share_fetch(id, false);
}

// An acquisition lock timer fired (AcquisitionLockTimerTask): the records whose lock ended go back.
void Broker::expire_share_locks(const std::string& group, TopicPartition tp) {
  const auto it = share_partitions_.find({group, tp});
  if (it == share_partitions_.end()) return;  // no longer led here
  if (it->second.partition.expire_locks(now()) == 0) return;
  persist_share_partition(group, tp);
  wake_share_fetches(tp);
}

void Broker::handle_share_acknowledge(ConnectionId connection, const ShareAcknowledgeRequest& request) {
  auto response = std::make_unique<ShareAcknowledgeResponse>();
  response->correlation_id = request.correlation_id;
  response->acknowledged = apply_acknowledgements(request.group, request.member_id, request.acknowledgements);
  if (request.close_session) {  // SharePartitionManager.releaseSession
    for (auto& [key, entry] : share_partitions_) {
      if (key.first != request.group) continue;
      if (entry.partition.release_member(request.member_id, now()) == 0) continue;
      share_store_->write(key, entry.partition.persisted());
      if (share_history_) ++share_history_->persister_writes;
      share_changed_ = true;
    }
    std::set<TopicPartition> partitions;
    for (const auto& [key, entry] : share_partitions_) partitions.insert(key.second);
    for (const TopicPartition tp : partitions) wake_share_fetches(tp);
  }
  send(connection, std::move(response));
}

bool Broker::take_share_changes() {
  const bool changed = share_changed_ && state() == NodeState::Running;  // a paused broker's timers wait
  share_changed_ = false;
  return changed;
}

}  // namespace ksim::models
