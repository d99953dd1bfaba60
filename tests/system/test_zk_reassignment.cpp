// KIP-455 partition reassignment on the ZooKeeper-era controller
// (models/controller/zk_reassignment.cpp; scenarios/releases/zk-reassign-partitions.yaml):
// with AlterIsr (2.7+) and before it (the leader writes the ISR to ZooKeeper
// and the controller watches the state znode), cancelled, resumed when a new
// broker returns and after a controller failover, and a decommission.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "app/harness/cluster.hpp"
#include "models/controller/zk_data.hpp"
#include "tests/support/moving_cluster.hpp"
#include "tests/support/scenario_runner.hpp"

namespace {

using ksim::models::BrokerId;
using ksim::models::TopicPartition;

// The reassignment tests' cluster on `release`, with ZooKeeper.
std::string zk_moving_cluster(const std::string& release, const std::string& operations, const std::string& faults = "") {
  return ksim::testing::moving_cluster(operations, faults, "kafka_version: \"" + release + "\"\n");
}

// Runs `yaml` to its end, checks that nothing was lost, and returns the cluster.
std::unique_ptr<ksim::app::Cluster> run_zk_moves(const std::string& yaml, std::uint64_t seed,
                                                  ksim::models::ReassignmentFigures& figures) {
  auto scenario = ksim::testing::parse_scenario(yaml);
  scenario.seed = seed;
  auto cluster = std::make_unique<ksim::app::Cluster>(scenario, ksim::app::RunOptions{});
  cluster->run();
  REQUIRE(cluster->controller()->is_zookeeper());
  const auto report = ksim::app::make_report(*cluster, 0);
  REQUIRE(report.kafka);
  CHECK(report.kafka->delivery.lost == 0);
  CHECK(report.kafka->delivery.duplicated == 0);
  CHECK(report.kafka->delivery.acknowledged > 100000);
  CHECK(report.kafka->invariant_violations == 0);
  CHECK(report.kafka->groups[0].report.unprocessed == 0);
  figures = report.kafka->operations.reassignments;
  return cluster;
}

std::vector<BrokerId> zk_replicas_of(const ksim::app::Cluster& cluster, TopicPartition tp) {
  return cluster.controller()->partitions().at(tp).replicas;
}

// The topic znode as the controller left it: no partition still adding or removing.
bool topic_znode_settled(const ksim::app::Cluster& cluster) {
  const auto* node = cluster.zookeeper()->tree().find(ksim::models::zk_data::topic_path(0));
  REQUIRE(node);
  const auto assignment = ksim::models::zk_data::decode_assignment(node->data);
  REQUIRE(assignment);
  return std::none_of(assignment->begin(), assignment->end(), [](const auto& a) { return a.reassigning(); });
}

const std::string kMoveAll = R"(
  - {at: 10s, kind: reassign_partitions, topic: orders, replicas: {0: [3, 1, 2], 1: [1, 2, 3], 2: [2, 3, 1], 3: [3, 2, 1]}}
)";

}  // namespace

TEST_CASE("ZooKeeper era: replicas move onto a new broker under load with nothing lost", "[kip455][zookeeper][system]") {
  // 2.8 asks the controller to change ISRs (AlterIsr); 2.6's leaders write ZooKeeper and the controller watches.
  for (const std::string release : {"2.8", "2.6"}) {
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
      INFO("release " << release << " seed " << seed);
      ksim::models::ReassignmentFigures r;
      const auto cluster = run_zk_moves(zk_moving_cluster(release, kMoveAll), seed, r);
      CHECK(r.started == 4);
      CHECK(r.completed == 4);
      CHECK(r.in_progress == 0);
      CHECK(r.replicas_created == 4);
      CHECK(r.replicas_deleted == 4);
      CHECK(zk_replicas_of(*cluster, {0, 0}) == std::vector<BrokerId>{3, 1, 2});
      CHECK(zk_replicas_of(*cluster, {0, 1}) == std::vector<BrokerId>{1, 2, 3});
      CHECK(zk_replicas_of(*cluster, {0, 3}) == std::vector<BrokerId>{3, 2, 1});
      for (std::int32_t p = 0; p < 4; ++p) {
        CHECK(cluster->brokers()[0]->partition({0, p}) == nullptr);
        const auto& isr = cluster->controller()->partitions().at({0, p}).isr;
        CHECK(std::find(isr.begin(), isr.end(), 0) == isr.end());
      }
      // Partitions 0 and 3 were led by broker 0, which left them: the first target replica in the ISR leads.
      CHECK(cluster->brokers()[3]->is_leader({0, 0}));
      CHECK(cluster->brokers()[3]->is_leader({0, 3}));
      CHECK(topic_znode_settled(*cluster));
    }
  }
}

TEST_CASE("ZooKeeper era: a cancelled reassignment puts the original replicas back", "[kip455][zookeeper][system]") {
  const std::string& operations = ksim::testing::kCancelledMove;
  const std::string& faults = ksim::testing::kSlowBroker3;
  ksim::models::ReassignmentFigures r;
  const auto cluster = run_zk_moves(zk_moving_cluster("2.8", operations, faults), 1, r);
  ksim::testing::check_cancelled_move(r);
  // The original replicas in the order they had in the reassignment's list (target first, then those removed):
  // Kafka's controller cannot restore [0, 1, 2] (updateCurrentReassignment's comment says so).
  CHECK(zk_replicas_of(*cluster, {0, 0}) == std::vector<BrokerId>{1, 2, 0});
  CHECK(cluster->brokers()[3]->partition({0, 0}) == nullptr);
  CHECK(topic_znode_settled(*cluster));
  // Before KIP-455 (2.4) the tool cannot cancel.
  CHECK_THAT(ksim::testing::scenario_error(zk_moving_cluster("2.3", operations)),
             Catch::Contains("cancelling a reassignment needs KIP-455 (Kafka 2.4)"));
}

TEST_CASE("ZooKeeper era: a reassignment resumes when its new broker returns and after a controller failover",
          "[kip455][zookeeper][system]") {
  SECTION("the new broker crashes as the move starts") {
    const std::string operations = "  - {at: 10s, kind: reassign_partitions, topic: orders, replicas: {0: [3, 1, 2], 1: [1, 2, 3]}}\n";
    const std::string faults = "  - {kind: crash, at: 10.01s, duration: 5s, nodes: [broker-3]}\n";
    ksim::models::ReassignmentFigures r;
    const auto cluster = run_zk_moves(zk_moving_cluster("2.8", operations, faults), 1, r);
    CHECK(r.completed == 2);
    CHECK(r.in_progress == 0);
    CHECK(r.longest > ksim::seconds(5));  // not before broker 3 is back and caught up
    CHECK(topic_znode_settled(*cluster));
  }
  SECTION("the controller's process dies while broker 3 catches up") {
    // Broker 3's link crawls until 20 s, so the moves are in phase A when the controller (broker 0 in this
    // run, in no target) dies for good at 12 s; its successor, active once broker 0's session expires,
    // reads the topic znode's adding and removing replicas and finishes them (initializePartitionReassignments).
    const std::string faults = R"(
  - {kind: link_slowdown, at: 9s, duration: 11s, links: [broker-3], factor: 0.0001}
  - {kind: crash, at: 12s, nodes: [controller]}
)";
    // Which broker wins the race for /controller depends on the seed: the first of seeds 1-8 whose
    // controller is broker 0 (seed 3 before connections had a handshake).
    ksim::models::ReassignmentFigures r;
    std::unique_ptr<ksim::app::Cluster> cluster;
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
      cluster = run_zk_moves(zk_moving_cluster("2.8", kMoveAll, faults), seed, r);
      REQUIRE(cluster->fired_faults().size() == 2);
      if (cluster->fired_faults()[1].nodes == std::vector<std::string>{"broker-0"}) break;
    }
    REQUIRE(cluster->fired_faults()[1].nodes == std::vector<std::string>{"broker-0"});
    CHECK(r.completed == 4);
    CHECK(r.in_progress == 0);
    CHECK(r.longest > ksim::seconds(20));  // the new controller is active 18 s after the crash
    CHECK(zk_replicas_of(*cluster, {0, 2}) == std::vector<BrokerId>{2, 3, 1});
    CHECK(topic_znode_settled(*cluster));
  }
}

TEST_CASE("ZooKeeper era: decommissioning a broker moves every replica of the topics off it", "[kip455][zookeeper][system]") {
  ksim::models::ReassignmentFigures r;
  const auto cluster =
      run_zk_moves(zk_moving_cluster("3.2", "  - {at: 10s, kind: decommission_broker, broker: 0}\n"), 1, r);
  CHECK(r.started == r.completed);
  CHECK(r.started >= 4);
  for (std::int32_t p = 0; p < 4; ++p) {
    const auto replicas = zk_replicas_of(*cluster, {0, p});
    CHECK(replicas.size() == 3);
    CHECK(std::find(replicas.begin(), replicas.end(), 0) == replicas.end());
    CHECK(cluster->brokers()[0]->partition({0, p}) == nullptr);
  }
}

TEST_CASE("scenarios/releases/zk-reassign-partitions: the next controller finishes the moves", "[kip455][zookeeper][system]") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    const auto run = ksim::testing::run_scenario("releases/zk-reassign-partitions", seed);
    CHECK(run.status == ksim::app::kExitOk);  // its expectations: every move completed, nothing lost
    const auto& r = run.report["reassignments"];
    CHECK(r["completed"] == 4);
    CHECK(r["replicas_deleted"] == 4);
    // The moves wait for a new controller: the crashed one's session must expire (18 s) first.
    CHECK(r["longest_ms"].get<double>() > 18000);
    CHECK(run.report["controller"]["quorum"]["failovers"].get<int>() >= 1);
  }
}

TEST_CASE("ZooKeeper era: a broker added under load registers and generate_reassignment spreads the partitions",
          "[kip455][zookeeper][system]") {
  // scenarios/add-broker.yaml on 2.8: broker 3's process starts at 20 s and registers in ZooKeeper; the
  // controller's /brokers/ids watch tells every broker; the reassignment at 25 s gives it replicas.
  const auto run = ksim::testing::run_scenario(
      "add-broker", 1, {"kafka_version=2.8", "producers.0.config={acks: all, enable.idempotence: true}"});
  CHECK(run.status == ksim::app::kExitOk);  // its expectations: nothing lost, every move completed
  CHECK(run.report["startup"]["not_ready"] == "");  // the topics wait for the brokers it starts with only
  const auto& added = run.report["operations"][0];
  CHECK(added["applied_at_ms"].get<double>() == Approx(20000).margin(50));
  CHECK(run.report["reassignments"]["completed"].get<int>() >= 6);
  int on_new_broker = -1;
  for (const auto& d : run.report["log_dirs"]) {
    if (d["broker"] == 3) on_new_broker = d["partitions"].get<int>();
  }
  CHECK(on_new_broker >= 6);  // its share of orders' 36 replicas
}

TEST_CASE("ZooKeeper era: a broker's clean stop drops its replica fetchers with their timers", "[zookeeper][system]") {
  // Found by ksim explore: a broker stopping (its ZooKeeper side handed over)
  // freed its fetchers while a fetcher's wake-up timer was pending; the timer
  // then wrote to freed memory (a crash, or heap corruption).
  const auto run = ksim::testing::run_scenario(
      "releases/zk-reassign-partitions", 3375731828816117629ULL,
      {"nemesis={start: 1s, end: 40s, latency_spike: {rate: 0.025980139/s, duration: {distribution: uniform, min: "
       "100ms, max: 6966455108ns}, extra: 843653023ns}, jitter_burst: {rate: 0.059342163/s, duration: {distribution: "
       "uniform, min: 100ms, max: 2331477411ns}, jitter: {distribution: pareto, scale: 100us, shape: 1.2}}, shutdown: "
       "{rate: 0.154767566/s, duration: {distribution: uniform, min: 100ms, max: 5830414348ns}, targets: [brokers]}}"});
  CHECK(run.status == ksim::app::kExitOk);
  CHECK(run.report["controller"]["controlled_shutdowns"].get<int>() >= 1);
}
