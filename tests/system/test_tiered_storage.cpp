// Tiered storage (KIP-405) over a cluster: scenarios/tiered-storage.yaml (the
// local disks keep 20 s, the remote store ten minutes; a group that starts
// late and a broker that returns after 40 s read from the remote store) over
// seeds; the same run without tiered storage, where the late group loses
// records to retention; remote retention; a remote store slower than
// remote.fetch.max.wait.ms; and the scenario keys' errors.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_scenario;
using ksim::testing::ScenarioRun;
using ksim::testing::scenario_error;

namespace {

std::uint64_t tiered_count(const nlohmann::json& section, const char* field) { return section[field].get<std::uint64_t>(); }
const nlohmann::json& tiered_group(const ScenarioRun& run, const std::string& name) {
  for (const auto& g : run.report["groups"]) {
    if (g["group"] == name) return g;
  }
  FAIL("no group " << name);
  return run.report;
}

// The first sampled time from `from` on at which fewer than `count` partitions are under-replicated (-1: never).
double tiered_first_below(const ScenarioRun& run, double from, double count) {
  for (const auto& sample : run.report["timeseries"]["samples"]) {
    if (sample["t_s"].get<double>() >= from && sample["under_replicated_partitions"].get<double>() < count) {
      return sample["t_s"].get<double>();
    }
  }
  return -1;
}

}  // namespace

TEST_CASE("tiered-storage: the local logs keep 20 s, the late group and the returning broker read the rest remotely",
          "[scenarios][tiered]") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    const ScenarioRun run = run_scenario("tiered-storage", seed);
    CHECK(run.status == ksim::app::kExitOk);
    const auto& delivery = run.report["delivery"];
    CHECK(tiered_count(delivery, "lost") == 0);
    CHECK(tiered_count(delivery, "expired") == 0);
    const auto& tiered = run.report["tiered_storage"];
    CHECK(tiered["vacuous"] == "");
    CHECK(tiered_count(tiered, "remote_reads") > 0);
    CHECK(tiered_count(tiered, "remote_reads_timed_out") == 0);
    CHECK(tiered_count(tiered, "aux_state_builds") >= 1);  // broker-2, on its return
    // Every record is in the remote store but the active segments' (at most 1 MiB a partition); the three
    // local copies hold far less than one.
    CHECK(tiered_count(tiered, "remote_bytes") + 3 * (1ULL << 20) >= tiered_count(delivery, "acknowledged") * 1000);
    CHECK(tiered_count(tiered, "local_bytes") < tiered_count(tiered, "remote_bytes") * 3 / 2);
    // A remote read is the store's 30 ms latency and a 1 MiB segment at most at 100 MB/s.
    CHECK(tiered["remote_read_wait_max_ms"].get<double>() <= 30.0 + 10.5);
    for (const char* group : {"live", "backfill"}) {
      INFO(group);
      CHECK(tiered_count(tiered_group(run, group), "unprocessed") == 0);
      CHECK(tiered_count(tiered_group(run, group), "expired_before_consumed") == 0);
    }
  }
}

TEST_CASE("without tiered storage the same retention leaves the late group records expired before consumed",
          "[scenarios][tiered]") {
  const ScenarioRun run = run_scenario("tiered-storage", 1,
                                       {"topics.0.config[remote.storage.enable]=false", "topics.0.config[retention.ms]=20s",
                                        "topics.0.config[local.retention.ms]=-2", "expect={}"});
  CHECK_FALSE(run.report.contains("tiered_storage"));
  CHECK(tiered_count(run.report["delivery"], "lost") == 0);
  CHECK(tiered_count(tiered_group(run, "backfill"), "expired_before_consumed") > 1000);
}

TEST_CASE("remote retention.ms deletes remote segments and moves the log start: expired, not lost",
          "[scenarios][tiered]") {
  const ScenarioRun run = run_scenario("tiered-storage", 1, {"topics.0.config[retention.ms]=40s", "expect={}"});
  const auto& tiered = run.report["tiered_storage"];
  CHECK(tiered_count(tiered, "segments_expired") > 0);
  CHECK(tiered_count(tiered, "remote_bytes") < tiered_count(tiered, "bytes_copied"));
  CHECK(tiered_count(run.report["delivery"], "lost") == 0);
  CHECK(tiered_count(run.report["delivery"], "expired") > 0);
  CHECK(tiered_count(tiered_group(run, "backfill"), "expired_before_consumed") > 0);
  CHECK(tiered_count(tiered_group(run, "live"), "expired_before_consumed") == 0);
}

TEST_CASE("a remote store slower than remote.fetch.max.wait.ms starves the consumer that needs it",
          "[scenarios][tiered]") {
  // DelayedRemoteFetch expires: the fetch is answered without the partition's records, and the next fetch
  // asks for the same offset again. The late group never gets past the local log start.
  const ScenarioRun run = run_scenario("tiered-storage", 1,
                                       {"brokers.remote_storage.latency=100ms",
                                        "brokers.config[remote.fetch.max.wait.ms]=50", "expect={}"});
  const auto& tiered = run.report["tiered_storage"];
  CHECK(tiered_count(tiered, "remote_reads") == 0);
  CHECK(tiered_count(tiered, "remote_reads_timed_out") > 0);
  CHECK(tiered_count(tiered_group(run, "backfill"), "unprocessed") > 0);
  CHECK(tiered_count(tiered_group(run, "live"), "unprocessed") == 0);
  CHECK(tiered_count(run.report["delivery"], "lost") == 0);
}

TEST_CASE("tiered storage keys refuse what Kafka refuses, with the key named", "[scenarios][tiered]") {
  const std::string brokers = "brokers: {count: 1, config: {remote.log.storage.system.enable: true}}\n";
  const std::string topic = "topics: [{name: t, partitions: 1, replication_factor: 1, config: {remote.storage.enable: true";
  CHECK(scenario_error(brokers + topic + ", local.retention.ms: 1s}}]\n") == "no error");
  CHECK_THAT(scenario_error("brokers: {count: 1}\n" + topic + "}}]\n"),
             Catch::Contains("remote.storage.enable") && Catch::Contains("remote.log.storage.system.enable"));
  CHECK_THAT(scenario_error("kafka_version: \"3.5\"\n" + brokers + topic + "}}]\n"),
             Catch::Contains("remote.log.storage.system.enable") && Catch::Contains("3.6"));
  CHECK_THAT(scenario_error(brokers + topic + ", cleanup.policy: compact}}]\n"), Catch::Contains("compacted"));
  CHECK_THAT(scenario_error(brokers + topic + ", retention.ms: 10s, local.retention.ms: 20s}}]\n"),
             Catch::Contains("local.retention.ms"));
  CHECK_THAT(scenario_error(brokers + topic + ", retention.bytes: 1MB, local.retention.bytes: -1}}]\n"),
             Catch::Contains("local.retention.bytes"));
  CHECK_THAT(scenario_error("kafka_version: \"3.7\"\nbrokers: {count: 1, config: {remote.log.storage.system.enable: true, "
                            "remote.fetch.max.wait.ms: 100}}\n"),
             Catch::Contains("remote.fetch.max.wait.ms") && Catch::Contains("3.8"));
}

TEST_CASE("local retention that deletes before the copy breaks tiered_local_log_start_within_remote",
          "[scenarios][tiered][invariants]") {
  // A local retention of 1 s and copies every 30 s: Kafka keeps each segment until its copy; the test-only
  // mutation deletes it before, the invariant names it, and the delivery checker counts the records no store
  // holds any more as lost.
  const auto run_with = [](const char* mutation) {
    return run_scenario("tiered-storage", 1,
                        {std::string("mutations.tiered_delete_before_copy=") + mutation, "expect={}",
                         "topics.0.config[local.retention.ms]=1s", "brokers.config[remote.log.manager.task.interval.ms]=30s"});
  };
  const auto named = [](const ScenarioRun& run) {
    bool found = false;
    for (const auto& v : run.report["invariants"]) found |= v["name"] == "tiered_local_log_start_within_remote";
    return found;
  };
  const ScenarioRun kafka = run_with("false");
  CHECK_FALSE(named(kafka));
  CHECK(tiered_count(kafka.report["delivery"], "lost") == 0);
  const ScenarioRun mutated = run_with("true");
  CHECK(named(mutated));
  CHECK(tiered_count(mutated.report["delivery"], "lost") > 0);
}

TEST_CASE("a reassignment of a tiered topic copies only the local logs: the new replicas start from the remote store",
          "[scenarios][tiered][reassignment]") {
  // reassign-partitions.yaml at 40 s, once retention has run (30 s after the start), with and without tiered
  // storage: the new replicas fetch from 0, below the leaders' local log start, and start at it from the remote
  // segments (TierStateMachine); the old replicas delete their local logs, much smaller under tiered storage.
  const auto run_with = [](const char* tiered) {
    return run_scenario("reassign-partitions", 1,
                        {"duration=60s", "operations.0.at=40s", "brokers.config[remote.log.storage.system.enable]=true",
                         "brokers.config[remote.log.manager.task.interval.ms]=2s",
                         "brokers.config[log.retention.check.interval.ms]=1s",
                         std::string("topics.0.config[remote.storage.enable]=") + tiered,
                         "topics.0.config[segment.bytes]=1MiB", "topics.0.config[local.retention.ms]=3s"});
  };
  const ScenarioRun local = run_with("false");
  const ScenarioRun tiered = run_with("true");
  for (const ScenarioRun* run : {&local, &tiered}) {
    CHECK(run->status == ksim::app::kExitOk);  // every reassignment completes, nothing lost
    CHECK(tiered_count(run->report["reassignments"], "completed") == 4);
  }
  CHECK(tiered_count(tiered.report["tiered_storage"], "aux_state_builds") == 4);
  CHECK(tiered_count(tiered.report["reassignments"], "bytes_deleted") * 5 <
        tiered_count(local.report["reassignments"], "bytes_deleted"));
  CHECK(tiered.report["reassignments"]["mean_ms"].get<double>() < local.report["reassignments"]["mean_ms"].get<double>());
}

TEST_CASE("a share group on a tiered topic is refused, not answered wrongly", "[scenarios][tiered]") {
  CHECK_THAT(scenario_error("brokers: {count: 1, config: {remote.log.storage.system.enable: true}}\n"
                            "topics: [{name: t, partitions: 1, replication_factor: 1, config: {remote.storage.enable: true}}]\n"
                            "consumers: [{name: s, topic: t, share_group: g}]\n"),
             Catch::Contains("topic") && Catch::Contains("tiered"));
}

TEST_CASE("a returning follower's remote state is built on its fetcher thread: a slow store holds its catch-up",
          "[scenarios][tiered]") {
  // broker-2 returns at 50 s below the leaders' local log start on its 3 partitions. TierStateMachine reads
  // each one's leader-epoch checkpoint and producer snapshot from the store (two requests) on the fetcher
  // thread before the thread fetches again: with a 30 ms store all three are back in sync within a second;
  // with a 2 s store none is before 54 s (and the local log start moves on meanwhile, so it starts over).
  const ScenarioRun fast = run_scenario("tiered-storage", 1, {"expect={}", "report.sample_interval=500ms"});
  const ScenarioRun slow =
      run_scenario("tiered-storage", 1, {"expect={}", "report.sample_interval=500ms", "brokers.remote_storage.latency=2s"});
  const double fast_back = tiered_first_below(fast, 50.0, 1.0);
  CHECK(fast_back > 50.0);
  CHECK(fast_back <= 51.0);
  const double slow_first = tiered_first_below(slow, 50.0, 3.0);
  INFO("slow store: first partition back in sync at " << slow_first);
  CHECK((slow_first < 0 || slow_first >= 54.0));
}

TEST_CASE("the ground-truth suite's tiered-storage: segments copied, read back and a follower's state built remotely",
          "[scenarios][tiered][ground-truth]") {
  // Its expect: has only what a history has (the real side's); the tiered figures are checked here.
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    INFO("seed " << seed);
    const ScenarioRun run = run_scenario("ground-truth/tiered-storage", seed);
    CHECK(run.status == ksim::app::kExitOk);
    const auto& tiered = run.report["tiered_storage"];
    CHECK(tiered_count(tiered, "segments_copied") > 0);
    CHECK(tiered_count(tiered, "remote_reads") > 0);         // the backfill group, from 38 s
    CHECK(tiered_count(tiered, "aux_state_builds") >= 1);    // broker-2, back after 30 s
    CHECK(tiered_count(tiered_group(run, "backfill"), "unprocessed") == 0);
  }
}
