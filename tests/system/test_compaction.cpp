// Log compaction over a cluster: scenarios/compacted-topic.yaml (a keyed
// producer writing updates and tombstones, a reader that keeps up and a slow
// consumer that misses deletes) over a few seeds; compaction kept the latest
// value of every key; the checkers count what the cleaner removed as
// compacted, never lost; the scenario keys' errors.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_scenario;
using ksim::testing::ScenarioRun;
using ksim::testing::scenario_error;

namespace {

const nlohmann::json& compaction_group(const ScenarioRun& run, const std::string& name) {
  for (const auto& g : run.report["groups"]) {
    if (g["group"] == name) return g;
  }
  FAIL("no group " << name);
  return run.report;
}
std::uint64_t compaction_count(const nlohmann::json& section, const char* field) {
  return section[field].get<std::uint64_t>();
}

}  // namespace

TEST_CASE("compacted-topic: the cleaner keeps each key's latest value, the reader sees it, the slow consumer misses deletes",
          "[scenarios][compaction]") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    const ScenarioRun run = run_scenario("compacted-topic", seed);
    CHECK(run.status == ksim::app::kExitOk);
    const auto& delivery = run.report["delivery"];
    const auto& compaction = run.report["compaction"];
    CHECK(compaction_count(delivery, "lost") == 0);
    // Most of what was written is superseded: 100 records/s over 300 keys.
    CHECK(compaction_count(delivery, "compacted") > compaction_count(delivery, "acknowledged") / 2);
    CHECK(compaction_count(compaction, "cleanings") > 0);
    CHECK(compaction_count(compaction, "bytes_after") < compaction_count(compaction, "bytes_before"));
    CHECK(compaction_count(compaction, "tombstones_removed") > 0);
    CHECK(compaction_count(compaction, "keys") == 300);
    CHECK(compaction_count(compaction, "latest_removed") == 0);
    CHECK(compaction["latest_kept"].get<bool>());
    // What the final logs hold is about the keys' latest values plus the uncleaned heads (2-second segments).
    CHECK(compaction_count(delivery, "acknowledged") - compaction_count(delivery, "compacted") < 300 + 3 * 2 * 100);
    const auto& reader = compaction_group(run, "reader");
    CHECK(compaction_count(reader, "keys_checked") == 300);
    CHECK(compaction_count(reader, "stale_keys") == 0);
    CHECK(compaction_count(reader, "tombstones_missed") == 0);
    CHECK(compaction_count(reader, "unprocessed") == 0);
    const auto& slow = compaction_group(run, "slow");
    CHECK(compaction_count(slow, "tombstones_missed") > 0);
    CHECK(compaction_count(slow, "compacted_before_consumed") > 0);
    CHECK(compaction_count(slow, "uncommitted_seen") == 0);
    CHECK(run.report["invariants"].empty());
  }
}

TEST_CASE("compacted-topic with a long delete.retention.ms: the slow consumer misses no delete", "[scenarios][compaction]") {
  // Kafka's default delete.retention.ms (a day): no tombstone goes within the run.
  const ScenarioRun run = run_scenario("compacted-topic", 1, {"topics.0.config[delete.retention.ms]=86400000", "expect={}"});
  CHECK(compaction_count(run.report["compaction"], "latest_removed") == 0);
  CHECK(compaction_count(compaction_group(run, "slow"), "tombstones_missed") == 0);
  CHECK(compaction_count(run.report["delivery"], "lost") == 0);
}

TEST_CASE("a cleaning takes its disk I/O's time: a slow fsync leaves the cleaner fewer cleanings", "[scenarios][compaction]") {
  // Each cleaning ends with an fsync of the cleaned segments (Cleaner.cleanSegments), and the cleaner
  // thread takes the next log only then: 3 s per fsync allows each broker's single cleaner thread at most
  // one cleaning every 3 s over the 70 s, about 23 per broker, where the fast disk's did 114 in all.
  const ScenarioRun fast = run_scenario("compacted-topic", 1);
  const ScenarioRun slow = run_scenario("compacted-topic", 1, {"brokers.log_dirs=[{path: /data/0, flush_latency: 3s}]"});
  const std::uint64_t fast_cleanings = compaction_count(fast.report["compaction"], "cleanings");
  const std::uint64_t slow_cleanings = compaction_count(slow.report["compaction"], "cleanings");
  INFO("cleanings: fast disk " << fast_cleanings << ", 3 s fsync " << slow_cleanings);
  CHECK(slow_cleanings <= 3 * 70 / 3);
  CHECK(slow_cleanings < fast_cleanings * 2 / 3);
  CHECK(slow.status == ksim::app::kExitOk);  // still compacted, nothing lost
}

TEST_CASE("without cleanup.policy=compact nothing is compacted and the key checks are not made", "[scenarios][compaction]") {
  const ScenarioRun run = run_scenario("compacted-topic", 1, {"topics.0.config[cleanup.policy]=delete", "expect={}"});
  CHECK(compaction_count(run.report["compaction"], "cleanings") == 0);
  CHECK(compaction_count(run.report["delivery"], "compacted") == 0);
  CHECK(compaction_count(compaction_group(run, "reader"), "keys_checked") == 0);
  CHECK_FALSE(run.report["compaction"]["latest_kept"].get<bool>());  // vacuous: no compacted topic
}

TEST_CASE("compaction keys refuse bad values with the key named", "[scenarios][compaction]") {
  const std::string head = "brokers: {count: 1}\ntopics: [{name: t, partitions: 1, replication_factor: 1, config: {";
  CHECK_THAT(scenario_error(head + "min.cleanable.dirty.ratio: 2}}]\n"), Catch::Contains("min.cleanable.dirty.ratio"));
  CHECK_THAT(scenario_error(head + "min.compaction.lag.ms: 10s, max.compaction.lag.ms: 5s}}]\n"),
             Catch::Contains("max.compaction.lag.ms"));
  CHECK_THAT(scenario_error("brokers: {count: 1, config: {log.cleaner.threads: 4, log.cleaner.dedupe.buffer.size: 2MiB}}\n"),
             Catch::Contains("log.cleaner.dedupe.buffer.size"));
  // Kafka refuses keyless records to a compacted topic.
  CHECK_THAT(scenario_error(head + "cleanup.policy: compact}}]\nproducers: [{topic: t}]\n"),
             Catch::Contains("keyless"));
  CHECK_THAT(scenario_error(head + "cleanup.policy: delete}}]\nproducers: [{topic: t, keys: {tombstones: 0.1}}]\n"),
             Catch::Contains("tombstones"));
  CHECK(scenario_error(head + "cleanup.policy: compact, delete.retention.ms: 1s, min.compaction.lag.ms: 1s}}]\n"
                              "producers: [{topic: t, keys: {distribution: uniform, count: 5, tombstones: 0.5}}]\n") ==
        "no error");
}

TEST_CASE("compacted-topic with a broker down 20 s: it catches up past the leaders' gaps, replicas agree, nothing lost",
          "[scenarios][compaction]") {
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    INFO("seed " << seed);
    const ScenarioRun run = run_scenario(
        "compacted-topic", seed,
        {"faults=[{kind: crash, at: 15s, duration: 20s, nodes: [broker-1]}]", "expect={}"});
    CHECK(compaction_count(run.report["delivery"], "lost") == 0);
    CHECK(run.report["compaction"]["latest_kept"].get<bool>());
    CHECK(compaction_count(compaction_group(run, "reader"), "stale_keys") == 0);
    CHECK(run.report["invariants"].empty());
    CHECK(run.report["replica_divergences_at_end"].get<std::uint64_t>() == 0);
  }
}

TEST_CASE("log.cleaner.io.max.bytes.per.second bounds the cleaner's I/O over its threads", "[scenarios][compaction]") {
  // The Throttler the cleaner threads share (LogCleaner.throttler): every byte a cleaning reads or writes
  // counts, so the cleanings' segments rewritten and written are at most the rate over the 70 s, per broker.
  const ScenarioRun fast = run_scenario("compacted-topic", 1);
  const ScenarioRun slow =
      run_scenario("compacted-topic", 1, {"brokers.config[log.cleaner.io.max.bytes.per.second]=20KB", "expect={}"});
  const auto io_of = [](const ScenarioRun& run) {
    return compaction_count(run.report["compaction"], "bytes_before") +
           compaction_count(run.report["compaction"], "bytes_after");
  };
  INFO("cleanings' bytes rewritten and written: unthrottled " << io_of(fast) << ", 20 KB/s " << io_of(slow));
  CHECK(io_of(fast) > 3 * 20'000 * 70);  // over the bound: it bounds something
  CHECK(io_of(slow) <= 3 * 20'000 * 70);
  CHECK(compaction_count(slow.report["compaction"], "cleanings") > 0);
  CHECK(compaction_count(slow.report["delivery"], "lost") == 0);
  // Fewer cleanings: the slow consumer now reaches every tombstone before the cleaner removes it.
  CHECK(compaction_count(compaction_group(slow, "slow"), "tombstones_missed") == 0);
}

TEST_CASE("with a CPU model a cleaning takes its thread's CPU time per record read", "[scenarios][compaction]") {
  // Each record the cleaner reads (hashed into the offset map, then looked up when its segment is
  // rewritten) costs the profile's per-record time: at 5 ms a record, far fewer cleanings fit.
  const ScenarioRun cheap = run_scenario("compacted-topic", 1, {"profile.name=laptop-ssd"});
  const ScenarioRun costly =
      run_scenario("compacted-topic", 1, {"profile.name=laptop-ssd", "profile.broker_costs.record=5ms"});
  const std::uint64_t cheap_cleanings = compaction_count(cheap.report["compaction"], "cleanings");
  const std::uint64_t costly_cleanings = compaction_count(costly.report["compaction"], "cleanings");
  INFO("cleanings: laptop-ssd " << cheap_cleanings << ", 5 ms a record " << costly_cleanings);
  CHECK(costly_cleanings < cheap_cleanings * 2 / 3);
  CHECK(costly_cleanings > 0);
  CHECK(costly.status == ksim::app::kExitOk);
}

TEST_CASE("a cleaning whose log retention moved meanwhile is aborted: the segments stay, nothing is lost",
          "[scenarios][compaction]") {
  // cleanup.policy=compact,delete with a 5 s retention checked every second, and a cleaner throttled to
  // 20 KB/s: retention moves the log start while cleanings run (LogCleanerManager.abortCleaning), and their
  // results are dropped rather than put in place of segments that are gone.
  const std::vector<std::string> retention{"topics.0.config[cleanup.policy]=compact,delete",
                                           "topics.0.config[retention.ms]=5s",
                                           "brokers.config[log.retention.check.interval.ms]=1s", "expect={}"};
  std::vector<std::string> throttled = retention;
  throttled.push_back("brokers.config[log.cleaner.io.max.bytes.per.second]=20KB");
  const ScenarioRun slow = run_scenario("compacted-topic", 1, throttled);
  CHECK(compaction_count(slow.report["compaction"], "aborted_cleanings") > 0);
  CHECK(compaction_count(slow.report["compaction"], "cleanings") > 0);
  CHECK(compaction_count(slow.report["delivery"], "lost") == 0);
  // The records the cleaner removed below the log start are walked among the expired batches, in
  // offset order: none is taken for a reordering.
  CHECK(compaction_count(slow.report["delivery"], "compacted") > 0);
  CHECK(compaction_count(slow.report["delivery"], "expired") > 0);
  CHECK(compaction_count(slow.report["delivery"], "reordered") == 0);
  CHECK(slow.report["invariants"].empty());
  // Without the retention nothing changes a log under the cleaner.
  const ScenarioRun plain =
      run_scenario("compacted-topic", 1, {"brokers.config[log.cleaner.io.max.bytes.per.second]=20KB", "expect={}"});
  CHECK(compaction_count(plain.report["compaction"], "aborted_cleanings") == 0);
}
