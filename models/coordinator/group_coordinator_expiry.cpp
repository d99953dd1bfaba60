// Committed offsets expire, and empty groups are deleted: every
// offsets.retention.check.interval.ms a coordinator looks at each group of
// each partition it has loaded, removes the offsets whose retention
// (offsets.retention.minutes) has passed and writes their tombstones; a
// group left with no offset is deleted when it is Empty (its metadata's
// tombstone). Kafka 4's GroupCoordinatorShard.cleanupGroupMetadata,
// OffsetMetadataManager.cleanupExpiredOffsets and
// GroupMetadataManager.maybeDeleteGroup; before 4.0 the classic
// GroupMetadataManager.cleanupGroupMetadata with
// GroupMetadata.removeExpiredOffsets, the same conditions.
//
// When an offset expires (OffsetExpirationConditionImpl):
// - a classic group that is Empty: the retention since it became Empty
//   (currentStateTimestamp; KIP-211, 2.1); before 2.1, every offset its
//   retention after its commit, whatever the group's state;
// - a group that never had members (offsets committed with assign()): from
//   the commit;
// - a classic Stable group (2.4+) and a KIP-848 consumer group: the offsets
//   of topics no member subscribes to, from the commit;
// - never a partition whose commit is being written or in an open transaction.
// Like Kafka, the offsets and the group leave the coordinator's memory at
// once; the tombstones are appended (a batch per group and kind, where Kafka
// appends one batch) and not waited for.
#include <algorithm>
#include <set>

#include "models/coordinator/group_coordinator.hpp"

namespace ksim::models {

// GroupCoordinatorShard.scheduleGroupMetadataExpiration: from the partition's load on.
void GroupCoordinator::schedule_expiry(std::int32_t partition, std::uint64_t generation) {
  host_.coordinator_timer(config_.offsets_retention_check_interval, [this, partition, generation] {
    const auto it = partitions_.find(partition);
    if (it == partitions_.end() || it->second.generation != generation || it->second.state != LoadState::Loaded) return;
    expire_offsets(partition);
    schedule_expiry(partition, generation);
  });
}

std::vector<TopicPartition> GroupCoordinator::expired_offsets(const Group& g, SimTime now) const {
  enum class Base { StateTimestamp, Commit };
  Base base = Base::Commit;
  bool unsubscribed_only = false;
  std::set<std::int32_t> subscribed;
  if (const auto cg = consumer_groups_.find(g.id); cg != consumer_groups_.end()) {
    unsubscribed_only = true;  // ConsumerGroup: from the commit, topics no member subscribes to
    for (const auto& [id, m] : cg->second.group.members()) subscribed.insert(m.topics.begin(), m.topics.end());
  } else if (!config_.expire_when_empty) {
    base = Base::Commit;  // before KIP-211: the expireTimestamp of each commit
  } else if (g.generation == 0 && g.members.empty()) {
    base = Base::Commit;  // no protocol type: a standalone consumer's offsets
  } else if (g.state == GroupState::Empty) {
    base = g.state_since >= 0 ? Base::StateTimestamp : Base::Commit;
  } else if (config_.expire_unsubscribed && g.state == GroupState::Stable) {
    unsubscribed_only = true;
    for (const auto& [id, m] : g.members) {
      subscribed.insert(m.record.subscription.topics.begin(), m.record.subscription.topics.end());
    }
  } else {
    return {};
  }
  const auto in_transaction = [&g](TopicPartition tp) {
    return std::any_of(g.pending_offsets.begin(), g.pending_offsets.end(),
                       [tp](const auto& pending) { return pending.second.contains(tp); });
  };
  std::vector<TopicPartition> expired;
  for (const auto& [tp, stored] : g.offsets) {
    if (unsubscribed_only && subscribed.contains(tp.topic)) continue;
    if (g.committing.contains(tp) || in_transaction(tp)) continue;
    const SimTime since = base == Base::StateTimestamp ? g.state_since : stored.commit_time;
    if (now - since >= config_.offsets_retention) expired.push_back(tp);
  }
  return expired;
}

// maybeDeleteGroup: Empty (no member under either protocol), nothing left to expire.
bool GroupCoordinator::deletable(const std::string& group) const {
  const auto g = groups_.find(group);
  if (g != groups_.end() && g->second.has_offsets()) return false;
  if (const auto cg = consumer_groups_.find(group); cg != consumer_groups_.end()) {
    return cg->second.group.members().empty();
  }
  return g != groups_.end() && g->second.state == GroupState::Empty && g->second.members.empty();
}

void GroupCoordinator::delete_group(const std::string& group) {
  if (const auto cg = consumer_groups_.find(group); cg != consumer_groups_.end()) {
    for (auto* timers : {&cg->second.session_timers, &cg->second.revocation_timers, &cg->second.join_timers,
                         &cg->second.sync_timers}) {
      for (const auto& [id, timer] : *timers) host_.coordinator_cancel(timer);
    }
    consumer_groups_.erase(cg);
  }
  if (Group* g = find(group)) host_.coordinator_cancel(g->join_timer);
  groups_.erase(group);
}

CoordinatorRecord GroupCoordinator::expire_group_offsets(Group& g, SimTime now) {
  CoordinatorRecord record;
  record.group = g.id;
  record.tombstone = true;
  record.written = now;
  for (const TopicPartition tp : expired_offsets(g, now)) {
    const StoredOffset& stored = g.offsets.at(tp);
    record.offsets.push_back({tp, -1, -1});
    if (history_) history_->offset_expirations.push_back({g.id, tp, stored.offset.offset, stored.commit_time, now, false});
    g.offsets.erase(tp);
  }
  return record;
}

void GroupCoordinator::expire_offsets(std::int32_t partition) {
  const SimTime now = host_.coordinator_now();
  std::set<std::string> ids;  // the partition's groups, classic and KIP-848 (whose offsets live in groups_)
  for (const auto& [id, g] : groups_) {
    if (g.partition == partition) ids.insert(id);
  }
  for (const auto& [id, entry] : consumer_groups_) {
    if (entry.partition == partition) ids.insert(id);
  }
  std::vector<CoordinatorRecord> tombstones;
  for (const std::string& id : ids) {
    std::int64_t expired = 0;
    if (Group* g = find(id)) {
      CoordinatorRecord record = expire_group_offsets(*g, now);
      expired = std::ssize(record.offsets);
      if (expired > 0) tombstones.push_back(std::move(record));
    }
    const bool remove = deletable(id);
    if (remove) {
      CoordinatorRecord record;
      record.group = id;
      record.tombstone = true;
      record.written = now;
      if (consumer_groups_.contains(id)) {
        record.consumer_group = std::make_shared<const ConsumerGroupImage>(ConsumerGroup(id).image(nullptr));
      } else {
        record.metadata = GroupMetadataRecord{};
      }
      tombstones.push_back(std::move(record));
      if (history_) history_->offset_expirations.push_back({id, {}, -1, 0, now, true});
      delete_group(id);
    }
    if (expired > 0 || remove) host_.coordinator_publish(OffsetsExpired{id, expired, remove});
  }
  for (CoordinatorRecord& record : tombstones) append(partition, records_.add(std::move(record)), [](Error) {});
}

}  // namespace ksim::models
