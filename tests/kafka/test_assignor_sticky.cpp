// The sticky assignor, after Kafka's AbstractStickyAssignorTest.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "models/client/consumer/assignors/assignor.hpp"
#include "tests/support/assignor_checks.hpp"

using namespace ksim::models;
using namespace ksim::testing;

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
