// The range and roundrobin assignors, after Kafka's RangeAssignorTest and RoundRobinAssignorTest.
#include <catch2/catch.hpp>

#include "models/client/consumer/assignors/assignor.hpp"
#include "tests/support/assignor_checks.hpp"

using namespace ksim::models;
using namespace ksim::testing;

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
