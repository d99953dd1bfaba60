// Published measurements of Kafka besides the 2014 benchmark, predicted with
// nothing fitted to them (docs/calibration.md): Confluent's 2020 OpenMessaging
// Benchmark runs of Kafka 2.6 on i3en.2xlarge brokers.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_scenario;

namespace {

double publish_rate(const ksim::testing::ScenarioRun& run) {
  return run.report["throughput"]["records_per_s"].get<double>();
}

}  // namespace

TEST_CASE("confluent-2020: the peak throughput is the disks', within 20% of the published run, with and without "
          "an fsync per message",
          "[throughput][published]") {
  const auto page_cache = run_scenario("confluent_2020/max-throughput", 1);
  const auto fsync =
      run_scenario("confluent_2020/max-throughput", 1, {"topics.0.config[flush.messages]=1", "topics.0.config[flush.ms]=0"});
  for (const auto* run : {&page_cache, &fsync}) {
    REQUIRE(run->status == ksim::app::kExitOk);
    CHECK(run->report["utilization"]["bottleneck"] == "disk");
    CHECK(run->report["groups"][0]["unprocessed"] == 0);
  }
  // blog/results/kafka/throughput/default-sync.json and sync.json: the mean publish rate.
  CHECK(std::abs(publish_rate(page_cache) - 618991) / 618991 < 0.20);
  CHECK(std::abs(publish_rate(fsync) - 590550) / 590550 < 0.20);
  CHECK(publish_rate(fsync) < publish_rate(page_cache));  // each append waits for its fsync
}
