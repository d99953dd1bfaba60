// KRaft with several log dirs (KIP-858, 3.7+) against the releases before it:
// whether the controller learns of a failed dir, a failed metadata log dir,
// a report the controller never answers (log.dir.failure.timeout.ms), and a
// KIP-113 move that waits for the controller to accept the replica's new dir.
#include <catch2/catch.hpp>

#include <string>

#include "app/harness/cluster.hpp"
#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_scenario;

namespace {

std::uint64_t controller_figure(const ksim::testing::ScenarioRun& run, const char* name) {
  return run.report["controller"][name].get<std::uint64_t>();
}

std::uint64_t delivery_figure(const ksim::testing::ScenarioRun& run, const char* name) {
  return run.report["delivery"][name].get<std::uint64_t>();
}

// kraft-jbod-disk-failure.yaml with `overrides`, run for its duration (not its drain); broker-0's state then.
ksim::NodeState broker0_at_end(const std::vector<std::string>& overrides) {
  auto document =
      ksim::config::Document::load_file(std::string(KSIM_SOURCE_DIR) + "/scenarios/releases/kraft-jbod-disk-failure.yaml");
  for (const auto& o : overrides) document.apply_override(o);
  const ksim::app::Scenario scenario = ksim::app::read_scenario(document, ksim::app::expectation_catalogue());
  ksim::app::Cluster cluster(scenario, {});
  cluster.run();
  return cluster.brokers()[0]->state();
}

}  // namespace

TEST_CASE("a failed JBOD dir in KRaft: 3.6's controller never learns and writes fail, 3.7+ moves leadership off it "
          "(KIP-858)",
          "[releases][kip-858]") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    const auto before = run_scenario("releases/kraft-jbod-disk-failure", seed, {"kafka_version=3.6"});
    const auto after = run_scenario("releases/kraft-jbod-disk-failure", seed, {"kafka_version=3.7"});
    const auto latest = run_scenario("releases/kraft-jbod-disk-failure", seed);
    CHECK(controller_figure(before, "elections") == 0);
    CHECK(delivery_figure(before, "failed") > 5000);  // most of what was sent after 8 s (see the scenario)
    for (const auto* run : {&before, &after, &latest}) CHECK(delivery_figure(*run, "lost") == 0);
    for (const auto* run : {&after, &latest}) {
      CHECK(run->status == ksim::app::kExitOk);  // its expectations: nothing failed or unprocessed
      CHECK(controller_figure(*run, "elections") >= 1);
      CHECK(controller_figure(*run, "fencings") == 0);  // broker-0 keeps serving its other dir
    }
  }
}

TEST_CASE("a failed metadata log dir halts a KRaft broker from 3.7 (KIP-858), one elsewhere (metadata.log.dir) spares it",
          "[releases][kip-858]") {
  const std::vector<std::string> first_dir = {"faults.0.log_dir=/a"};
  CHECK(broker0_at_end(first_dir) == ksim::NodeState::Crashed);
  CHECK(broker0_at_end({"faults.0.log_dir=/a", "kafka_version=3.6"}) == ksim::NodeState::Running);
  CHECK(broker0_at_end({"faults.0.log_dir=/a", "brokers.config[metadata.log.dir]=/meta"}) == ksim::NodeState::Running);
  CHECK(broker0_at_end({}) == ksim::NodeState::Running);  // /b: only its replicas go offline
  const auto halted = run_scenario("releases/kraft-jbod-disk-failure", 1, first_dir);
  CHECK(controller_figure(halted, "fencings") == 1);  // its session expires
  CHECK(delivery_figure(halted, "lost") == 0);
}

TEST_CASE("a broker that cannot report a failed dir for log.dir.failure.timeout.ms shuts down (KIP-858)",
          "[releases][kip-858]") {
  // Cut from the controller from 7 s to 40 s; /b fails at 8 s; the report is
  // due by 38 s, and the shutdown ends once the controller is back.
  const std::string faults =
      "faults=[{kind: partition, at: 7s, duration: 33s, nodes: [broker-0], other_nodes: [controller]}, "
      "{kind: disk_failure, at: 8s, nodes: [broker-0], log_dir: /b}]";
  const auto shutdowns = [&](std::vector<std::string> overrides) {
    overrides.push_back(faults);
    return controller_figure(run_scenario("releases/kraft-jbod-disk-failure", 1, overrides), "controlled_shutdowns");
  };
  CHECK(shutdowns({}) == 1);
  CHECK(shutdowns({"brokers.config[log.dir.failure.timeout.ms]=60s"}) == 0);
  CHECK(shutdowns({"kafka_version=3.6"}) == 0);
}

TEST_CASE("KIP-858's broker keys warn where they have no effect: ZooKeeper, or KRaft before 3.7", "[kip-858]") {
  const auto warned = [](const std::string& version) {
    const auto run = run_scenario("releases/kraft-jbod-disk-failure", 1,
                                  {"kafka_version=" + version, "brokers.config[metadata.log.dir]=/meta"});
    for (const auto& w : run.report["warnings"]) {
      if (w.get<std::string>().find("metadata.log.dir: has no effect") != std::string::npos) return true;
    }
    return false;
  };
  CHECK(warned("3.6"));
  CHECK(warned("2.8"));
  CHECK_FALSE(warned("3.7"));
}

TEST_CASE("metadata.log.dir is in the resolved broker config only when given", "[kip-858]") {
  // The ground-truth harness passes the resolved config to real brokers: an
  // empty metadata.log.dir would put their metadata log in "/".
  const auto has_key = [](const std::string& yaml) {
    const auto scenario = ksim::testing::parse_scenario(yaml);
    for (const auto& [key, value] : scenario.kafka->broker_config) {
      if (key == "metadata.log.dir") return true;
    }
    return false;
  };
  CHECK_FALSE(has_key("brokers: {count: 1}\ntopics: [{name: t}]\n"));
  CHECK(has_key("brokers: {count: 1, config: {metadata.log.dir: /meta}}\ntopics: [{name: t}]\n"));
}
