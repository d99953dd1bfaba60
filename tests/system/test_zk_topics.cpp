// Topics created while a ZooKeeper-era cluster runs (models/controller/zk_topics.cpp):
// scenarios/create-topic.yaml and scenarios/auto-created-topic.yaml on 2.8.
// The topic znode is written with its assignment; the controller's watch
// creates the partitions; a broker whose process is down but whose session
// lives is still "alive" to ZooKeeper, so it gets replicas and even leads
// until its session expires.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_scenario;
using ksim::testing::ScenarioRun;

namespace {

int zk_partitions_on(const ScenarioRun& run, int broker) {
  for (const auto& d : run.report["log_dirs"]) {
    if (d["broker"] == broker) return d["partitions"].get<int>();
  }
  return -1;
}

}  // namespace

TEST_CASE("ZooKeeper era: create-topic on 2.8 - send() waits, the group rebalances onto it, nothing lost",
          "[create-topic][zookeeper]") {
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    const ScenarioRun run = run_scenario("create-topic", seed, {"kafka_version=2.8"});
    INFO("seed " << seed << ": " << run.report["expectations"].dump() << " " << run.report["operations"].dump());
    CHECK(run.status == ksim::app::kExitOk);
    CHECK(run.report["release"]["kafka_version"] == "2.8");
    const auto& op = run.report["operations"][0];
    CHECK(op["applied_at_ms"].get<double>() == Approx(15000).margin(1));
    CHECK(op["errors"].empty());
    CHECK(run.report["groups"][0]["processed"].get<std::int64_t>() > 60000);
    CHECK(run.report["latency_ms"]["max"].get<double>() > 13000);
    CHECK(run.report["latency_ms"]["max"].get<double>() < 15500);
    // 6 partitions with RF 3 over 3 brokers, beside each broker's 50 of __consumer_offsets.
    for (int b = 0; b < 3; ++b) CHECK(zk_partitions_on(run, b) == 56);
  }
}

TEST_CASE("ZooKeeper era: a broker down at the creation still gets replicas, and leads none until its session expires",
          "[create-topic][zookeeper]") {
  // broker-2's process dies at 10 s; its session lives until about 28 s, so at 15 s ZooKeeper still lists it:
  // the placement gives it replicas and the controller makes it leader of the partitions it comes first in.
  // Records for those wait until the session expires and the controller elects another leader.
  const ScenarioRun run =
      run_scenario("create-topic", 1,
                   {"kafka_version=2.8", "faults=[{kind: crash, nodes: [broker-2], at: 10s, duration: 15s}]",
                    "expect={lost: 0, duplicated: 0}"});
  INFO(run.report["expectations"].dump() << " " << run.report["operations"].dump());
  CHECK(run.status == ksim::app::kExitOk);
  CHECK(run.report["operations"][0]["errors"].empty());
  CHECK(run.report["groups"][0]["unprocessed"] == 0);
  CHECK(zk_partitions_on(run, 2) == zk_partitions_on(run, 0));
  CHECK(run.report["latency_ms"]["max"].get<double>() > 20000);
  CHECK(run.report["replica_divergences_at_end"] == 0);
  CHECK(run.report["invariant_violations"] == 0);
  // Once its session has expired, ZooKeeper lists two brokers: RF 3 cannot be placed.
  const ScenarioRun late = run_scenario(
      "create-topic", 1,
      {"kafka_version=2.8", "faults=[{kind: crash, nodes: [broker-2], at: 1s, duration: 39s}]",
       "operations=[{at: 25s, kind: create_topic, topic: orders}]", "expect={}"});
  const auto& errors = late.report["operations"][0]["errors"];
  REQUIRE(errors.size() == 6);  // one per partition of the request
  CHECK_THAT(errors[0].get<std::string>(), Catch::Contains("INVALID_REPLICATION_FACTOR"));
}

TEST_CASE("ZooKeeper era: auto-created-topic on 2.8 - the metadata request creates one partition with one replica",
          "[auto-create][zookeeper]") {
  const ScenarioRun run = run_scenario("auto-created-topic", 1, {"kafka_version=2.8", "faults=[]", "expect={lost: 0}"});
  INFO(run.report["expectations"].dump());
  CHECK(run.status == ksim::app::kExitOk);
  int replicas = 0;  // the topic's over every broker: the internal topic's are 50 per broker
  for (const auto& d : run.report["log_dirs"]) replicas += d["partitions"].get<int>() - 50;
  CHECK(replicas == 1);
  CHECK(run.report["producer"]["metadata_waits"].get<int>() >= 1);
  CHECK(run.report["groups"][0]["processed"].get<std::int64_t>() > 50000);
  CHECK(run.report["invariant_violations"] == 0);
}
