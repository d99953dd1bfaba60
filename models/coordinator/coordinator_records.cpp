#include "models/coordinator/coordinator_records.hpp"

#include <cassert>
#include <iterator>

namespace ksim::models {

// Sizes close to Kafka's serialized keys and values.
std::uint64_t CoordinatorRecord::bytes() const {
  const std::uint64_t key = 16 + group.size();
  if (tombstone) return offsets.empty() ? key : offsets.size() * (key + 8);  // keys only
  if (transaction) return key + 40 + 24 * transaction->partitions.size();
  if (consumer_group) {  // the group's epoch, each member's metadata, assignment and target
    std::uint64_t size = key + 32;
    for (const auto& [id, m] : consumer_group->members) {
      size += 3 * (key + id.size()) + 64 + m->client_id.size() + 8 * (m->assigned.size() + m->pending_revocation.size()) +
              8 * consumer_group->target_of(id).size();
    }
    for (const std::string& id : departed_members) size += 3 * (key + id.size());  // three tombstones: keys only
    return size;
  }
  if (!metadata) return offsets.size() * (key + 48);
  std::uint64_t size = key + 32 + metadata->protocol.size() + metadata->leader.size();
  for (const auto& m : metadata->members) {
    size += 48 + m.member_id.size() + m.client_id.size() + 8 * (m.assignment.size() + m.subscription.owned.size());
  }
  return size;
}

std::uint64_t CoordinatorRecordStore::add(CoordinatorRecord record) {
  records_.push_back(std::move(record));
  return records_.size() - 1;
}

RecordKey CoordinatorRecordStore::key(std::uint64_t id, std::int32_t index) {
  const CoordinatorRecord& record = at(id);
  assert(index >= 0 && index < record.record_count());
  Key key{KeyKind::Offset, record.group, {}, {}};
  if (record.transaction) {
    std::get<KeyKind>(key) = KeyKind::Transaction;
  } else if (record.consumer_group) {
    std::get<KeyKind>(key) = index == 0 ? KeyKind::ConsumerGroup : KeyKind::ConsumerGroupMember;
    const auto members = static_cast<std::int32_t>(record.consumer_group->members.size());
    if (index > members) {  // a departed member's tombstone
      std::get<2>(key) = record.departed_members.at(static_cast<std::size_t>(index - 1 - members));
      const auto next = static_cast<std::int64_t>(keys_.size());
      return {keys_.try_emplace(std::move(key), next).first->second, true};
    }
    if (index > 0) std::get<2>(key) = std::next(record.consumer_group->members.begin(), index - 1)->first;
  } else if (record.metadata) {
    std::get<KeyKind>(key) = KeyKind::GroupMetadata;
  } else {
    std::get<TopicPartition>(key) = record.offsets.at(static_cast<std::size_t>(index)).partition;
  }
  const auto next = static_cast<std::int64_t>(keys_.size());
  return {keys_.try_emplace(std::move(key), next).first->second, record.tombstone};
}

}  // namespace ksim::models
