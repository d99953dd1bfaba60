// A guarantee checked over nothing is not a guarantee: the verdict says
// "vacuous" and what was missing, and an `expect:` of a guarantee fails.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "ksim/cluster.hpp"
#include "ksim/scenario.hpp"
#include "tests/support/scenario_runner.hpp"

using namespace std::chrono_literals;

namespace {

const nlohmann::json& expectation(const nlohmann::json& report, const std::string& name) {
  const auto& all = report.at("expectations");
  const auto it = std::find_if(all.begin(), all.end(), [&](const auto& e) { return e.at("name") == name; });
  REQUIRE(it != all.end());
  return *it;
}

}  // namespace

TEST_CASE("nothing produced: the delivery verdict is vacuous and expecting exactly-once fails", "[verdicts]") {
  const auto run = ksim::testing::run_scenario("quickstart", 1, {"duration=6s", "producers.0.config[buffer.memory]=1B"});
  CHECK(run.status == 1);
  const auto& delivery = run.report.at("delivery");
  CHECK(delivery.at("produced") == 0);
  CHECK(delivery.at("verdict") == "vacuous");
  CHECK(delivery.at("vacuous") == "nothing produced");
  CHECK(delivery.at("exactly_once") == false);  // true only over something
  CHECK(expectation(run.report, "delivery").at("held") == false);
  const auto& group = run.report.at("groups").at(0);
  CHECK(group.at("verdict") == "vacuous");
  CHECK(group.at("vacuous") == "nothing committed to the topic");
  CHECK(expectation(run.report, "groups.analytics.consumption").at("held") == false);
}

// Cut off from its start, the producer's first send() waits for its topic's metadata
// (KafkaProducer.waitOnMetadata) until max.block.ms fails it: nothing is ever sent.
TEST_CASE("nothing acknowledged (the producer cut off from every broker): vacuous", "[verdicts]") {
  const std::vector<std::string> cut_off{"duration=6s", "faults.0.nodes=[checkout-0]", "faults.0.at=0s",
                                         "faults.0.duration=60s"};
  const auto blocked = ksim::testing::run_scenario("quickstart", 1, cut_off);
  CHECK(blocked.report.at("delivery").at("produced") == 0);
  CHECK(blocked.report.at("delivery").at("vacuous") == "nothing produced");
  auto failing = cut_off;
  failing.push_back("producers.0.config[max.block.ms]=2s");  // each blocked send() fails after 2 s
  const auto run = ksim::testing::run_scenario("quickstart", 1, failing);
  CHECK(run.status == 1);
  const auto& delivery = run.report.at("delivery");
  CHECK(delivery.at("produced") > 0);
  CHECK(delivery.at("acknowledged") == 0);
  CHECK(delivery.at("verdict") == "vacuous");
  CHECK(delivery.at("vacuous") == "nothing acknowledged");
  CHECK(expectation(run.report, "delivery").at("held") == false);
}

TEST_CASE("a group that consumed nothing of what was committed has violated at-least-once, not held it vacuously",
          "[verdicts]") {
  // Consumers that start after the run: nothing processed, everything unprocessed.
  const auto run = ksim::testing::run_scenario("quickstart", 1, {"duration=6s", "consumers.0.start=100s"});
  const auto& group = run.report.at("groups").at(0);
  CHECK(group.at("processed") == 0);
  CHECK(group.at("unprocessed") > 0);
  CHECK(group.at("verdict") == "none");
  CHECK(group.at("vacuous") == "nothing consumed");
  CHECK(expectation(run.report, "groups.analytics.consumption").at("held") == false);
}

TEST_CASE("a scenario with faults of which none fired tested nothing under faults", "[verdicts][api]") {
  ksim::Scenario s = ksim::Scenario::load(std::string(KSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml");
  s.set("duration", "10s");
  ksim::Cluster cluster(s);
  cluster.run_until(5s);  // before the first fault, at 8s
  cluster.heal();         // and none of them will now fire
  REQUIRE(cluster.run_until_quiet(60s));
  const ksim::Report report = cluster.report();
  REQUIRE(report.delivery);
  CHECK(report.delivery->acknowledged > 0);
  CHECK(report.delivery->verdict == "vacuous");
  CHECK(report.delivery->vacuous == "no fault fired, though the scenario has faults");
  CHECK_FALSE(report.delivery->exactly_once);
  CHECK_FALSE(report.groups.at("analytics").exactly_once);
  CHECK_FALSE(report.expectations_held);
}

TEST_CASE("no transaction committed: the transactions' exactly-once is vacuous and an expectation of it fails",
          "[verdicts]") {
  const auto run = ksim::testing::run_scenario("txn-zombie", 1, {"duration=5s", "producers.0.start=100s",
                                                                 "producers.1.start=100s"});
  const auto& t = run.report.at("transactions");
  CHECK(t.at("committed") == 0);
  CHECK(t.at("vacuous") == "no transaction committed");
  CHECK(t.at("exactly_once") == false);
  CHECK(run.status == 1);
}

TEST_CASE("an expectation on Raft epochs without a controller quorum fails as n/a, never holds over nothing",
          "[verdicts]") {
  const auto run = ksim::testing::run_scenario("kraft-prevote", 1, {"controllers.count=1", "faults.0.nodes=[controller]"});
  CHECK(run.status == 1);
  CHECK(run.report.at("controller").at("quorum").at("raft_epochs").is_null());
  const auto& epochs = expectation(run.report, "controller_raft_epochs");
  CHECK(epochs.at("held") == false);
  CHECK(epochs.at("detail").get<std::string>().starts_with("n/a"));
}
