#include "models/coordinator/coordinator_records.hpp"

namespace ksim::models {

// Sizes close to Kafka's serialized keys and values.
std::uint64_t CoordinatorRecord::bytes() const {
  const std::uint64_t key = 16 + group.size();
  if (transaction) return key + 40 + 24 * transaction->partitions.size();
  if (consumer_group) {  // the group's epoch, each member's metadata, assignment and target
    std::uint64_t size = key + 32;
    for (const auto& [id, m] : consumer_group->members()) {
      size += 3 * (key + id.size()) + 64 + m.client_id.size() + 8 * (m.assigned.size() + m.pending_revocation.size()) +
              8 * consumer_group->target_of(id).size();
    }
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

}  // namespace ksim::models
