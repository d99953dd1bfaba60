#pragma once
// The group as Kafka's AbstractPartitionAssignor hands it to an assignor, and
// the helpers the assignors share (internal to assignor.cpp and
// sticky_assignor.cpp).
#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/client/consumer/assignors/assignor.hpp"

namespace ksim::models::assignor_detail {

using Topic = std::int32_t;
using PartitionCounts = std::map<Topic, std::int32_t>;
using Transfers = std::map<TopicPartition, std::string>;  // partition -> the member it moves to

constexpr std::int32_t kDefaultGeneration = -1;  // AbstractStickyAssignor.DEFAULT_GENERATION

// ---------------------------------------------------------------------------
// The group as AbstractPartitionAssignor.assign hands it to an assignor.

struct Member {
  std::string id;
  std::optional<std::string> instance_id;
  std::set<Topic> topics;
  std::set<TopicPartition> owned;  // as claimed, deduplicated
  std::int32_t generation = kDefaultGeneration;
};

struct Group {
  PartitionCounts partitions;   // subscribed topics that have partitions (the rest are skipped)
  std::vector<Member> members;  // by member id: ksim's order wherever Kafka iterates a HashMap
};

inline Group make_group(const PartitionCounts& partitions_per_topic, const std::vector<MemberSubscription>& subscriptions) {
  std::map<std::string, Member> by_id;
  for (const MemberSubscription& s : subscriptions) {
    by_id.insert_or_assign(s.member_id, Member{s.member_id, s.group_instance_id, {s.topics.begin(), s.topics.end()},
                                               {s.owned.begin(), s.owned.end()}, s.generation});
  }
  Group group;
  for (auto& [id, member] : by_id) {
    for (const Topic topic : member.topics) {
      const auto it = partitions_per_topic.find(topic);
      if (it != partitions_per_topic.end() && it->second > 0) group.partitions.emplace(topic, it->second);
    }
    group.members.push_back(std::move(member));
  }
  return group;
}

inline bool exists(const Group& group, const TopicPartition& tp) {
  const auto it = group.partitions.find(tp.topic);
  return it != group.partitions.end() && tp.partition >= 0 && tp.partition < it->second;
}

inline Assignment empty_assignment(const Group& group) {
  Assignment assignment;
  for (const Member& member : group.members) assignment[member.id];
  return assignment;
}

inline void sort_lists(Assignment& assignment) {
  for (auto& [member, partitions] : assignment) std::sort(partitions.begin(), partitions.end());
}

// AbstractPartitionAssignor.MemberInfo.compareTo: static members (KIP-345) first, by
// group.instance.id, then dynamic members by member id.
inline bool member_info_less(const Member* a, const Member* b) {
  if (a->instance_id && b->instance_id && *a->instance_id != *b->instance_id) return *a->instance_id < *b->instance_id;
  if (a->instance_id.has_value() != b->instance_id.has_value()) return a->instance_id.has_value();
  return a->id < b->id;
}

inline std::vector<const Member*> sorted_member_infos(const Group& group, std::optional<Topic> subscribed_to) {
  std::vector<const Member*> members;
  for (const Member& member : group.members) {
    if (!subscribed_to || member.topics.contains(*subscribed_to)) members.push_back(&member);
  }
  std::sort(members.begin(), members.end(), member_info_less);
  return members;
}

std::unique_ptr<Assignor> make_sticky_assignor();              // sticky_assignor.cpp
std::unique_ptr<Assignor> make_cooperative_sticky_assignor();

}  // namespace ksim::models::assignor_detail
