#pragma once
// A KIP-848 consumer group as its coordinator writes it to __consumer_offsets
// (group_coordinator_persist.cpp; in place of Kafka's ConsumerGroupMetadata,
// ...MemberMetadata, ...PartitionMetadata, ...TargetAssignment* and
// ...CurrentMemberAssignment records) and a new coordinator replays it: the
// group's state less what follows from it (who holds each partition).
//
// Written whole at every change, an image shares with the group's previous
// one the members and the target that did not change: records stand for
// immutable bytes, so sharing them is safe, and a run's writes of a large
// group cost what each changed, not the whole group every time (a rolling
// restart of a 50-member group writes it thousands of times).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/coordinator/consumer_group.hpp"

namespace ksim::models {

struct ConsumerGroupImage {
  std::string id;
  std::int32_t group_epoch = 0;
  std::int32_t target_epoch = 0;
  std::map<std::string, std::shared_ptr<const ConsumerGroupMember>> members;
  std::map<std::int32_t, std::int32_t> partition_counts;
  std::shared_ptr<const Assignment> target;  // never null

  const std::vector<TopicPartition>& target_of(const std::string& member_id) const;
};

}  // namespace ksim::models
