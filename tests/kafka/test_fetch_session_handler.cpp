// KIP-227 on the wire: a fetch in an open session carries only the
// partitions whose fetch state changed, and the ids of those it drops.
#include <catch2/catch.hpp>

#include "models/client/consumer/fetch_session_handler.hpp"
#include "tests/support/scenario_runner.hpp"

using namespace ksim::models;

namespace {

FetchRequest fetch(std::vector<std::pair<std::int32_t, Offset>> positions) {
  FetchRequest request;
  for (const auto& [partition, offset] : positions) request.partitions.push_back({{0, partition}, offset, 0, -1});
  return request;
}

}  // namespace

TEST_CASE("a fetch session sends what changed and forgets what was dropped", "[fetch_sessions]") {
  FetchSessionHandler session;
  FetchRequest first = fetch({{0, 10}, {1, 20}, {2, 30}});
  session.prepare(first, 7);
  CHECK_FALSE(first.incremental);  // a new session: every partition goes
  CHECK(first.unchanged_partitions == 0);
  CHECK(first.size_bytes() == kRequestHeaderBytes + 3 * kPartitionHeaderBytes);

  FetchRequest same = fetch({{0, 10}, {1, 20}, {2, 30}});
  session.prepare(same, 7);
  CHECK(same.incremental);
  CHECK(same.unchanged_partitions == 3);
  CHECK(same.size_bytes() == kRequestHeaderBytes);

  // Partition 1 moved on, 0 has records buffered (dropped), 3 is new.
  FetchRequest next = fetch({{1, 25}, {2, 30}, {3, 0}});
  session.prepare(next, 7);
  CHECK(next.unchanged_partitions == 1);
  CHECK(next.forgotten_partitions == 1);
  CHECK(next.size_bytes() == kRequestHeaderBytes + 2 * kPartitionHeaderBytes + kForgottenPartitionBytes);

  FetchRequest other_connection = fetch({{1, 25}, {2, 30}, {3, 0}});
  session.prepare(other_connection, 8);
  CHECK_FALSE(other_connection.incremental);
  CHECK(other_connection.unchanged_partitions == 0);

  session.close();  // a fetch went unanswered
  FetchRequest after_close = fetch({{1, 25}, {2, 30}, {3, 0}});
  session.prepare(after_close, 8);
  CHECK_FALSE(after_close.incremental);
  CHECK(after_close.forgotten_partitions == 0);
}

TEST_CASE("idle fetches of thousands of partitions are small on the wire", "[fetch_sessions]") {
  // Nothing is produced or committed: once each session is open, a
  // follower's or a consumer's fetch and its answer carry no partition at
  // all, only headers. Full requests would carry 32 bytes for each of a
  // fetcher's ~670 partitions (a consumer's ~330 per leader).
  const std::string yaml = R"(
name: idle-partitions
duration: 20s
drain: 0s
brokers: {count: 3}
topics:
  - {name: events, partitions: 2000, replication_factor: 3}
consumers:
  - name: readers
    count: 2
    config: {enable.auto.commit: false}
)";
  const auto first = ksim::testing::run_inline(yaml).network;  // with the joins, metadata and first fetches
  const auto longer = ksim::testing::run_inline(yaml, 1, {"duration=40s"}).network;
  const std::uint64_t messages = longer.messages_sent - first.messages_sent;
  const std::uint64_t bytes = longer.bytes_sent - first.bytes_sent;
  INFO(messages << " messages, " << bytes << " bytes in the last 20 s");
  REQUIRE(messages > 500);  // fetches every fetch.max.wait.ms and replica.fetch.wait.max.ms
  CHECK(bytes < messages * (ksim::models::kRequestHeaderBytes + 8));
}
