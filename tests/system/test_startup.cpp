// How a run begins: clients wait for the cluster to be ready unless given a
// `start`, partitions join replica fetchers a whole metadata update at a
// time, and a `warmup` is measured apart.
#include <catch2/catch.hpp>

#include "app/report/report.hpp"
#include "tests/support/scenario_runner.hpp"

using namespace ksim;
using namespace ksim::app;
using ksim::testing::run_inline;
using ksim::testing::scenario_error;

namespace {

// Issue 15's start-up example: 3 brokers, 10 partitions, one producer.
const std::string kStartup = R"(
duration: 10s
drain: 5s
brokers: {count: 3, disk: {write_latency: 1us}}
topics: [{name: events, partitions: 10, replication_factor: 3, config: {min.insync.replicas: 2}}]
producers:
  - {name: producer, rate: 2000/s, config: {acks: all}}
)";

std::string with(std::string yaml, const std::string& after, const std::string& added) {
  yaml.insert(yaml.find(after) + after.size(), added);
  return yaml;
}

}  // namespace

TEST_CASE("clients without a start wait until every partition is led and every in-sync follower fetches",
          "[kafka][startup]") {
  const RunReport report = run_inline(kStartup);
  const StartupFigures& s = report.kafka->startup;
  CHECK(s.waited);
  REQUIRE(s.ready_ms);
  CHECK(*s.ready_ms > 0);  // the controller unfences brokers, they lead and follow, followers fetch
  CHECK(*s.ready_ms < 5);
  CHECK(s.clients_started_ms == *s.ready_ms);
  CHECK(s.not_ready.empty());
  // No record waits for the cluster: the slowest is the first batch's linger.ms (5ms) and its round trips.
  CHECK(report.kafka->latency_max_ms < 10);
  CHECK(report.kafka->delivery.acknowledged > 15000);
}

TEST_CASE("a client started at 0s meets the cluster starting: the producer's first metadata has no leaders",
          "[kafka][startup]") {
  const RunReport report = run_inline(with(kStartup, "rate: 2000/s", ", start: 0s"));
  CHECK_FALSE(report.kafka->startup.waited);
  // Metadata without leaders: the producer asks again after retry.backoff.ms (100ms).
  CHECK(report.kafka->latency_max_ms > 90);
  // AbstractFetcherManager.addFetcherForPartitions: an update's partitions
  // join their fetcher together, so no partition waits out a fetch parked
  // for replica.fetch.wait.max.ms (500ms) without it (475ms when each
  // partition joined on its own).
  CHECK(report.kafka->latency_max_ms < 150);
}

TEST_CASE("a warm-up is measured apart from the rest of the run", "[kafka][startup][warmup]") {
  const RunReport whole = run_inline(kStartup);
  const RunReport warmed = run_inline(kStartup, 1, {"warmup=2s"});
  REQUIRE(warmed.kafka->startup.warmup);
  const WarmupFigures& w = *warmed.kafka->startup.warmup;
  CHECK(w.seconds == 2.0);
  // About 2s of the 10s: its records' latencies are counted apart.
  CHECK(w.latency_samples > 3000);
  CHECK(w.latency_samples < 5000);
  CHECK(w.records_per_s > 1800);
  CHECK(w.records_per_s < 2200);
  // The same run (a warm-up changes no event), measured over the last 8s.
  CHECK(warmed.trace_hash == whole.trace_hash);
  CHECK(warmed.kafka->records_per_s > 1800);
  CHECK(warmed.kafka->records_per_s < 2200);
  CHECK(warmed.kafka->delivery.acknowledged == whole.kafka->delivery.acknowledged);  // the checkers cover it all
  CHECK_FALSE(whole.kafka->startup.warmup);
}

TEST_CASE("a warm-up must end before the workload does", "[kafka][startup][warmup][input]") {
  const std::string error = scenario_error(with(kStartup, "drain: 5s\n", "warmup: 10s\n"));
  CHECK_THAT(error, Catch::Contains("test.yaml:4"));
  CHECK_THAT(error, Catch::Contains("warmup"));
  CHECK_THAT(error, Catch::Contains("shorter than the duration"));
}

TEST_CASE("a producer's application sends nothing while its process is down", "[kafka][producer][crash]") {
  const std::string crashed =
      kStartup + "faults:\n  - {kind: crash, at: 4s, duration: 4s, nodes: [producer-0]}\n";
  const RunReport report = run_inline(crashed);
  // 2000/s for the 6 of the 10 seconds it ran, not 10s' worth sent at the restart.
  CHECK(report.kafka->delivery.produced > 11000);
  CHECK(report.kafka->delivery.produced < 13000);
  CHECK(report.kafka->latency_max_ms < 1000);
}
