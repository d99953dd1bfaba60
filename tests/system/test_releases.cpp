// One incident per release boundary (scenarios/releases/), each run on both
// sides with the release as the only difference, over several seeds.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_scenario;

namespace {

std::uint64_t figure(const ksim::testing::ScenarioRun& run, const char* section, const char* name) {
  return run.report[section][name].get<std::uint64_t>();
}

}  // namespace

TEST_CASE("last replica standing: 4.0 loses every acknowledged record to the power loss, 4.1+ elects an eligible "
          "leader replica and loses none (KIP-966)",
          "[releases][kip-966]") {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    INFO("seed " << seed);
    const auto before = run_scenario("releases/last-replica-standing", seed, {"kafka_version=4.0"});
    const auto after = run_scenario("releases/last-replica-standing", seed);
    CHECK(figure(before, "delivery", "acknowledged") > 0);
    CHECK(figure(before, "delivery", "lost") > 0);
    CHECK(before.report["controller"]["first_elections"].back()["from"] == "the ISR");
    CHECK(before.report["controller"]["first_elections"].back()["leader"] == 0);  // the one that lost power
    CHECK(after.status == ksim::app::kExitOk);
    CHECK(figure(after, "delivery", "lost") == 0);
    CHECK(after.report["controller"]["first_elections"].back()["from"] == "the eligible leader replicas (KIP-966)");
    CHECK(after.report["release"]["kafka_version"] == "4.3");
  }
}

TEST_CASE("an idempotent producer past a sequence gap: 2.4 fails its batches, 2.5+ renumbers them (KIP-360)",
          "[releases][kip-360]") {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    INFO("seed " << seed);
    const auto before = run_scenario("releases/idempotent-gap", seed, {"kafka_version=2.4"});
    const auto after = run_scenario("releases/idempotent-gap", seed, {"kafka_version=2.5"});
    CHECK(figure(before, "controller", "unclean_elections") >= 1);
    CHECK(figure(before, "delivery", "failed") > 0);
    CHECK_THAT(before.report["delivery"]["failed_because"].get<std::string>(), Catch::StartsWith("OUT_OF_ORDER_SEQUENCE_NUMBER"));
    CHECK(figure(after, "controller", "unclean_elections") >= 1);
    CHECK(figure(after, "delivery", "failed") == 0);
    CHECK(figure(after, "producer", "epoch_bumps") >= 1);
  }
}

TEST_CASE("a producer at its defaults through a leader crash: 2.8's acks=1 loses acknowledged records, 3.0's "
          "acks=all and idempotence do not (KIP-679)",
          "[releases][kip-679]") {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    INFO("seed " << seed);
    const auto before = run_scenario("releases/default-acks", seed, {"producers.0.kafka_version=2.8"});
    const auto after = run_scenario("releases/default-acks", seed);
    CHECK(figure(before, "delivery", "lost") > 0);
    CHECK(before.report["release"]["clients"][0]["kafka_version"] == "2.8");
    CHECK(after.status == ksim::app::kExitOk);
    CHECK(after.report["delivery"]["verdict"] == "exactly-once");
    CHECK(figure(after, "delivery", "acknowledged") > 0);
  }
}

TEST_CASE("a failed JBOD disk: 0.11 halts the whole broker, 1.0+ takes only its log dir offline (KIP-112)",
          "[releases][kip-112]") {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    INFO("seed " << seed);
    const auto before = run_scenario("releases/jbod-disk-failure", seed, {"kafka_version=0.11"});
    const auto after = run_scenario("releases/jbod-disk-failure", seed, {"kafka_version=1.0"});
    // Bytes written to broker-0's healthy /a, against broker-1's /a.
    const auto healthy_dir = [](const ksim::testing::ScenarioRun& run, int broker) {
      for (const auto& d : run.report["log_dirs"]) {
        if (d["broker"] == broker && d["path"] == "/a") return d["bytes"].get<double>();
      }
      FAIL("no /a on broker " << broker);
      return 0.0;
    };
    CHECK(healthy_dir(before, 0) < 0.6 * healthy_dir(before, 1));  // stopped at 8 s of 40
    CHECK(healthy_dir(after, 0) > 0.9 * healthy_dir(after, 1));     // still a follower or leader there
    for (const auto* run : {&before, &after}) {
      CHECK(run->status == ksim::app::kExitOk);
      CHECK(figure(*run, "delivery", "lost") == 0);
    }
  }
}

TEST_CASE("acks=1 writes under min.insync.replicas: committed at once on 3.6, held until the ISR recovers on 3.7+ "
          "(KAFKA-15583)",
          "[releases][kafka-15583]") {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    INFO("seed " << seed);
    const auto before = run_scenario("releases/under-min-isr", seed, {"kafka_version=3.6"});
    const auto after = run_scenario("releases/under-min-isr", seed, {"kafka_version=3.7"});
    const double before_p99 = before.report["end_to_end_latency_ms"]["p99"].get<double>();
    const double after_p99 = after.report["end_to_end_latency_ms"]["p99"].get<double>();
    CHECK(before_p99 < 3000);  // replica.lag.time.max.ms and the ISR shrink
    CHECK(after_p99 > 8000);   // the followers' 10 s stall
    CHECK(figure(before, "delivery", "lost") == 0);
    CHECK(figure(after, "delivery", "lost") == 0);
  }
}

TEST_CASE("a producer at its defaults through a broker crash: 2.0's retries=0 fails what was in flight, 2.1+ "
          "retries (KIP-91)",
          "[releases][kip-91]") {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    INFO("seed " << seed);
    const auto before = run_scenario("releases/retries-default", seed, {"producers.0.kafka_version=2.0"});
    const auto after = run_scenario("releases/retries-default", seed);
    // The requests in flight to broker-0 when it dies (the rest wait in the
    // accumulator for the new leader: a refused reconnect fails nothing).
    CHECK(figure(before, "delivery", "failed") > 0);
    CHECK(figure(after, "delivery", "failed") == 0);
    CHECK(after.status == ksim::app::kExitOk);
  }
}

TEST_CASE("fast failovers leave a follower an epoch its leader never had: 1.1 stays diverged, 2.0+ truncates to "
          "where they agree (KIP-279)",
          "[releases][kip-279]") {
  // A divergence needs broker-1 to take records in its epoch (8 s to 9.5 s), a
  // race with the producer's failover that most seeds win; where it does,
  // only 2.0+ repairs it.
  int diverged_before = 0, diverged_after = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    INFO("seed " << seed);
    const auto before = run_scenario("releases/fast-failovers-divergence", seed, {"kafka_version=1.1"});
    const auto after = run_scenario("releases/fast-failovers-divergence", seed);
    CHECK(figure(before, "controller", "unclean_elections") >= 2);
    if (before.report["replica_divergences"].get<int>() >= 1) {
      ++diverged_before;
      CHECK(before.report["replica_divergences_at_end"].get<int>() >= 1);
    }
    if (after.report["replica_divergences"].get<int>() >= 1) {
      ++diverged_after;
      CHECK(after.status == ksim::app::kExitOk);
      CHECK(after.report["replica_divergences_at_end"] == 0);
    }
  }
  CHECK(diverged_before >= 5);
  CHECK(diverged_after >= 5);
}

// KIP-101's first scenario: the restarted follower truncates to its high
// watermark on 0.10 and leads without what the leader acknowledged; 0.11
// keeps its log. The same election on both sides (unclean, enabled).
TEST_CASE("a follower restarted before its high watermark advanced, then the leader dies: 0.10 loses acknowledged "
          "records, 0.11 does not (KIP-101)",
          "[releases][kip-101]") {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    INFO("seed " << seed);
    const auto before = run_scenario("releases/kip101-restart-truncation", seed);
    const auto after = run_scenario("releases/kip101-restart-truncation", seed, {"kafka_version=0.11"});
    CHECK(before.report["release"]["kafka_version"] == "0.10");
    CHECK(figure(before, "delivery", "acknowledged") > 100);
    CHECK(figure(before, "delivery", "lost") > 20);
    CHECK(figure(after, "delivery", "acknowledged") > 100);
    CHECK(figure(after, "delivery", "lost") == 0);
    for (const auto* run : {&before, &after}) {
      CHECK(run->report["controller"]["first_elections"].back()["leader"] == 1);
      CHECK(run->report["invariant_violations"] == 0);
    }
  }
}

TEST_CASE("a run says which Kafka it modelled, and what of that release ksim does not model", "[releases]") {
  const auto zk_era = run_scenario("quickstart", 1, {"kafka_version=2.8"});
  CHECK(zk_era.report["release"]["kafka_version"] == "2.8");
  CHECK(zk_era.report["release"]["given"] == true);
  CHECK(zk_era.report["release"]["not_modelled"].empty());  // 2.8 runs the ZooKeeper-era controller
  const auto current = run_scenario("quickstart", 1);
  CHECK(current.report["release"]["given"] == false);
  CHECK(current.report["release"]["not_modelled"].empty());
  // Transactions v2 (KIP-890 part 2), the last implicit mechanism ksim ran without, is modelled now.
  const auto txn = run_scenario("txn-isolation", 1);
  CHECK(txn.report["release"]["not_modelled"].empty());
  CHECK(txn.report["release"]["kafka_version"] == "4.3");
}

// Controller failover at 10,000 partitions: with ZooKeeper (2.8) nothing acts
// until the dead controller's 18 s session expires, then the next reads every
// partition state; a KRaft standby (3.9) takes over within seconds.
TEST_CASE("the active controller dies with 10,000 partitions: ZooKeeper fails over after its session expires, KRaft "
          "within seconds (KIP-500)",
          "[releases][kip-500]") {
  const auto zookeeper = run_scenario("releases/controller-failover-10k", 1, {"kafka_version=2.8"});
  const auto kraft = run_scenario("releases/controller-failover-10k", 1);
  const auto longest = [](const ksim::testing::ScenarioRun& run) {
    return run.report["controller"]["quorum"]["longest_leaderless_ms"].get<double>();
  };
  for (const auto* run : {&zookeeper, &kraft}) {
    CHECK(run->report["controller"]["quorum"]["failovers"] == 1);
    CHECK(run->report["invariant_violations"] == 0);
  }
  CHECK(longest(kraft) < 5000);
  CHECK(longest(zookeeper) > 10000);
  CHECK(longest(zookeeper) < 20000);  // the session timeout, a tick, the reading of 10,000 states
  // With ZooKeeper the controller was a broker: its partitions waited for the new controller.
  CHECK(figure(zookeeper, "controller", "elections") > 1000);
}

TEST_CASE("a rolling restart of the brokers on 2.8: controlled shutdown moves each broker's leaderships before it "
          "stops, without it they move after and its partitions are leaderless meanwhile",
          "[releases][zookeeper]") {
  for (const std::uint64_t seed : {1, 2, 3}) {
    INFO("seed " << seed);
    const auto controlled = run_scenario("releases/broker-rolling-restart", seed);
    const auto abrupt = run_scenario("releases/broker-rolling-restart", seed,
                                     {"brokers.config[controlled.shutdown.enable]=false"});
    for (const auto* run : {&controlled, &abrupt}) {
      CHECK(run->report["delivery"]["verdict"] == "exactly-once");
      CHECK(run->report["invariant_violations"] == 0);
      CHECK(figure(*run, "controller", "elections") == 45);  // each broker's ten leaderships, and back
    }
    CHECK(figure(controlled, "controller", "controlled_shutdowns") == 3);
    CHECK(controlled.report["controller"]["max_leaderless_ms"].get<double>() == 0.0);
    CHECK(figure(abrupt, "controller", "controlled_shutdowns") == 0);
    CHECK(abrupt.report["controller"]["max_leaderless_ms"].get<double>() > 1.0);
    // acks=all is not held for the downtime: the stopped broker is not written back into an ISR (the
    // session closes after its fetchers stopped; 14 s before), and a stale fetch answer does not back a
    // partition off for a second after every epoch bump (1.1 s before).
    CHECK(controlled.report["latency_ms"]["p99"].get<double>() < 1000.0);
    CHECK(abrupt.report["latency_ms"]["p99"].get<double>() < 600.0);
    // With controlled shutdown nothing waits out replica.fetch.wait.max.ms (500 ms): a leader
    // re-elected in a new epoch keeps its followers' positions, and the controller sends each
    // broker the moved leaderships together, once its ZooKeeper writes are done.
    // (Seed 3 waits about that once, 496 ms on partition 2 when the controller itself stops at 70 s,
    // since connections are established by a handshake; why is not found yet.)
    CHECK(controlled.report["latency_ms"]["max"].get<double>() < 600.0);
  }
}
