// Safety, then liveness (as TigerBeetle's VOPR runs them): faults on for a
// while, then every fault healed and the cluster required to converge.
#include <catch2/catch.hpp>

#include "app/harness/cluster.hpp"
#include "app/report/report_expectations.hpp"
#include "app/scenario/config_reader.hpp"

using namespace ksim;
using namespace ksim::app;

namespace {

Scenario quickstart(std::vector<std::string> overrides) {
  config::Document document = config::Document::load_file(std::string(KSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml");
  for (const auto& o : overrides) document.apply_override(o);
  return read_scenario(document, expectation_catalogue());
}

}  // namespace

TEST_CASE("after healing every fault the cluster converges: full ISRs, every record acknowledged, groups caught up",
          "[phases]") {
  // A partition that would last until the end, and a crash that would never restart.
  const Scenario s = quickstart({"duration=12s",
                                 "faults=[{kind: partition, at: 4s, duration: 100s, nodes: [broker-1]},"
                                 " {kind: crash, at: 5s, duration: 0, nodes: [broker-2]}]"});
  Cluster cluster(s, RunOptions{});
  cluster.run_until(seconds(8));
  CHECK(cluster.unconverged_reason());  // faults in force, the workload still running
  cluster.heal();
  const auto pending = cluster.run_until_quiet(seconds(60));
  INFO(pending.value_or("converged"));
  CHECK_FALSE(pending);
  CHECK(cluster.now() >= seconds(12));
  CHECK(cluster.now() < seconds(72));
  CHECK(cluster.brokers()[2]->is_running());
}

TEST_CASE("a cluster that cannot converge says why: a failed disk leaves its partitions under-replicated", "[phases]") {
  const Scenario s = quickstart({"duration=6s", "faults=[{kind: disk_failure, at: 2s, nodes: [broker-0], log_dir: /data/0}]"});
  Cluster cluster(s, RunOptions{});
  cluster.run_until(seconds(3));
  cluster.heal();
  const auto pending = cluster.run_until_quiet(seconds(20));
  REQUIRE(pending);
  CHECK_THAT(*pending, Catch::Contains("under-replicated"));
  CHECK(cluster.now() == seconds(23));
}
