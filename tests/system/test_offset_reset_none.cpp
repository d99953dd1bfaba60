// auto.offset.reset=none (Kafka's consumer: NoOffsetForPartitionException when
// a partition has no committed offset): a group whose members restart with it
// after they committed resumes from its commits; one that starts with it has
// nothing to resume from, and its members stop.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/scenario_runner.hpp"

namespace {

// Three members commit after processing; all three crash at 8 s and come back at 10 s with `restart`.
std::string group_restarted(const std::string& start_reset, const std::string& restart_reset) {
  const std::string timeouts = "session.timeout.ms: 6s, heartbeat.interval.ms: 2s";
  return R"(
duration: 20s
drain: 20s
brokers: {count: 3}
topics: [{name: orders, partitions: 6, replication_factor: 3, config: {min.insync.replicas: 2}}]
producers: [{name: shop, topic: orders, rate: 500/s, record_size: 200B, start: 1s}]
consumers:
  - name: fulfil
    count: 3
    topic: orders
    commit: sync-after-process
    config: {enable.auto.commit: false, auto.offset.reset: )" +
         start_reset + ", " + timeouts + R"(}
    restart_config: {enable.auto.commit: false, auto.offset.reset: )" +
         restart_reset + ", " + timeouts + R"(}
faults:
  - {kind: crash, at: 8s, duration: 2s, nodes: [fulfil]}
)";
}

}  // namespace

TEST_CASE("auto.offset.reset=none: members restarted after commits resume from them, without commits they stop",
          "[consumer][offset-reset]") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    const auto resumed = ksim::testing::run_inline(group_restarted("earliest", "none"), seed);
    REQUIRE(resumed.kafka);
    REQUIRE(resumed.kafka->groups.size() == 1);
    const auto& after_commits = resumed.kafka->groups[0].report;
    CHECK(resumed.kafka->delivery.acknowledged > 8000);
    CHECK(after_commits.processed >= resumed.kafka->delivery.acknowledged);  // every record, some maybe twice
    CHECK(after_commits.unprocessed == 0);
    CHECK(after_commits.crashes == 3);

    // The same group with none from the start: no partition has a committed offset, nothing is read.
    const auto never = ksim::testing::run_inline(group_restarted("none", "none"), seed);
    REQUIRE(never.kafka->groups.size() == 1);
    CHECK(never.kafka->groups[0].report.processed == 0);
    CHECK(never.kafka->groups[0].report.unprocessed == never.kafka->delivery.acknowledged);
  }
}
