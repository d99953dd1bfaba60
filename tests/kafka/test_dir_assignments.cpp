// KIP-858's AssignmentsManager (models/broker/dir_assignments.hpp): batching,
// a request's worth at a time, retries after refusals and failures, backoff.
#include <catch2/catch.hpp>

#include "models/broker/dir_assignments.hpp"

using ksim::milliseconds;
using ksim::seconds;
using ksim::models::DirAssignments;
using ksim::models::Error;
using ksim::models::TopicPartition;

namespace {
const auto hosts_all = [](TopicPartition) { return true; };
}

TEST_CASE("dir assignments wait 100 ms to batch, and a newer one for a partition replaces the older", "[kip858]") {
  DirAssignments a;
  CHECK_FALSE(a.has_ready());
  a.queue({0, 1}, 0);
  a.queue({0, 2}, 1);
  a.queue({0, 1}, 1);  // the replica moved again before the first was sent
  CHECK(a.send_delay() == milliseconds(100));
  const auto batch = a.take_batch(hosts_all);
  REQUIRE(batch.size() == 2);
  CHECK(batch[0] == DirAssignments::Assignment{{0, 1}, 1});
  CHECK(batch[1] == DirAssignments::Assignment{{0, 2}, 1});
  CHECK(a.in_flight());
  CHECK_FALSE(a.has_ready());
}

TEST_CASE("dir assignments send at most 2,250 a request, at once when more wait and none is in flight", "[kip858]") {
  DirAssignments a;
  for (std::int32_t p = 0; p < 3000; ++p) a.queue({0, p}, 0);
  CHECK(a.send_delay() == 0);
  CHECK(a.take_batch(hosts_all).size() == DirAssignments::kMaxPerRequest);
  CHECK(a.has_ready());
  CHECK(a.send_delay() == milliseconds(100));  // one is in flight
}

TEST_CASE("dir assignments of partitions the broker no longer hosts are dropped before sending", "[kip858]") {
  DirAssignments a;
  a.queue({0, 1}, 0);
  a.queue({0, 2}, 0);
  const auto batch = a.take_batch([](TopicPartition tp) { return tp.partition == 2; });
  REQUIRE(batch.size() == 1);
  CHECK(batch[0].first == TopicPartition{0, 2});
  CHECK_FALSE(a.has_ready());
}

TEST_CASE("a refused dir assignment is tried again, an accepted one is done", "[kip858]") {
  DirAssignments a;
  a.queue({0, 1}, 0);
  a.queue({0, 2}, 1);
  a.queue({0, 3}, 1);
  a.take_batch(hosts_all);
  // {0, 3} has no result in the answer: it waits again too.
  const auto accepted = a.answered(Error::None, {{{0, 1}, Error::None}, {{0, 2}, Error::NotLeaderOrFollower}});
  REQUIRE(accepted.size() == 1);
  CHECK(accepted[0] == DirAssignments::Assignment{{0, 1}, 0});
  CHECK_FALSE(a.in_flight());
  const auto again = a.take_batch(hosts_all);
  REQUIRE(again.size() == 2);
  CHECK(again[0].first == TopicPartition{0, 2});
  CHECK(again[1].first == TopicPartition{0, 3});
}

TEST_CASE("failed dir assignment requests back off exponentially to 10 s, and a success resets it", "[kip858]") {
  DirAssignments a;
  a.queue({0, 1}, 0);
  a.take_batch(hosts_all);
  a.lost();
  CHECK(a.send_delay() == milliseconds(200));
  a.take_batch(hosts_all);
  CHECK(a.answered(Error::NotController, {}).empty());
  CHECK(a.send_delay() == milliseconds(400));
  for (int i = 0; i < 10; ++i) {
    a.take_batch(hosts_all);
    a.lost();
  }
  CHECK(a.send_delay() == seconds(10));
  a.take_batch(hosts_all);
  CHECK(a.answered(Error::None, {{{0, 1}, Error::None}}).size() == 1);
  a.queue({0, 1}, 1);
  CHECK(a.send_delay() == milliseconds(100));
}
