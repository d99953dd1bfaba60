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
    return size + (classic_tombstone ? key : 0);
  }
  if (!metadata) return offsets.size() * (key + 48);
  std::uint64_t size = key + 32 + metadata->protocol.size() + metadata->leader.size();
  if (consumer_group_tombstone) {  // the consumer group's keys: its metadata, its target assignment's, each member's three
    size += 2 * key;
    for (const std::string& id : departed_members) size += 3 * (key + id.size());
  }
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
  const auto numbered = [this](Key key, bool tombstone) -> RecordKey {
    const auto next = static_cast<std::int64_t>(keys_.size());
    return {keys_.try_emplace(std::move(key), next).first->second, tombstone};
  };
  const auto member_key = [&](const std::string& member) { return Key{KeyKind::ConsumerGroupMember, record.group, member, {}}; };
  if (record.transaction) return numbered(Key{KeyKind::Transaction, record.group, {}, {}}, record.tombstone);
  if (record.consumer_group) {
    const auto members = static_cast<std::int32_t>(record.consumer_group->members.size());
    const auto departed = static_cast<std::int32_t>(record.departed_members.size());
    if (index == 0) return numbered(Key{KeyKind::ConsumerGroup, record.group, {}, {}}, record.tombstone);
    if (index <= members) {
      return numbered(member_key(std::next(record.consumer_group->members.begin(), index - 1)->first), record.tombstone);
    }
    if (index <= members + departed) {  // a departed member's tombstone
      return numbered(member_key(record.departed_members.at(static_cast<std::size_t>(index - 1 - members))), true);
    }
    return numbered(Key{KeyKind::GroupMetadata, record.group, {}, {}}, true);  // an upgrade: the classic group's
  }
  if (record.metadata) {
    if (index == 0) return numbered(Key{KeyKind::GroupMetadata, record.group, {}, {}}, record.tombstone);
    // A downgrade: the consumer group's key, then its members'.
    if (index == 1) return numbered(Key{KeyKind::ConsumerGroup, record.group, {}, {}}, true);
    return numbered(member_key(record.departed_members.at(static_cast<std::size_t>(index - 2))), true);
  }
  return numbered(Key{KeyKind::Offset, record.group, {}, record.offsets.at(static_cast<std::size_t>(index)).partition},
                  record.tombstone);
}

}  // namespace ksim::models
