#pragma once
// Test helpers for the consumer group's partition assignors: groups of members
// built in a line, assignments shown as text, and the checks Kafka's assignor
// tests make (validity, balance, cooperative rounds).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/client/consumer/assignors/assignor.hpp"

namespace ksim::testing {

using models::Assignment;
using models::make_assignor;
using models::MemberSubscription;
using models::TopicPartition;

// Kafka's tests name topics "topic" < "topic1" < "topic2" < "topic3"; ksim numbers them in that order.
inline constexpr std::int32_t kTopic = 0;
inline constexpr std::int32_t kTopic1 = 1;
inline constexpr std::int32_t kTopic2 = 2;
inline constexpr std::int32_t kTopic3 = 3;

using Partitions = std::vector<TopicPartition>;
using Counts = std::map<std::int32_t, std::int32_t>;
using Members = std::vector<MemberSubscription>;

inline TopicPartition tp(std::int32_t topic, std::int32_t partition) { return {topic, partition}; }

inline MemberSubscription member(std::string id, std::vector<std::int32_t> topics, Partitions owned = {},
                          std::int32_t generation = -1, std::optional<std::string> instance = std::nullopt) {
  return {std::move(id), std::move(instance), std::move(topics), std::move(owned), generation};
}

inline Assignment assign(std::string_view assignor, const Counts& counts, const Members& members) {
  const auto a = make_assignor(assignor);
  REQUIRE(a);
  return a->assign(counts, members);
}

// "1-0 1-2 2-1": topic-partition, in order; easy to read when a check fails.
inline std::string show(const Partitions& partitions) {
  std::string out;
  for (const TopicPartition& p : partitions) {
    if (!out.empty()) out += ' ';
    out += std::to_string(p.topic) + "-" + std::to_string(p.partition);
  }
  return out;
}

inline std::string show(const Assignment& assignment, const std::string& member) { return show(assignment.at(member)); }

// The members' subscriptions for the next rebalance: each now owns what it was given.
inline Members owning(Members members, const Assignment& assignment, std::int32_t generation) {
  for (MemberSubscription& m : members) {
    m.owned = assignment.at(m.member_id);
    m.generation = generation;
  }
  return members;
}

inline std::set<TopicPartition> set_of(const Partitions& partitions) { return {partitions.begin(), partitions.end()}; }

// ---------------------------------------------------------------------------
// Checks shared by the examples and the property test.

inline std::set<TopicPartition> all_partitions(const Counts& counts, const Members& members) {
  std::set<TopicPartition> all;
  for (const MemberSubscription& m : members) {
    for (const std::int32_t topic : m.topics) {
      const auto it = counts.find(topic);
      if (it == counts.end()) continue;
      for (std::int32_t p = 0; p < it->second; ++p) all.insert({topic, p});
    }
  }
  return all;
}

// Every member present, lists sorted, only subscribed topics, no partition twice, and (when
// `complete`) every partition of a subscribed topic assigned.
inline void check_valid(const Counts& counts, const Members& members, const Assignment& assignment, bool complete) {
  REQUIRE(assignment.size() == members.size());
  std::set<TopicPartition> seen;
  for (const MemberSubscription& m : members) {
    REQUIRE(assignment.contains(m.member_id));
    const Partitions& partitions = assignment.at(m.member_id);
    CHECK(std::is_sorted(partitions.begin(), partitions.end()));
    for (const TopicPartition& p : partitions) {
      CHECK(std::find(m.topics.begin(), m.topics.end(), p.topic) != m.topics.end());
      CHECK(seen.insert(p).second);
    }
  }
  const auto all = all_partitions(counts, members);
  for (const TopicPartition& p : seen) CHECK(all.contains(p));
  if (complete) CHECK(seen.size() == all.size());
}

inline bool fully_balanced(const Assignment& assignment) {
  std::size_t min = SIZE_MAX, max = 0;
  for (const auto& [m, partitions] : assignment) {
    min = std::min(min, partitions.size());
    max = std::max(max, partitions.size());
  }
  return assignment.empty() || max - min <= 1;
}

// AbstractStickyAssignorTest.verifyValidityAndBalance: two members whose counts differ by more
// than one have no topic in common among their partitions.
inline void check_sticky_balance(const Assignment& assignment) {
  for (auto a = assignment.begin(); a != assignment.end(); ++a) {
    for (auto b = std::next(a); b != assignment.end(); ++b) {
      const auto diff = static_cast<long>(a->second.size()) - static_cast<long>(b->second.size());
      if (diff >= -1 && diff <= 1) continue;
      std::set<std::int32_t> topics;
      for (const TopicPartition& p : a->second) topics.insert(p.topic);
      for (const TopicPartition& p : b->second) CHECK_FALSE(topics.contains(p.topic));
    }
  }
}

// AbstractStickyAssignor.isBalanced, as a check: no member could take a partition of its topics
// from a member with two or more partitions more than it.
inline void check_nothing_could_move(const Counts& counts, const Members& members, const Assignment& assignment) {
  std::map<TopicPartition, std::string> owner;
  for (const auto& [m, partitions] : assignment) {
    for (const TopicPartition& p : partitions) owner[p] = m;
  }
  for (const MemberSubscription& m : members) {
    const std::size_t load = assignment.at(m.member_id).size();
    for (const std::int32_t topic : std::set(m.topics.begin(), m.topics.end())) {
      const auto count = counts.contains(topic) ? counts.at(topic) : 0;
      for (std::int32_t p = 0; p < count; ++p) {
        const auto it = owner.find({topic, p});
        if (it != owner.end()) CHECK(load + 1 >= assignment.at(it->second).size());
      }
    }
  }
}

// CooperativeStickyAssignorTest.verifyCooperativeValidity: nothing is given to a member while
// another still owns it. Returns whether something is being revoked (so a follow-up rebalance).
inline bool check_cooperative_round(const Members& members, const Assignment& assignment) {
  std::set<TopicPartition> added, revoked;
  for (const MemberSubscription& m : members) {
    const auto owned = set_of(m.owned);
    const auto assigned = set_of(assignment.at(m.member_id));
    for (const TopicPartition& p : assigned) {
      if (!owned.contains(p)) added.insert(p);
    }
    for (const TopicPartition& p : owned) {
      if (!assigned.contains(p)) revoked.insert(p);
    }
  }
  for (const TopicPartition& p : added) CHECK_FALSE(revoked.contains(p));
  return !revoked.empty();
}

// Rebalances until nothing is revoked (at most 4 follow-ups, as Kafka's test); returns the final
// assignment and the members as they subscribe for it.
inline std::pair<Assignment, Members> cooperative_rounds(const Counts& counts, Members members,
                                                      std::int32_t generation) {
  Assignment assignment = assign("cooperative-sticky", counts, members);
  int rebalances = 0;
  while (check_cooperative_round(members, assignment)) {
    members = owning(members, assignment, ++generation);
    assignment = assign("cooperative-sticky", counts, members);
    REQUIRE(++rebalances <= 4);
  }
  return {assignment, members};
}

}  // namespace ksim::testing
