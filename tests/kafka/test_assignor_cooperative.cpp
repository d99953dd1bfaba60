// The cooperative-sticky assignor, after Kafka's CooperativeStickyAssignorTest.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "models/client/consumer/assignors/assignor.hpp"
#include "tests/support/assignor_checks.hpp"

using namespace ksim::models;
using namespace ksim::testing;

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
