#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/client/consumer/assignors/assignor.hpp"

using namespace ksim::models;

namespace {

// Kafka's tests name topics "topic" < "topic1" < "topic2" < "topic3"; ksim numbers them in that order.
constexpr std::int32_t kTopic = 0;
constexpr std::int32_t kTopic1 = 1;
constexpr std::int32_t kTopic2 = 2;
constexpr std::int32_t kTopic3 = 3;

using Partitions = std::vector<TopicPartition>;
using Counts = std::map<std::int32_t, std::int32_t>;
using Members = std::vector<MemberSubscription>;

TopicPartition tp(std::int32_t topic, std::int32_t partition) { return {topic, partition}; }

MemberSubscription member(std::string id, std::vector<std::int32_t> topics, Partitions owned = {},
                          std::int32_t generation = -1, std::optional<std::string> instance = std::nullopt) {
  return {std::move(id), std::move(instance), std::move(topics), std::move(owned), generation};
}

Assignment assign(std::string_view assignor, const Counts& counts, const Members& members) {
  const auto a = make_assignor(assignor);
  REQUIRE(a);
  return a->assign(counts, members);
}

// "1-0 1-2 2-1": topic-partition, in order; easy to read when a check fails.
std::string show(const Partitions& partitions) {
  std::string out;
  for (const TopicPartition& p : partitions) {
    if (!out.empty()) out += ' ';
    out += std::to_string(p.topic) + "-" + std::to_string(p.partition);
  }
  return out;
}

std::string show(const Assignment& assignment, const std::string& member) { return show(assignment.at(member)); }

// The members' subscriptions for the next rebalance: each now owns what it was given.
Members owning(Members members, const Assignment& assignment, std::int32_t generation) {
  for (MemberSubscription& m : members) {
    m.owned = assignment.at(m.member_id);
    m.generation = generation;
  }
  return members;
}

std::set<TopicPartition> set_of(const Partitions& partitions) { return {partitions.begin(), partitions.end()}; }

// ---------------------------------------------------------------------------
// Checks shared by the examples and the property test.

std::set<TopicPartition> all_partitions(const Counts& counts, const Members& members) {
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
void check_valid(const Counts& counts, const Members& members, const Assignment& assignment, bool complete) {
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

bool fully_balanced(const Assignment& assignment) {
  std::size_t min = SIZE_MAX, max = 0;
  for (const auto& [m, partitions] : assignment) {
    min = std::min(min, partitions.size());
    max = std::max(max, partitions.size());
  }
  return assignment.empty() || max - min <= 1;
}

// AbstractStickyAssignorTest.verifyValidityAndBalance: two members whose counts differ by more
// than one have no topic in common among their partitions.
void check_sticky_balance(const Assignment& assignment) {
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
void check_nothing_could_move(const Counts& counts, const Members& members, const Assignment& assignment) {
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
bool check_cooperative_round(const Members& members, const Assignment& assignment) {
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
std::pair<Assignment, Members> cooperative_rounds(const Counts& counts, Members members, std::int32_t generation) {
  Assignment assignment = assign("cooperative-sticky", counts, members);
  int rebalances = 0;
  while (check_cooperative_round(members, assignment)) {
    members = owning(members, assignment, ++generation);
    assignment = assign("cooperative-sticky", counts, members);
    REQUIRE(++rebalances <= 4);
  }
  return {assignment, members};
}

}  // namespace

// ---------------------------------------------------------------------------
// Names and protocols

TEST_CASE("assignors are found by Kafka's short and class names", "[assignor]") {
  for (const std::string& name : assignor_names()) {
    const auto a = make_assignor(name);
    REQUIRE(a);
    CHECK(a->name() == name);
  }
  CHECK(assignor_names() == std::vector<std::string>{"range", "roundrobin", "sticky", "cooperative-sticky"});
  CHECK(make_assignor("org.apache.kafka.clients.consumer.RangeAssignor")->name() == "range");
  CHECK(make_assignor("org.apache.kafka.clients.consumer.RoundRobinAssignor")->name() == "roundrobin");
  CHECK(make_assignor("org.apache.kafka.clients.consumer.StickyAssignor")->name() == "sticky");
  CHECK(make_assignor("org.apache.kafka.clients.consumer.CooperativeStickyAssignor")->name() == "cooperative-sticky");
  CHECK(make_assignor("uniform") == nullptr);
  CHECK(make_assignor("Range") == nullptr);
  CHECK(make_assignor("") == nullptr);
}

TEST_CASE("supportedProtocols: only cooperative-sticky supports COOPERATIVE", "[assignor]") {
  using P = RebalanceProtocol;
  CHECK(make_assignor("range")->supported_protocols() == std::vector<P>{P::Eager});
  CHECK(make_assignor("roundrobin")->supported_protocols() == std::vector<P>{P::Eager});
  CHECK(make_assignor("sticky")->supported_protocols() == std::vector<P>{P::Eager});
  CHECK(make_assignor("cooperative-sticky")->supported_protocols() == std::vector<P>{P::Cooperative, P::Eager});
  CHECK(to_string(P::Eager) == "EAGER");
  CHECK(to_string(P::Cooperative) == "COOPERATIVE");
}

TEST_CASE("the consumer's protocol is the highest that all its assignors support", "[assignor]") {
  CHECK(common_protocol({"cooperative-sticky"}) == RebalanceProtocol::Cooperative);
  CHECK(common_protocol({"range", "cooperative-sticky"}) == RebalanceProtocol::Eager);  // KIP-429 upgrade path
  CHECK(common_protocol({"cooperative-sticky", "sticky"}) == RebalanceProtocol::Eager);
  CHECK(common_protocol({"range"}) == RebalanceProtocol::Eager);
  CHECK(common_protocol({"org.apache.kafka.clients.consumer.CooperativeStickyAssignor"}) ==
        RebalanceProtocol::Cooperative);
}

// ---------------------------------------------------------------------------
// RangeAssignorTest

TEST_CASE("range: 3 partitions over 2 consumers give [0,1] and [2]", "[assignor]") {
  const Counts counts{{kTopic, 3}};
  const auto a = assign("range", counts, {member("consumer1", {kTopic}), member("consumer2", {kTopic})});
  CHECK(show(a, "consumer1") == "0-0 0-1");
  CHECK(show(a, "consumer2") == "0-2");
}

TEST_CASE("range: RangeAssignorTest single-consumer and one-partition cases", "[assignor]") {
  CHECK(show(assign("range", {{kTopic, 3}}, {member("consumer", {kTopic})}), "consumer") == "0-0 0-1 0-2");
  const auto a = assign("range", {{kTopic, 1}}, {member("consumer1", {kTopic}), member("consumer2", {kTopic})});
  CHECK(show(a, "consumer1") == "0-0");
  CHECK(a.at("consumer2").empty());
  // A topic without metadata is skipped; the member still appears.
  const auto none = assign("range", {}, {member("consumer", {kTopic})});
  REQUIRE(none.contains("consumer"));
  CHECK(none.at("consumer").empty());
}

TEST_CASE("range: testMultipleConsumersMixedTopics and testTwoConsumersTwoTopicsSixPartitions", "[assignor]") {
  const Counts mixed{{kTopic1, 3}, {kTopic2, 2}};
  const auto a = assign("range", mixed,
                        {member("consumer1", {kTopic1}), member("consumer2", {kTopic1, kTopic2}),
                         member("consumer3", {kTopic1})});
  CHECK(show(a, "consumer1") == "1-0");
  CHECK(show(a, "consumer2") == "1-1 2-0 2-1");
  CHECK(show(a, "consumer3") == "1-2");

  const Counts six{{kTopic1, 3}, {kTopic2, 3}};
  const auto b = assign("range", six, {member("consumer1", {kTopic1, kTopic2}), member("consumer2", {kTopic1, kTopic2})});
  CHECK(show(b, "consumer1") == "1-0 1-1 2-0 2-1");
  CHECK(show(b, "consumer2") == "1-2 2-2");
}

TEST_CASE("range: static members go first, ordered by group.instance.id (MemberInfo)", "[assignor]") {
  const Counts counts{{kTopic, 5}};
  const Members members{member("a-dynamic", {kTopic}), member("z-static", {kTopic}, {}, -1, "instance-1"),
                        member("b-static", {kTopic}, {}, -1, "instance-2")};
  const auto a = assign("range", counts, members);
  CHECK(show(a, "z-static") == "0-0 0-1");
  CHECK(show(a, "b-static") == "0-2 0-3");
  CHECK(show(a, "a-dynamic") == "0-4");
}

// ---------------------------------------------------------------------------
// RoundRobinAssignorTest

TEST_CASE("roundrobin: testTwoConsumersTwoTopicsSixPartitions", "[assignor]") {
  const Counts counts{{kTopic1, 3}, {kTopic2, 3}};
  const auto a = assign("roundrobin", counts,
                        {member("consumer1", {kTopic1, kTopic2}), member("consumer2", {kTopic1, kTopic2})});
  CHECK(show(a, "consumer1") == "1-0 1-2 2-1");
  CHECK(show(a, "consumer2") == "1-1 2-0 2-2");
}

TEST_CASE("roundrobin: testMultipleConsumersMixedTopics skips members not subscribed", "[assignor]") {
  const Counts counts{{kTopic1, 3}, {kTopic2, 2}};
  const auto a = assign("roundrobin", counts,
                        {member("consumer1", {kTopic1}), member("consumer2", {kTopic1, kTopic2}),
                         member("consumer3", {kTopic1})});
  CHECK(show(a, "consumer1") == "1-0");
  CHECK(show(a, "consumer2") == "1-1 2-0 2-1");
  CHECK(show(a, "consumer3") == "1-2");
}

TEST_CASE("roundrobin: static members are dealt in group.instance.id order", "[assignor]") {
  const Counts counts{{kTopic1, 3}, {kTopic2, 3}};
  const auto a = assign("roundrobin", counts,
                        {member("consumer1", {kTopic1, kTopic2}, {}, -1, "instance-b"),
                         member("consumer2", {kTopic1, kTopic2}, {}, -1, "instance-a")});
  CHECK(show(a, "consumer2") == "1-0 1-2 2-1");
  CHECK(show(a, "consumer1") == "1-1 2-0 2-2");
}

// ---------------------------------------------------------------------------
// AbstractStickyAssignorTest, for the sticky assignor (and its base for cooperative-sticky)

TEST_CASE("sticky: fresh assignments of AbstractStickyAssignorTest", "[assignor]") {
  SECTION("testTwoConsumersTwoTopicsSixPartitions") {
    const auto a = assign("sticky", {{kTopic1, 3}, {kTopic2, 3}},
                          {member("consumer1", {kTopic1, kTopic2}), member("consumer2", {kTopic1, kTopic2})});
    CHECK(show(a, "consumer1") == "1-0 1-2 2-1");
    CHECK(show(a, "consumer2") == "1-1 2-0 2-2");
  }
  SECTION("testMultipleConsumersMixedTopicSubscriptions (general case)") {
    const auto a = assign("sticky", {{kTopic1, 3}, {kTopic2, 2}},
                          {member("consumer1", {kTopic1}), member("consumer2", {kTopic1, kTopic2}),
                           member("consumer3", {kTopic1})});
    CHECK(show(a, "consumer1") == "1-0 1-2");
    CHECK(show(a, "consumer2") == "2-0 2-1");
    CHECK(show(a, "consumer3") == "1-1");
  }
  SECTION("testRackAwareAssignmentWithNonEqualSubscription, without racks") {
    const Counts counts{{1, 6}, {2, 7}, {3, 2}};
    const Members members{member("consumer0", {1, 2, 3}), member("consumer1", {1, 2, 3}), member("consumer2", {1, 3})};
    for (const char* name : {"sticky", "cooperative-sticky"}) {
      const auto a = assign(name, counts, members);
      CHECK(show(a, "consumer0") == "1-5 2-0 2-2 2-4 2-6");
      CHECK(show(a, "consumer1") == "1-3 2-1 2-3 2-5 3-0");
      CHECK(show(a, "consumer2") == "1-0 1-1 1-2 1-4 3-1");
      // Owning exactly that, every member keeps it.
      CHECK(assign(name, counts, owning(members, a, 1)) == a);
    }
  }
}

TEST_CASE("sticky: testAddRemoveConsumerOneTopic keeps owned partitions and moves the minimum", "[assignor]") {
  const Counts counts{{kTopic, 3}};
  const auto first = assign("sticky", counts, {member("consumer1", {kTopic})});
  CHECK(show(first, "consumer1") == "0-0 0-1 0-2");

  const auto second = assign("sticky", counts,
                             {member("consumer1", {kTopic}, first.at("consumer1"), 1), member("consumer2", {kTopic}, {}, 1)});
  CHECK(show(second, "consumer1") == "0-0 0-1");
  CHECK(show(second, "consumer2") == "0-2");

  const auto third = assign("sticky", counts, {member("consumer2", {kTopic}, second.at("consumer2"), 2)});
  CHECK(show(third, "consumer2") == "0-0 0-1 0-2");
}

TEST_CASE("sticky: testAddRemoveTwoConsumersTwoTopics (KAFKA-16277 order)", "[assignor]") {
  const Counts counts{{kTopic1, 3}, {kTopic2, 4}};
  const std::vector<std::int32_t> both{kTopic1, kTopic2};
  const auto first = assign("sticky", counts, {member("consumer1", both), member("consumer2", both)});
  CHECK(show(first, "consumer1") == "1-0 1-2 2-1 2-3");
  CHECK(show(first, "consumer2") == "1-1 2-0 2-2");

  const Members four{member("consumer1", both, first.at("consumer1"), 1), member("consumer2", both, first.at("consumer2"), 1),
                     member("consumer3", both, {}, 1), member("consumer4", both, {}, 1)};
  const auto second = assign("sticky", counts, four);
  CHECK(show(second, "consumer1") == "1-0 2-1");
  CHECK(show(second, "consumer2") == "1-1 2-0");
  CHECK(show(second, "consumer3") == "1-2 2-3");
  CHECK(show(second, "consumer4") == "2-2");

  const auto third = assign("sticky", counts,
                            {member("consumer3", both, second.at("consumer3"), 2),
                             member("consumer4", both, second.at("consumer4"), 2)});
  CHECK(show(third, "consumer3") == "1-0 1-2 2-1 2-3");
  CHECK(show(third, "consumer4") == "1-1 2-0 2-2");
}

TEST_CASE("sticky: quota cases of AbstractStickyAssignorTest", "[assignor]") {
  const std::vector<std::int32_t> both{kTopic1, kTopic2};
  SECTION("testConsumerOwningMinQuotaExpectedMaxQuota") {
    const auto a = assign("sticky", {{kTopic1, 2}, {kTopic2, 3}},
                          {member("consumer1", both, {tp(kTopic1, 0), tp(kTopic2, 1)}, 1),
                           member("consumer2", both, {tp(kTopic1, 1), tp(kTopic2, 2)}, 1)});
    CHECK(show(a, "consumer1") == "1-0 2-0 2-1");
    CHECK(show(a, "consumer2") == "1-1 2-2");
  }
  SECTION("testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers") {
    // Kafka's HashMap happened to visit consumer2 first, so there consumer2 keeps maxQuota;
    // ksim visits members by id, so consumer1 keeps it and consumer2 gives up topic2-1.
    const Members members{member("consumer1", both, {tp(kTopic1, 0), tp(kTopic2, 0)}, 1),
                          member("consumer2", both, {tp(kTopic1, 1), tp(kTopic2, 1)}, 1), member("consumer3", both, {}, 1)};
    const auto a = assign("sticky", {{kTopic1, 2}, {kTopic2, 2}}, members);
    CHECK(show(a, "consumer1") == "1-0 2-0");
    CHECK(show(a, "consumer2") == "1-1");
    CHECK(show(a, "consumer3") == "2-1");
    const auto c = assign("cooperative-sticky", {{kTopic1, 2}, {kTopic2, 2}}, members);
    CHECK(c.at("consumer3").empty());  // topic2-1 is transferring
  }
  SECTION("testAllConsumersAreUnderMinQuota") {
    const auto a = assign("sticky", {{kTopic1, 2}, {kTopic2, 3}},
                          {member("consumer1", both, {tp(kTopic1, 0)}, 1), member("consumer2", both, {tp(kTopic1, 1)}, 1),
                           member("consumer3", both, {}, 1)});
    CHECK(show(a, "consumer1") == "1-0 2-1");
    CHECK(show(a, "consumer2") == "1-1 2-2");
    CHECK(show(a, "consumer3") == "2-0");
  }
  SECTION("testAllConsumersReachExpectedQuotaAndAreConsideredFilled") {
    const auto a = assign("sticky", {{kTopic, 4}},
                          {member("consumer1", {kTopic}, {tp(kTopic, 0), tp(kTopic, 1)}, 1),
                           member("consumer2", {kTopic}, {tp(kTopic, 2)}, 1), member("consumer3", {kTopic}, {}, 1)});
    CHECK(show(a, "consumer1") == "0-0 0-1");
    CHECK(show(a, "consumer2") == "0-2");
    CHECK(show(a, "consumer3") == "0-3");
  }
}

TEST_CASE("sticky: only the highest generation's claim to a partition counts", "[assignor]") {
  const Counts counts{{kTopic, 3}, {kTopic2, 3}};
  const std::vector<std::int32_t> both{kTopic, kTopic2};
  const Partitions claimed{tp(kTopic, 0), tp(kTopic, 2), tp(kTopic2, 1)};
  SECTION("testOwnedPartitionsAreInvalidatedForConsumerWithStaleGeneration") {
    const auto a = assign("sticky", counts, {member("consumer1", both, claimed, 10), member("consumer2", both, claimed, 9)});
    CHECK(show(a, "consumer1") == "0-0 0-2 2-1");
    CHECK(show(a, "consumer2") == "0-1 2-0 2-2");
  }
  SECTION("testOwnedPartitionsAreInvalidatedForConsumerWithNoGeneration") {
    const auto a = assign("sticky", counts, {member("consumer1", both, claimed, 10), member("consumer2", both, claimed, -1)});
    CHECK(show(a, "consumer1") == "0-0 0-2 2-1");
    CHECK(show(a, "consumer2") == "0-1 2-0 2-2");
  }
  SECTION("testOwnedPartitionsAreInvalidatedForConsumerWithMultipleGeneration") {
    const auto a = assign("sticky", counts,
                          {member("consumer1", both, {tp(kTopic, 0), tp(kTopic2, 1), tp(kTopic, 1)}, 10),
                           member("consumer2", both, {tp(kTopic, 0), tp(kTopic2, 1), tp(kTopic2, 2)}, 8)});
    CHECK(show(a, "consumer1") == "0-0 0-1 2-1");
    CHECK(show(a, "consumer2") == "0-2 2-0 2-2");
  }
  SECTION("testEnsurePartitionsAssignedToHighestGeneration") {
    const std::vector<std::int32_t> three{kTopic, kTopic2, kTopic3};
    const auto a = assign("sticky", {{kTopic, 3}, {kTopic2, 3}, {kTopic3, 3}},
                          {member("consumer1", three, {tp(kTopic, 0), tp(kTopic2, 0), tp(kTopic3, 0)}, 10),
                           member("consumer2", three, {tp(kTopic, 1), tp(kTopic2, 1), tp(kTopic3, 1)}, 9),
                           member("consumer3", three, {tp(kTopic2, 1), tp(kTopic3, 0), tp(kTopic3, 2)}, 8)});
    CHECK(show(a, "consumer1") == "0-0 2-0 3-0");
    CHECK(show(a, "consumer2") == "0-1 2-1 3-1");
    CHECK(show(a, "consumer3") == "0-2 2-2 3-2");
  }
  SECTION("testNoReassignmentOnCurrentMembers") {
    const std::vector<std::int32_t> four{kTopic, kTopic2, kTopic3, kTopic1};
    const auto a = assign("sticky", {{kTopic, 3}, {kTopic1, 3}, {kTopic2, 3}, {kTopic3, 3}},
                          {member("consumer1", four, {}, -1),
                           member("consumer2", four, {tp(kTopic, 0), tp(kTopic2, 0), tp(kTopic1, 0)}, 9),
                           member("consumer3", four, {tp(kTopic3, 2), tp(kTopic2, 2), tp(kTopic1, 1)}, 8),
                           member("consumer4", four, {tp(kTopic3, 1), tp(kTopic, 1), tp(kTopic, 2)}, 7)});
    CHECK(show(a, "consumer1") == "1-2 2-1 3-0");
    CHECK(show(a, "consumer2") == "0-0 1-0 2-0");
    CHECK(show(a, "consumer3") == "1-1 2-2 3-2");
    CHECK(show(a, "consumer4") == "0-1 0-2 3-1");
  }
  SECTION("testPartitionsTransferringOwnershipIncludeThePartitionClaimedByMultipleConsumersInSameGeneration") {
    const Members members{member("consumer1", {kTopic}, {tp(kTopic, 0), tp(kTopic, 1)}, 1),
                          member("consumer2", {kTopic}, {tp(kTopic, 0), tp(kTopic, 2)}, 1),
                          member("consumer3", {kTopic}, {}, 1)};
    const auto a = assign("sticky", {{kTopic, 3}}, members);
    CHECK(show(a, "consumer1") == "0-1");
    CHECK(show(a, "consumer2") == "0-2");
    CHECK(show(a, "consumer3") == "0-0");
  }
}

TEST_CASE("sticky: a joining member takes the fewest partitions, from the most loaded", "[assignor]") {
  const Counts counts{{kTopic1, 4}, {kTopic2, 4}};
  const std::vector<std::int32_t> both{kTopic1, kTopic2};
  const Members two{member("a", both), member("b", both)};
  const auto first = assign("sticky", counts, two);
  Members three = owning(two, first, 1);
  three.push_back(member("c", both, {}, 1));
  const auto second = assign("sticky", counts, three);
  check_valid(counts, three, second, true);
  CHECK(fully_balanced(second));
  std::size_t kept = 0;
  for (const char* id : {"a", "b"}) {
    const auto before = set_of(first.at(id));
    for (const TopicPartition& p : second.at(id)) {
      CHECK(before.contains(p));  // nobody gains at another's expense except the newcomer
      kept += before.contains(p) ? 1 : 0;
    }
  }
  CHECK(kept == 6);  // 8 partitions over 3 members: only 2 move, both to "c"
  CHECK(second.at("c").size() == 2);
}

TEST_CASE("sticky: general case keeps partitions when a topic is added and removed", "[assignor]") {
  // testAddRemoveTopicTwoConsumers
  const Members first_members{member("consumer1", {kTopic}), member("consumer2", {kTopic})};
  const auto first = assign("sticky", {{kTopic, 3}}, first_members);
  CHECK(fully_balanced(first));

  const Counts two_topics{{kTopic, 3}, {kTopic2, 3}};
  const Members second_members{member("consumer1", {kTopic, kTopic2}, first.at("consumer1"), 1),
                               member("consumer2", {kTopic, kTopic2}, first.at("consumer2"), 1)};
  const auto second = assign("sticky", two_topics, second_members);
  CHECK(second.at("consumer1").size() == 3);
  CHECK(second.at("consumer2").size() == 3);
  for (const char* id : {"consumer1", "consumer2"}) {
    for (const TopicPartition& p : first.at(id)) CHECK(set_of(second.at(id)).contains(p));
  }

  const Members third_members{member("consumer1", {kTopic2}, second.at("consumer1"), 2),
                              member("consumer2", {kTopic2}, second.at("consumer2"), 2)};
  const auto third = assign("sticky", {{kTopic2, 3}}, third_members);
  check_valid({{kTopic2, 3}}, third_members, third, true);
  CHECK(fully_balanced(third));
  for (const char* id : {"consumer1", "consumer2"}) {
    for (const TopicPartition& p : third.at(id)) CHECK(set_of(second.at(id)).contains(p));
  }
}

TEST_CASE("sticky: general case, PartitionMovements undoes a move rather than chaining one", "[assignor]") {
  const Counts counts{{0, 1}, {1, 5}, {2, 5}};
  const Members members{member("c0", {1, 2}, {tp(1, 4), tp(2, 0), tp(2, 1), tp(2, 2), tp(2, 3), tp(2, 4)}, 1),
                        member("c1", {0, 1}, {tp(0, 0), tp(1, 0), tp(1, 1), tp(1, 2), tp(1, 3)}, 1),
                        member("c9", {0, 2}, {}, 1)};
  const auto a = assign("sticky", counts, members);
  CHECK(show(a, "c0") == "1-4 2-2 2-3 2-4");  // 8 of the 11 owned partitions stay put
  CHECK(show(a, "c1") == "1-0 1-1 1-2 1-3");
  CHECK(show(a, "c9") == "0-0 2-0 2-1");
  const auto c = assign("cooperative-sticky", counts, members);
  CHECK(c.at("c9").empty());  // all three are transferring
  CHECK(show(assign("cooperative-sticky", counts, owning(members, c, 2)), "c9") == "0-0 2-0 2-1");
}

TEST_CASE("sticky: a group on which Kafka's general algorithm would cycle forever ends balanced", "[assignor]") {
  // Found by the property test: Kafka's PartitionMovements keeps swapping topic2-3 (c1->c0) and
  // topic2-4 (c0->c4) back and forth; ksim's livelock guard ends it.
  const Counts counts{{0, 7}, {1, 10}, {2, 5}, {3, 8}, {4, 4}};
  const Members members{
      member("c0", {2, 4}, {tp(2, 0), tp(2, 1), tp(2, 2), tp(2, 4), tp(4, 0), tp(4, 3)}, 1),
      member("c1", {2, 3}, {tp(1, 1), tp(1, 3), tp(1, 5), tp(1, 7), tp(1, 9), tp(4, 1), tp(4, 2)}, 1),
      member("c2", {1, 3}, {tp(0, 0), tp(0, 1), tp(0, 2), tp(0, 3), tp(0, 4), tp(0, 5), tp(0, 6), tp(3, 7)}, 1),
      member("c3", {1, 3}, {tp(3, 0), tp(3, 1), tp(3, 2), tp(3, 3), tp(3, 4), tp(3, 5), tp(3, 6)}, 1),
      member("c4", {2, 4}, {tp(1, 0), tp(1, 2), tp(1, 4), tp(1, 6), tp(1, 8), tp(2, 3)}, 1)};
  const auto a = assign("sticky", counts, members);
  check_valid(counts, members, a, true);
  check_sticky_balance(a);
  check_nothing_could_move(counts, members, a);
  const auto [final_assignment, final_members] = cooperative_rounds(counts, members, 1);
  check_valid(counts, final_members, final_assignment, true);
  check_sticky_balance(final_assignment);
  check_nothing_could_move(counts, final_members, final_assignment);
}

// ---------------------------------------------------------------------------
// CooperativeStickyAssignorTest

TEST_CASE("cooperative-sticky: a moving partition waits for the follow-up rebalance", "[assignor]") {
  const Counts counts{{kTopic, 3}};
  const auto first = assign("cooperative-sticky", counts, {member("consumer1", {kTopic})});
  CHECK(show(first, "consumer1") == "0-0 0-1 0-2");

  // consumer2 joins: consumer1 keeps 0 and 1 and revokes 2; nobody gets 2 yet.
  const Members joined{member("consumer1", {kTopic}, first.at("consumer1"), 1), member("consumer2", {kTopic}, {}, 1)};
  const auto round1 = assign("cooperative-sticky", counts, joined);
  CHECK(show(round1, "consumer1") == "0-0 0-1");
  CHECK(round1.at("consumer2").empty());
  CHECK(check_cooperative_round(joined, round1));  // something was revoked: a follow-up comes

  // The follow-up: consumer1 no longer claims 2, so consumer2 gets it.
  const Members follow_up = owning(joined, round1, 2);
  const auto round2 = assign("cooperative-sticky", counts, follow_up);
  CHECK(show(round2, "consumer1") == "0-0 0-1");
  CHECK(show(round2, "consumer2") == "0-2");
  CHECK_FALSE(check_cooperative_round(follow_up, round2));
  // The eager sticky assignor gives it at once.
  CHECK(show(assign("sticky", counts, joined), "consumer2") == "0-2");
}

TEST_CASE("cooperative-sticky: a partition claimed twice in one generation waits for both to revoke", "[assignor]") {
  const Members members{member("consumer1", {kTopic}, {tp(kTopic, 0), tp(kTopic, 1)}, 1),
                        member("consumer2", {kTopic}, {tp(kTopic, 0), tp(kTopic, 2)}, 1),
                        member("consumer3", {kTopic}, {}, 1)};
  SECTION("equal partitions per consumer") {
    const auto a = assign("cooperative-sticky", {{kTopic, 3}}, members);
    CHECK(show(a, "consumer1") == "0-1");
    CHECK(show(a, "consumer2") == "0-2");
    CHECK(a.at("consumer3").empty());
  }
  SECTION("unequal partitions per consumer") {
    const auto a = assign("cooperative-sticky", {{kTopic, 4}}, members);
    CHECK(show(a, "consumer1") == "0-1 0-3");
    CHECK(show(a, "consumer2") == "0-2");
    CHECK(a.at("consumer3").empty());
  }
}

TEST_CASE("cooperative-sticky: testAddRemoveTwoConsumersTwoTopics in cooperative rounds", "[assignor]") {
  const Counts counts{{kTopic1, 3}, {kTopic2, 4}};
  const std::vector<std::int32_t> both{kTopic1, kTopic2};
  const Members members{member("consumer1", both, {tp(kTopic1, 0), tp(kTopic1, 2), tp(kTopic2, 1), tp(kTopic2, 3)}, 1),
                        member("consumer2", both, {tp(kTopic1, 1), tp(kTopic2, 0), tp(kTopic2, 2)}, 1),
                        member("consumer3", both, {}, 1), member("consumer4", both, {}, 1)};
  const auto round1 = assign("cooperative-sticky", counts, members);
  CHECK(show(round1, "consumer1") == "1-0 2-1");
  CHECK(show(round1, "consumer2") == "1-1 2-0");
  CHECK(round1.at("consumer3").empty());
  CHECK(round1.at("consumer4").empty());
  const auto round2 = assign("cooperative-sticky", counts, owning(members, round1, 2));
  CHECK(show(round2, "consumer3") == "1-2 2-3");
  CHECK(show(round2, "consumer4") == "2-2");
}

TEST_CASE("cooperative-sticky: general case, testRackAwareAssignmentWithNonEqualSubscription's owned layout",
          "[assignor]") {
  // Kafka's expected intermediate and final assignments for CooperativeStickyAssignor.
  const Counts counts{{1, 6}, {2, 7}, {3, 2}};
  const Members members{
      member("consumer0", {1, 2, 3}, {tp(1, 0), tp(1, 1), tp(1, 2), tp(1, 3), tp(1, 4)}),
      member("consumer1", {1, 2, 3}, {tp(1, 5), tp(2, 0), tp(2, 1), tp(2, 2), tp(2, 3)}),
      member("consumer2", {1, 3}, {tp(2, 4), tp(2, 5), tp(2, 6), tp(3, 0), tp(3, 1)})};
  const auto round1 = assign("cooperative-sticky", counts, members);
  CHECK(show(round1, "consumer0") == "1-2 1-3 1-4");
  CHECK(show(round1, "consumer1") == "2-0 2-1 2-2 2-3");
  CHECK(show(round1, "consumer2") == "3-0 3-1");
  const Members follow_up = owning(members, round1, -1);
  const auto round2 = assign("cooperative-sticky", counts, follow_up);
  CHECK(show(round2, "consumer0") == "1-2 1-3 1-4 2-4 2-5");
  CHECK(show(round2, "consumer1") == "2-0 2-1 2-2 2-3 2-6");
  CHECK(show(round2, "consumer2") == "1-0 1-1 1-5 3-0 3-1");
  CHECK_FALSE(check_cooperative_round(follow_up, round2));
}

// ---------------------------------------------------------------------------
// Every member appears; determinism

TEST_CASE("every member appears, also one whose topics have no partitions", "[assignor]") {
  const Counts counts{{kTopic1, 2}};
  const Members members{member("a", {kTopic1}), member("b", {kTopic2}), member("c", {})};
  for (const std::string& name : assignor_names()) {
    const auto a = assign(name, counts, members);
    CHECK(a.size() == 3);
    CHECK(show(a, "a") == "1-0 1-1");
    CHECK(a.at("b").empty());
    CHECK(a.at("c").empty());
  }
  for (const std::string& name : assignor_names()) CHECK(assign(name, counts, {}).empty());
}

TEST_CASE("assignments are deterministic and independent of the members' order", "[assignor]") {
  const Counts counts{{0, 5}, {1, 3}, {2, 7}};
  Members members{member("m3", {0, 1, 2}, {tp(2, 0), tp(0, 4)}, 3), member("m1", {0, 2}, {tp(0, 0), tp(2, 1)}, 3),
                  member("m2", {1, 2}, {tp(0, 1)}, 2), member("m4", {0, 1, 2}, {}, -1)};
  for (const std::string& name : assignor_names()) {
    const auto expected = assign(name, counts, members);
    for (int i = 0; i < 5; ++i) CHECK(assign(name, counts, members) == expected);
    Members reversed(members.rbegin(), members.rend());
    CHECK(assign(name, counts, reversed) == expected);
  }
}

// ---------------------------------------------------------------------------
// Property test over random group shapes

namespace {

struct Lcg {
  std::uint64_t state;
  std::uint32_t next(std::uint32_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(state >> 33) % bound;
  }
};

std::vector<std::int32_t> random_topics(Lcg& rng, std::int32_t topics) {
  std::vector<std::int32_t> chosen;
  for (std::int32_t t = 0; t < topics; ++t) {
    if (rng.next(2) == 0) chosen.push_back(t);
  }
  if (chosen.empty()) chosen.push_back(static_cast<std::int32_t>(rng.next(static_cast<std::uint32_t>(topics))));
  return chosen;
}

struct Shape {
  Counts counts;
  Members members;
  bool equal = false;
};

Shape random_shape(Lcg& rng) {
  Shape shape;
  const auto topics = static_cast<std::int32_t>(1 + rng.next(6));
  for (std::int32_t t = 0; t < topics; ++t) shape.counts[t] = static_cast<std::int32_t>(rng.next(13));  // 0: no metadata
  shape.equal = rng.next(2) == 0;
  const auto common = random_topics(rng, topics);
  const auto count = 1 + rng.next(10);
  for (std::uint32_t i = 0; i < count; ++i) {
    std::optional<std::string> instance;
    if (rng.next(3) == 0) instance = "instance-" + std::to_string(rng.next(1000));
    shape.members.push_back(
        member("member-" + std::to_string(100 + i * 7 % 13) + "-" + std::to_string(i),
               shape.equal ? common : random_topics(rng, topics), {}, -1, instance));
  }
  if (rng.next(2) == 0) std::reverse(shape.members.begin(), shape.members.end());
  return shape;
}

// The group after a rebalance: members own what they got; some leave, one may join, and
// (unless all subscribe alike) some change their subscription.
Members next_group(Lcg& rng, const Shape& shape, const Assignment& assignment) {
  Members next;
  const auto topics = static_cast<std::int32_t>(shape.counts.size());
  for (MemberSubscription m : owning(shape.members, assignment, 1)) {
    if (shape.members.size() > 1 && rng.next(5) == 0) continue;
    if (!shape.equal && rng.next(4) == 0) m.topics = random_topics(rng, topics);
    next.push_back(std::move(m));
  }
  if (rng.next(2) == 0) {
    next.push_back(member("joiner", shape.equal ? shape.members.front().topics : random_topics(rng, topics), {}, 1));
  }
  return next;
}

void check_balance(std::string_view name, const Shape& shape, const Members& members, const Assignment& a) {
  if (name == "range") {
    for (const auto& entry : shape.counts) {
      const std::int32_t topic = entry.first;  // a plain variable: lambdas cannot capture bindings in clang < 16
      std::size_t min = SIZE_MAX, max = 0;
      for (const MemberSubscription& m : members) {
        if (std::find(m.topics.begin(), m.topics.end(), topic) == m.topics.end()) continue;
        const auto n = static_cast<std::size_t>(std::count_if(
            a.at(m.member_id).begin(), a.at(m.member_id).end(), [&](const TopicPartition& p) { return p.topic == topic; }));
        min = std::min(min, n);
        max = std::max(max, n);
      }
      CHECK((max == 0 || max - min <= 1));
    }
    return;
  }
  if (shape.equal) CHECK(fully_balanced(a));
  if (name == "roundrobin") return;
  check_sticky_balance(a);
  check_nothing_could_move(shape.counts, members, a);
}

}  // namespace

TEST_CASE("property: every assignor is valid and balanced over random groups", "[assignor]") {
  for (std::uint64_t seed = 1; seed <= 500; ++seed) {
    Lcg rng{seed};
    const Shape shape = random_shape(rng);
    for (const std::string& name : assignor_names()) {
      INFO("seed " << seed << " assignor " << name);
      const auto first = assign(name, shape.counts, shape.members);
      check_valid(shape.counts, shape.members, first, true);  // no one owns anything yet
      check_balance(name, shape, shape.members, first);
      CHECK(assign(name, shape.counts, shape.members) == first);

      Lcg next_rng{seed * 31};
      const Members members = next_group(next_rng, shape, first);
      if (name == "cooperative-sticky") {
        const auto [final_assignment, final_members] = cooperative_rounds(shape.counts, members, 1);
        check_valid(shape.counts, final_members, final_assignment, true);
        check_balance(name, Shape{shape.counts, final_members, shape.equal}, final_members, final_assignment);
        continue;
      }
      const auto second = assign(name, shape.counts, members);
      check_valid(shape.counts, members, second, true);
      const bool still_equal = std::all_of(members.begin(), members.end(), [&](const MemberSubscription& m) {
        return std::set(m.topics.begin(), m.topics.end()) ==
               std::set(members.front().topics.begin(), members.front().topics.end());
      });
      check_balance(name, Shape{shape.counts, members, still_equal}, members, second);
    }
  }
}

TEST_CASE("property: sticky assignors keep what stays balanced when a member joins", "[assignor]") {
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    Lcg rng{seed};
    Shape shape = random_shape(rng);
    const auto topics = shape.members.front().topics;
    for (MemberSubscription& m : shape.members) m.topics = topics;  // the constrained case
    const auto first = assign("sticky", shape.counts, shape.members);
    Members members = owning(shape.members, first, 1);
    members.push_back(member("joiner", topics, {}, 1));
    const auto second = assign("sticky", shape.counts, members);
    INFO("seed " << seed);
    check_valid(shape.counts, members, second, true);
    CHECK(fully_balanced(second));
    // Each old member keeps min(owned, its share); only the joiner's share moves.
    std::size_t moved = 0;
    for (const MemberSubscription& m : shape.members) {
      const auto before = set_of(first.at(m.member_id));
      for (const TopicPartition& p : second.at(m.member_id)) CHECK(before.contains(p));
      moved += before.size() - second.at(m.member_id).size();
    }
    CHECK(moved == second.at("joiner").size());
  }
}
