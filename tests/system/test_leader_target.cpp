// Faults aimed at roles decided while the run goes: leader:TOPIC-P is the
// broker leading the partition when the fault starts, coordinator:GROUP the
// broker leading the group's __consumer_offsets partition then; a target
// that stands for nobody then (a partition without a leader, a topic not yet
// created) makes the fault miss rather than hit someone else.
#include <catch2/catch.hpp>

#include <string>

#include "app/harness/cluster.hpp"
#include "app/report/report.hpp"
#include "app/scenario/config_reader.hpp"
#include "tests/support/scenario_runner.hpp"

using namespace ksim;
using namespace ksim::app;

namespace {

Scenario leader_chase(std::uint64_t seed) {
  config::Document document =
      config::Document::load_file(std::string(KSIM_SOURCE_DIR) + "/scenarios/leader-chase.yaml");
  document.apply_override("seed=" + std::to_string(seed));
  return read_scenario(document, expectation_catalogue());
}

std::string leader_target_broker(std::optional<models::BrokerId> broker) {
  return broker ? "broker-" + std::to_string(*broker) : "none";
}

}  // namespace

TEST_CASE("leader:TOPIC-P crashes whichever broker leads the partition when the fault starts", "[system][faults]") {
  for (const std::uint64_t seed : {1, 2, 3}) {
    INFO("seed " << seed);
    const Scenario scenario = leader_chase(seed);
    Cluster cluster(scenario, RunOptions{});
    const models::TopicPartition orders_0{0, 0};
    cluster.run_until(seconds(10) - milliseconds(1));
    const std::string first = leader_target_broker(cluster.leader_now(orders_0, std::nullopt));
    cluster.run_until(seconds(30) - milliseconds(1));
    const std::string second = leader_target_broker(cluster.leader_now(orders_0, std::nullopt));
    cluster.run();
    REQUIRE(cluster.fired_faults().size() == 2);
    CHECK(cluster.fired_faults()[0].nodes == std::vector<std::string>{first});
    CHECK(cluster.fired_faults()[1].nodes == std::vector<std::string>{second});
    CHECK(first != second);  // the first crash moved the leadership: the second hits the new leader
    CHECK(cluster.faults().missed() == 0);
  }
}

TEST_CASE("leader-chase: two failovers under acks=all with idempotence lose and duplicate nothing",
          "[system][faults][scenario]") {
  const auto run = testing::run_scenario("leader-chase", 1);
  CHECK(run.status == 0);
  CHECK(testing::delivery(run, "acknowledged") > 50000);
  CHECK(testing::delivery(run, "lost") == 0);
  CHECK(testing::delivery(run, "duplicated") == 0);
  CHECK(run.report["faults_missed"] == 0);
  CHECK(run.report["fault_schedule"].size() == 2);
}

namespace {

// A topic created at 5 s; faults before then name its partition's leader.
const std::string kLateTopic = R"(
duration: 8s
drain: 2s
network: {racks: [r1, r2, r3]}
brokers: {count: 3, config: {auto.create.topics.enable: false}}
topics:
  - {name: early, partitions: 3}
  - {name: late, partitions: 3}
producers:
  - {name: app, topic: early, rate: 500/s, record_size: 100B}
operations:
  - {at: 5s, kind: create_topic, topic: late}
)";

}  // namespace

TEST_CASE("a fault whose partition-leader target stands for nobody does not fire, and is counted as missed",
          "[system][faults]") {
  SECTION("a crash of the leader of a topic not created yet: missed, and the verdict is over no fault") {
    const RunReport report =
        testing::run_inline(kLateTopic + "faults: [{kind: crash, at: 2s, duration: 1s, nodes: [\"leader:late-0\"]}]\n");
    CHECK(report.faults_missed == 1);
    CHECK(report.faults_fired.at("crash") == 0);
    REQUIRE(report.kafka);
    CHECK(report.kafka->delivery.vacuous == "no fault fired, though the scenario has faults");
  }
  SECTION("expect: faults_missed: 0 fails on it") {
    const RunReport report = testing::run_inline(kLateTopic +
                                                 "faults: [{kind: crash, at: 2s, duration: 1s, nodes: [\"leader:late-0\"]}]\n"
                                                 "expect: {faults_missed: 0}\n");
    REQUIRE(report.expectations.size() >= 1);
    CHECK(report.expectations.front().name == "faults_missed");
    CHECK_FALSE(report.expectations.front().held);
    CHECK_FALSE(report.expectations_held());
  }
  SECTION("a partition from such a leader: missed, not a cut from everyone") {
    const RunReport report = testing::run_inline(
        kLateTopic + "faults: [{kind: partition, at: 2s, duration: 2s, nodes: [broker-0], other_nodes: [\"leader:late-0\"]}]\n");
    CHECK(report.faults_missed == 1);
    CHECK(report.faults_fired.at("partition") == 0);
    CHECK(report.network.messages_held == 0);
  }
  SECTION("once the topic exists, the same target hits its leader") {
    const RunReport report =
        testing::run_inline(kLateTopic + "faults: [{kind: crash, at: 6s, duration: 1s, nodes: [\"leader:late-0\"]}]\n");
    CHECK(report.faults_missed == 0);
    CHECK(report.faults_fired.at("crash") == 1);
  }
}

TEST_CASE("coordinator:GROUP is the group's coordinator when the fault starts, not when the run starts",
          "[system][faults]") {
  // The coordinator crashes at 10 s for 30 s; the group moves to another broker. A second
  // crash of coordinator:ledger at 25 s hits that broker, not the one already down.
  const auto run = testing::run_scenario(
      "coordinator-failover", 1,
      {"faults=[{kind: crash, at: 10s, duration: 30s, nodes: [\"coordinator:ledger\"]}, "
       "{kind: crash, at: 25s, duration: 5s, nodes: [\"coordinator:ledger\"]}]",
       "expect={}"});
  const auto& schedule = run.report["fault_schedule"];
  REQUIRE(schedule.size() == 2);
  CHECK(schedule[0]["nodes"] != schedule[1]["nodes"]);
  CHECK(run.report["faults_missed"] == 0);
}

TEST_CASE("ground-truth/leader-chase: the two kills hit broker-0, then the broker elected in its place, nothing lost",
          "[system][faults][ground-truth]") {
  for (const std::uint64_t seed : {1, 2}) {
    INFO("seed " << seed);
    const auto run = testing::run_scenario("ground-truth/leader-chase", seed);
    CHECK(run.status == 0);  // its expect: nothing lost, exactly-once
    const auto& schedule = run.report["fault_schedule"];
    REQUIRE(schedule.size() == 2);
    CHECK(schedule[0]["nodes"] == nlohmann::json::array({"broker-0"}));  // the assignment's preferred leader
    CHECK(schedule[1]["nodes"] != schedule[0]["nodes"]);
    CHECK(testing::delivery(run, "acknowledged") > 5000);
  }
}
