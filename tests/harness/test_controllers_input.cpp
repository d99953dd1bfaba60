// The `controllers` section (the KRaft controller quorum) as users write it:
// its size, its controller.quorum.* configs under Kafka's names and
// defaults, the nodes and fault targets it makes, and its errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "app/scenario/scenario.hpp"
#include "tests/support/scenario_runner.hpp"

using namespace ksim;
using namespace ksim::app;
using ksim::testing::parse_scenario;
using ksim::testing::scenario_error;

namespace {

const std::string kQuorumCluster = "network: {racks: [r1, r2, r3]}\nbrokers: {count: 3}\ntopics: [{name: t}]\n";

std::vector<NodePlacement> controllers_of(const Scenario& s) {
  std::vector<NodePlacement> out;
  for (const NodePlacement& p : node_placements(s)) {
    if (p.group == "controller" || p.group == "controllers") out.push_back(p);
  }
  return out;
}

}  // namespace

TEST_CASE("one controller by default, named controller, and a quorum of controller-0 ... over the racks",
          "[input][quorum]") {
  const Scenario one = parse_scenario(kQuorumCluster);
  CHECK(one.kafka->controller_count == 1);
  REQUIRE(controllers_of(one).size() == 1);
  CHECK(controllers_of(one)[0].name == "controller");
  CHECK(controllers_of(one)[0].group == "controller");

  const Scenario three = parse_scenario(kQuorumCluster + "controllers: {count: 3}\n");
  const auto placed = controllers_of(three);
  REQUIRE(placed.size() == 3);
  for (int i = 0; i < 3; ++i) {
    CHECK(placed[static_cast<std::size_t>(i)].name == "controller-" + std::to_string(i));
    CHECK(placed[static_cast<std::size_t>(i)].group == "controllers");
    CHECK(placed[static_cast<std::size_t>(i)].index == i);
  }
  CHECK(placed[0].rack == "r1");
  CHECK(placed[1].rack == "r2");
  CHECK(placed[2].rack == "r3");
  const Scenario one_rack = parse_scenario(kQuorumCluster + "controller: {rack: r2}\ncontrollers: {count: 3}\n");
  for (const NodePlacement& p : controllers_of(one_rack)) CHECK(p.rack == "r2");
}

TEST_CASE("controllers.count takes 1 to 7", "[input][quorum]") {
  CHECK(scenario_error(kQuorumCluster + "controllers: {count: 2}\n") == "no error");  // Kafka allows any number
  CHECK(scenario_error(kQuorumCluster + "controllers: {count: 7}\n") == "no error");
  CHECK_THAT(scenario_error(kQuorumCluster + "controllers: {count: 0}\n"), Catch::Contains("test.yaml:4:22: controllers.count: must be between 1 and 7, got 0"));
  CHECK_THAT(scenario_error(kQuorumCluster + "controllers: {count: 8}\n"), Catch::Contains("controllers.count:"));
  CHECK_THAT(scenario_error(kQuorumCluster + "controllers: {cout: 3}\n"),
             Catch::Contains("unknown key 'cout' (did you mean 'count'?)"));
  CHECK_THAT(scenario_error("controllers: {count: 3}\nrpc: {}\n"), Catch::Contains("needs a 'brokers' section"));
}

TEST_CASE("the quorum's Raft configs are Kafka's, with QuorumConfig's defaults", "[input][quorum]") {
  const models::RaftConfig defaults = parse_scenario(kQuorumCluster + "controllers: {count: 3}\n").kafka->quorum;
  CHECK(defaults.election_timeout == milliseconds(1000));
  CHECK(defaults.fetch_timeout == milliseconds(2000));
  CHECK(defaults.election_backoff_max == milliseconds(1000));
  CHECK(defaults.request_timeout == milliseconds(2000));
  CHECK(defaults.retry_backoff == milliseconds(20));
  CHECK(defaults.append_linger == milliseconds(25));
  CHECK(defaults.fsync_latency == milliseconds(1));
  CHECK(defaults.followers_always_flush);  // RaftManager on a controller

  const Scenario s = parse_scenario(kQuorumCluster +
                                    "controllers:\n  count: 5\n  fsync_latency: 5ms\n  config:\n"
                                    "    controller.quorum.election.timeout.ms: 500\n"
                                    "    controller.quorum.fetch.timeout.ms: 1s\n"
                                    "    controller.quorum.election.backoff.max.ms: 300\n"
                                    "    controller.quorum.request.timeout.ms: 1500\n"
                                    "    controller.quorum.retry.backoff.ms: 10\n"
                                    "    controller.quorum.append.linger.ms: 5\n");
  const models::RaftConfig& r = s.kafka->quorum;
  CHECK(s.kafka->controller_count == 5);
  CHECK(r.election_timeout == milliseconds(500));
  CHECK(r.fetch_timeout == seconds(1));
  CHECK(r.election_backoff_max == milliseconds(300));
  CHECK(r.request_timeout == milliseconds(1500));
  CHECK(r.retry_backoff == milliseconds(10));
  CHECK(r.append_linger == milliseconds(5));
  CHECK(r.fsync_latency == milliseconds(5));
  CHECK(s.kafka->broker.controller_request_timeout == milliseconds(1500));  // brokers move on after it
  CHECK(s.warnings.empty());

  CHECK_THAT(scenario_error(kQuorumCluster + "controllers: {count: 3, config: {controller.quorum.election.timeout.ms: 0}}\n"),
             Catch::Contains("controllers.config.controller.quorum.election.timeout.ms:"));
  CHECK_THAT(scenario_error(kQuorumCluster + "controllers: {count: 3, config: {controller.quorum.fetch.timeot.ms: 1}}\n"),
             Catch::Contains("did you mean 'controller.quorum.fetch.timeout.ms'?"));
  // Kafka's names ksim does not read: the voters are the controllers themselves.
  CHECK_THAT(scenario_error(kQuorumCluster + "controllers: {count: 3, config: {controller.quorum.voters: '0@a:9093'}}\n"),
             Catch::Contains("is a Kafka broker config that ksim does not model"));
}

TEST_CASE("a quorum setting with one controller is a warning: one controller runs without Raft", "[input][quorum]") {
  const Scenario s = parse_scenario(kQuorumCluster + "controllers: {config: {controller.quorum.fetch.timeout.ms: 1s}, "
                                               "fsync_latency: 2ms}\n");
  REQUIRE(s.warnings.size() == 2);
  CHECK_THAT(s.warnings[0].text(), Catch::Contains("controllers.config.controller.quorum.fetch.timeout.ms: has no "
                                                   "effect with one controller"));
  CHECK_THAT(s.warnings[1].text(), Catch::Contains("controllers.fsync_latency: has no effect with one controller"));
}

TEST_CASE("fault targets with a quorum: controller is the active one, standby-controller another, controllers all, "
          "controller-K one",
          "[input][quorum]") {
  const std::string quorum = kQuorumCluster + "controllers: {count: 3}\n";
  for (const char* target : {"controller", "standby-controller", "controllers", "controller-2"}) {
    INFO(target);
    const Scenario s = parse_scenario(quorum + "faults: [{kind: crash, at: 1s, nodes: [" + target + "]}]\n");
    REQUIRE(s.faults.size() == 1);
    CHECK(s.faults[0].nodes == std::vector<std::string>{target});
  }
  CHECK_THAT(scenario_error(quorum + "faults: [{kind: crash, at: 1s, nodes: [controller-3]}]\n"),
             Catch::Contains("unknown name 'controller-3'"));
  CHECK_THAT(scenario_error(kQuorumCluster + "faults: [{kind: crash, at: 1s, nodes: [controller-0]}]\n"),
             Catch::Contains("unknown name 'controller-0'"));  // one controller is `controller`
  // A nemesis plans its targets before the run: the active controller is not known then.
  CHECK_THAT(scenario_error(quorum + "nemesis: {crash: {rate: 1/s, targets: [brokers, controller]}}\n"),
             Catch::Contains("nemesis.crash.targets: names 'controller', the active controller of the quorum"));
  CHECK_THAT(scenario_error(quorum + "nemesis: {crash: {rate: 1/s, targets: [standby-controller]}}\n"),
             Catch::Contains("names 'standby-controller', a controller that is not the active one of the quorum"));
  // Without a quorum there is no standby: the name is unknown.
  CHECK_THAT(scenario_error(kQuorumCluster + "faults: [{kind: crash, at: 1s, nodes: [standby-controller]}]\n"),
             Catch::Contains("unknown name 'standby-controller'"));
  CHECK(scenario_error(quorum + "nemesis: {crash: {rate: 1/s, targets: [brokers, controllers]}}\n") == "no error");
  CHECK(scenario_error(kQuorumCluster + "nemesis: {crash: {rate: 1/s, targets: [brokers, controller]}}\n") == "no error");
}
