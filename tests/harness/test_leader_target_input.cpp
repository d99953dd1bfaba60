// The fault target leader:TOPIC-P as users write it: a partition of one of
// the scenario's topics, checked when the scenario is read, and refused where
// the target must be known before the run (a nemesis).
#include <catch2/catch.hpp>

#include <string>

#include "app/scenario/leader_target.hpp"
#include "app/scenario/scenario.hpp"
#include "tests/support/scenario_runner.hpp"

using namespace ksim;
using namespace ksim::app;
using ksim::testing::parse_scenario;
using ksim::testing::scenario_error;

namespace {

const std::string kLeaderTargetCluster =
    "network: {racks: [r1, r2, r3]}\nbrokers: {count: 3}\n"
    "topics: [{name: orders-eu, partitions: 4}, {name: audit, partitions: 1}]\n";

std::string leader_crash_of(const std::string& target) {
  return kLeaderTargetCluster + "faults: [{kind: crash, at: 1s, duration: 1s, nodes: [\"" + target + "\"]}]\n";
}

}  // namespace

TEST_CASE("leader:TOPIC-P parses the partition after the last dash", "[input][faults]") {
  const auto target = parse_leader_target("leader:orders-eu-3");
  REQUIRE(target);
  CHECK(target->topic == "orders-eu");
  CHECK(target->partition == 3);
  for (const char* bad : {"leader:", "leader:orders", "leader:-3", "leader:orders-", "leader:orders-x", "leader:o-3x",
                          "broker-0"}) {
    INFO(bad);
    CHECK_FALSE(parse_leader_target(bad));
  }
}

TEST_CASE("a fault may target the leader of a partition of a topic the scenario has", "[input][faults]") {
  const Scenario s = parse_scenario(leader_crash_of("leader:orders-eu-3"));
  REQUIRE(s.faults.size() == 1);
  CHECK(s.faults[0].nodes == std::vector<std::string>{"leader:orders-eu-3"});
  CHECK(scenario_error(kLeaderTargetCluster + "faults: [{kind: partition, at: 1s, duration: 1s, nodes: [broker-0], "
                                  "other_nodes: [\"leader:audit-0\"]}]\n") == "no error");

  CHECK_THAT(scenario_error(leader_crash_of("leader:orders-eu-4")),
             Catch::Contains("test.yaml:4:") && Catch::Contains("names partition 4 of 'orders-eu', which has 4 (0 to 3)"));
  CHECK_THAT(scenario_error(leader_crash_of("leader:orders-0")),
             Catch::Contains("names topic 'orders', which is not one of topics: (leader:orders-eu-0)"));
  CHECK_THAT(scenario_error(leader_crash_of("leader:audit")),
             Catch::Contains("is not a partition's leader: write leader:TOPIC-PARTITION (leader:orders-eu-0)"));
  // Other names are checked as before, with a suggestion.
  CHECK_THAT(scenario_error(leader_crash_of("broker-9")), Catch::Contains("unknown name 'broker-9'"));
}

TEST_CASE("a nemesis may not name a partition's leader: it draws its targets before the run", "[input][faults]") {
  CHECK_THAT(scenario_error(kLeaderTargetCluster + "nemesis: {crash: {rate: 1/s, targets: [\"leader:audit-0\"]}}\n"),
             Catch::Contains("nemesis.crash.targets") && Catch::Contains("names a partition's leader, which is known only "
                                                                         "when a fault starts"));
}

TEST_CASE("a partition's leader is not a target without a Kafka cluster", "[input][faults]") {
  CHECK_THAT(scenario_error("rpc: {servers: {count: 2}, clients: {count: 2}}\n"
                            "faults: [{kind: crash, at: 1s, nodes: [\"leader:t-0\"]}]\n"),
             Catch::Contains("names a partition's leader, but the scenario has no Kafka cluster"));
}
