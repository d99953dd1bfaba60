// KIP-848's consumer groups on __consumer_offsets, through the coordinator
// runtime's write path (CoordinatorRuntime.scheduleWriteOperation): the
// records a request or timer produces are appended to the group's partition
// and applied to the in-memory group at once; the responses are held until
// the records are committed (the high watermark passes them). A request that
// writes nothing is answered once every record written before it is
// committed (CoordinatorWriteEvent: deferredEventQueue at lastWrittenOffset).
// A broker that becomes the partition's leader replays them
// (GroupCoordinatorShard.replay), answers COORDINATOR_LOAD_IN_PROGRESS
// meanwhile, and then starts every member's session timeout, and the
// rebalance timeout of members still revoking (GroupMetadataManager.onLoaded):
// a coordinator move keeps the members, their epochs and assignments.
//
// A member gone since the group's last write leaves tombstones of its keys in
// the next (GroupMetadataManager.removeMember), so the log cleaner removes its
// records and, after delete.retention.ms, the tombstones.
//
// Simplification: Kafka writes one record per piece that changed
// (ConsumerGroupMetadata with the group epoch, ConsumerGroupMemberMetadata,
// ConsumerGroupPartitionMetadata, ConsumerGroupTargetAssignmentMetadata and
// ...Member, ConsumerGroupCurrentMemberAssignment); ksim writes the whole
// group as one batch whenever an operation changed any of it, which replays
// to the same state. A failed write does not revert the in-memory group (the
// partition is being lost anyway); the next operation writes the group again.
#include <cassert>
#include <utility>

#include "models/coordinator/group_coordinator.hpp"

namespace ksim::models {

namespace {
constexpr std::uint64_t kNoLoad = ~std::uint64_t{0};
}  // namespace

// Every coordinator write goes through here, so that an operation writing
// nothing can wait for those before it.
void GroupCoordinator::append(std::int32_t partition, std::uint64_t record_id, std::function<void(Error)> done) {
  const auto it = partitions_.find(partition);
  const std::uint64_t load = it == partitions_.end() ? kNoLoad : it->second.generation;
  const std::uint64_t write = next_write_++;
  if (it != partitions_.end()) it->second.in_flight.insert(write);
  host_.coordinator_append(partition, record_id, [this, partition, load, write, done = std::move(done)](Error error) {
    done(error);
    const auto p = partitions_.find(partition);
    if (p == partitions_.end() || p->second.generation != load) return;
    p->second.in_flight.erase(write);
    release_waiting(p->second, error);
  });
}

// Operations that wrote nothing, released once no write before them is in flight.
void GroupCoordinator::release_waiting(PartitionLoad& p, Error error) {
  const std::uint64_t oldest = p.in_flight.empty() ? next_write_ : *p.in_flight.begin();
  while (!p.waiting.empty() && p.waiting.front().after < oldest) {
    const std::function<void(Error)> then = std::move(p.waiting.front().then);
    p.waiting.pop_front();
    then(error);
  }
}

void GroupCoordinator::after_writes(std::int32_t partition, std::function<void(Error)> then) {
  const auto it = partitions_.find(partition);
  if (it == partitions_.end() || it->second.in_flight.empty()) return then(Error::None);
  it->second.waiting.push_back({next_write_ - 1, std::move(then)});
}

// An operation on a consumer group: its responses are held, the group is
// written if the operation changed it, and they go out once committed.
void GroupCoordinator::consumer_write(const std::string& group, const std::function<void()>& operation) {
  assert(held_ == nullptr && "consumer_write does not nest");
  auto held = std::make_shared<std::vector<std::function<void(Error)>>>();
  held_ = held.get();
  operation();
  held_ = nullptr;
  persist_consumer_group(group, [held](Error error) {
    for (const auto& send : *held) send(error);
  });
}

void GroupCoordinator::persist_consumer_group(const std::string& group, std::function<void(Error)> then) {
  const std::int32_t partition = group_partition(group, config_.offsets_topic_num_partitions);
  const auto it = consumer_groups_.find(group);
  if (it == consumer_groups_.end() || !partitions_.contains(partition) ||
      (it->second.stored && it->second.group.matches(*records_.at(*it->second.stored).consumer_group))) {
    return after_writes(partition, std::move(then));
  }
  CoordinatorRecord record;
  record.group = group;
  // Shared with the group's last write what did not change (consumer_group_image.hpp).
  const ConsumerGroupImage* previous = it->second.stored ? records_.at(*it->second.stored).consumer_group.get() : nullptr;
  record.consumer_group = std::make_shared<const ConsumerGroupImage>(it->second.group.image(previous));
  // GroupMetadataManager.removeMember: a member gone since the last write leaves tombstones.
  std::set<std::string>& logged = it->second.logged_members;
  for (const std::string& member : logged) {
    if (!record.consumer_group->members.contains(member)) record.departed_members.push_back(member);
  }
  // An upgrade's first write: the classic group's GroupMetadata tombstone (convertToConsumerGroup).
  record.classic_tombstone = std::exchange(it->second.classic_tombstone_pending, false);
  const bool classic_tombstone = record.classic_tombstone;
  std::vector<std::string> departed = record.departed_members;
  logged.clear();
  for (const auto& [member, m] : record.consumer_group->members) logged.insert(member);
  const std::uint64_t id = records_.add(std::move(record));
  it->second.stored = id;
  append(partition, id, [this, group, id, classic_tombstone, departed = std::move(departed), then = std::move(then)](Error error) {
    const auto again = consumer_groups_.find(group);
    if (error != Error::None && again != consumer_groups_.end()) {
      // Not in the log: the next operation writes the group again, and the tombstones.
      if (again->second.stored == id) again->second.stored.reset();
      again->second.logged_members.insert(departed.begin(), departed.end());
      again->second.classic_tombstone_pending |= classic_tombstone;
    }
    then(error);
  });
}

// Replaying a consumer group's record while loading its partition.
void GroupCoordinator::replay_consumer_group(std::int32_t partition, std::uint64_t record_id) {
  const CoordinatorRecord& record = records_.at(record_id);
  ConsumerGroupEntry& entry = consumer_group(record.group);
  entry.partition = partition;
  entry.group = ConsumerGroup::from_image(*record.consumer_group);
  entry.stored = record_id;
  entry.logged_members.clear();
  for (const auto& [member, m] : record.consumer_group->members) entry.logged_members.insert(member);
  entry.classic_tombstone_pending = false;
  // An upgrade's record: the classic group it replaced is gone, its offsets stay.
  if (record.classic_tombstone) {
    if (Group* classic = find(record.group)) clear_classic_membership(*classic);
  }
}

// GroupMetadataManager.onLoaded for consumer groups: every member has its
// session timeout from now, a member revoking its rebalance timeout.
void GroupCoordinator::consumer_groups_loaded(std::int32_t partition) {
  for (auto& [id, entry] : consumer_groups_) {
    if (entry.partition != partition) continue;
    const ConsumerGroupState state = entry.group.state();
    entry.rebalancing = state != ConsumerGroupState::Stable && state != ConsumerGroupState::Empty;
    entry.stable_owners.clear();
    for (const auto& [member_id, m] : entry.group.members()) {
      for (const TopicPartition tp : m.assigned) entry.stable_owners[tp] = m.client_id;
      consumer_schedule_session(entry, member_id);
      consumer_schedule_revocation(entry, member_id);
    }
  }
}

}  // namespace ksim::models
