// Adding a broker at runtime (scenarios/add-broker.yaml and inline variants):
// the new broker's process starts at the operation's time, registers and is
// unfenced, holds nothing until a reassignment gives it replicas, and the
// reassignment that spreads the partitions over it loses nothing.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_scenario;
using ksim::testing::ScenarioRun;

namespace {

const nlohmann::json* log_dir_of(const ScenarioRun& run, int broker) {
  for (const auto& d : run.report["log_dirs"]) {
    if (d["broker"] == broker) return &d;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("add-broker: a fourth broker joins under load and takes a share of the partitions, nothing lost",
          "[kip455][add-broker][scenarios]") {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const ScenarioRun run = run_scenario("add-broker", seed);
    INFO("seed " << seed << ": " << run.report["expectations"].dump() << " " << run.report["operations"].dump());
    CHECK(run.status == ksim::app::kExitOk);
    CHECK(run.report["delivery"]["lost"] == 0);
    CHECK(run.report["delivery"]["duplicated"] == 0);
    CHECK(run.report["groups"][0]["unprocessed"] == 0);
    const auto& ops = run.report["operations"];
    REQUIRE(ops.size() == 2);
    // Registered and unfenced a heartbeat's round trip after its start, not before.
    CHECK(ops[0]["applied_at_ms"].get<double>() > 20000);
    CHECK(ops[0]["applied_at_ms"].get<double>() < 20010);
    const auto* added = log_dir_of(run, 3);
    REQUIRE(added != nullptr);
    // Three racks, the new broker in r1 with broker 0: rack-aware placement gives r1's two brokers one
    // replica of each partition between them, so broker 3 takes some of broker 0's.
    CHECK(added->at("partitions").get<int>() >= 3);
    CHECK(added->at("partitions").get<int>() + log_dir_of(run, 0)->at("partitions").get<int>() == 12 + 50);
    CHECK(run.report["reassignments"]["completed"].get<int>() >= 3);
    CHECK(run.report["reassignments"]["in_progress"] == 0);
    // Throttled at 5 MB/s after the quota window's allowance: the copies take seconds, not milliseconds.
    CHECK(run.report["reassignments"]["longest_ms"].get<double>() > 3000);
  }
}

TEST_CASE("add-broker: without the reassignment the new broker holds nothing", "[kip455][add-broker]") {
  const ScenarioRun run = run_scenario("add-broker", 1, {"operations=[{at: 20s, kind: add_broker}]",
                                                         "expect={lost: 0}"});
  CHECK(run.status == ksim::app::kExitOk);
  REQUIRE(log_dir_of(run, 3) != nullptr);
  CHECK(log_dir_of(run, 3)->at("partitions") == 0);
  CHECK(log_dir_of(run, 3)->at("bytes") == 0);
  CHECK(run.report["operations"][0]["applied_at_ms"].get<double>() > 20000);
}

TEST_CASE("add-broker: the controller refuses a replica on a broker that has not registered yet",
          "[kip455][add-broker]") {
  // The tool may name the new broker as soon as its process starts; until its first heartbeat reaches the
  // controller, validateManualPartitionAssignment answers "no such broker is registered".
  const ScenarioRun run = run_scenario(
      "add-broker", 1,
      {"operations=[{at: 20s, kind: add_broker}, {at: 20s, kind: reassign_partitions, replicas: {0: [3, 1, 2]}}]",
       "expect={lost: 0}"});
  CHECK(run.status == ksim::app::kExitOk);
  REQUIRE(run.report["operations"].size() == 2);
  CHECK(run.report["operations"][1]["errors"] ==
        nlohmann::json::array({"orders-0: INVALID_REPLICA_ASSIGNMENT"}));
  CHECK(log_dir_of(run, 3)->at("partitions") == 0);
}

TEST_CASE("add-broker: a crash of the brokers before the new one starts does not start it early",
          "[kip455][add-broker]") {
  const ScenarioRun run = run_scenario("add-broker", 1,
                                       {"faults=[{kind: crash, nodes: [brokers], at: 5s, duration: 2s}]",
                                        "expect={lost: 0}"});
  CHECK(run.status == ksim::app::kExitOk);
  CHECK(run.report["operations"][0]["applied_at_ms"].get<double>() > 20000);  // started at 20 s, not at 7 s
}
