// KIP-455 partition reassignment end to end (scenarios/reassign-partitions.yaml
// and inline variants): replicas move onto a new broker under load with
// nothing lost; a cancelled move puts the old replicas back; a move whose
// new broker crashes completes once it returns.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "app/harness/cluster.hpp"
#include "tests/support/moving_cluster.hpp"
#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_scenario;

namespace {

using ksim::models::BrokerId;
using ksim::models::TopicPartition;

using ksim::testing::moving_cluster;

std::vector<BrokerId> replicas_of(const ksim::app::Cluster& cluster, TopicPartition tp) {
  return cluster.controller()->partitions().at(tp).replicas;
}

// Runs `yaml`, checks that nothing was lost, and returns what the reassignments did.
ksim::models::ReassignmentFigures run_moves(const std::string& yaml, std::uint64_t seed) {
  const auto report = ksim::testing::run_inline(yaml, seed);
  REQUIRE(report.kafka);
  CHECK(report.kafka->delivery.lost == 0);
  CHECK(report.kafka->delivery.duplicated == 0);
  CHECK(report.kafka->delivery.acknowledged > 100000);
  CHECK(report.kafka->invariant_violations == 0);
  REQUIRE(report.kafka->groups.size() == 1);
  CHECK(report.kafka->groups[0].report.unprocessed == 0);
  CHECK(report.kafka->operations.operation_errors == 0);
  return report.kafka->operations.reassignments;
}

}  // namespace

TEST_CASE("replicas move onto a new broker under load with nothing lost", "[kip455][system]") {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    INFO("seed " << seed);
    const auto run = run_scenario("reassign-partitions", seed);
    CHECK(run.status == ksim::app::kExitOk);  // its expectations: nothing lost, every move completed
    const auto& r = run.report["reassignments"];
    CHECK(r["started"] == 4);
    CHECK(r["completed"] == 4);
    CHECK(r["in_progress"] == 0);
    CHECK(r["replicas_created"] == 4);
    CHECK(r["replicas_deleted"] == 4);
    CHECK(r["bytes_deleted"].get<double>() > 10e6);  // ten seconds of records each
    CHECK(r["operation_errors"] == 0);
    CHECK(run.report["delivery"]["lost"] == 0);
    CHECK(run.report["delivery"]["duplicated"] == 0);
  }
  // The replica sets are the targets; broker 0 holds none of the topic; broker
  // 3, first in partition 0's and 3's targets, leads them (their leader, 0, left).
  auto document = ksim::config::Document::load_file(std::string(KSIM_SOURCE_DIR) + "/scenarios/reassign-partitions.yaml");
  const auto scenario = ksim::app::read_scenario(document, ksim::app::expectation_catalogue());
  ksim::app::Cluster cluster(scenario, ksim::app::RunOptions{});
  cluster.run();
  CHECK(replicas_of(cluster, {0, 0}) == std::vector<BrokerId>{3, 1, 2});
  CHECK(replicas_of(cluster, {0, 1}) == std::vector<BrokerId>{1, 2, 3});
  CHECK(replicas_of(cluster, {0, 3}) == std::vector<BrokerId>{3, 2, 1});
  for (std::int32_t p = 0; p < 4; ++p) CHECK(cluster.brokers()[0]->partition({0, p}) == nullptr);
  CHECK(cluster.brokers()[3]->is_leader({0, 0}));
  CHECK(cluster.brokers()[3]->is_leader({0, 3}));
  // Broker 0 holds no replica of partition 0 any more, but its metadata still names the leader: a
  // producer or consumer that asks it (NOT_LEADER_OR_FOLLOWER) is sent to broker 3 at once (KIP-951).
  const auto hint = cluster.brokers()[0]->leader_hint({0, 0});
  REQUIRE(hint.has_value());
  CHECK(hint->first == 3);
  CHECK(hint->second == cluster.controller()->partitions().at({0, 0}).leader_epoch);
  CHECK_FALSE(cluster.brokers()[3]->leader_hint({0, 0}).has_value());  // it leads: nothing to point to
  const auto state = cluster.controller()->partitions().at({0, 2});
  CHECK(state.adding.empty());
  CHECK(state.removing.empty());
}

TEST_CASE("a cancelled reassignment puts the original replicas back", "[kip455][system]") {
  const std::string& operations = ksim::testing::kCancelledMove;
  const std::string& faults = ksim::testing::kSlowBroker3;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    const auto r = run_moves(moving_cluster(operations, faults), seed);
    ksim::testing::check_cancelled_move(r);
  }
  // Cancelling again: nothing is in progress (NO_REASSIGNMENT_IN_PROGRESS).
  const auto again = ksim::testing::run_inline(moving_cluster(operations + R"(
  - {at: 20s, kind: cancel_reassignment, topic: orders, partitions: [0]}
)", faults));
  CHECK(again.kafka->operations.operation_errors == 1);
  REQUIRE(again.kafka->operations.operations.size() == 3);
  CHECK(again.kafka->operations.operations[2].errors == std::vector<std::string>{"orders-0: NO_REASSIGNMENT_IN_PROGRESS"});
}

TEST_CASE("a reassignment whose new broker crashes completes once it returns", "[kip455][system]") {
  const std::string operations = R"(
  - {at: 10s, kind: reassign_partitions, topic: orders, replicas: {0: [3, 1, 2], 1: [1, 2, 3]}}
)";
  const std::string faults = R"(
  - {kind: crash, at: 10.01s, duration: 5s, nodes: [broker-3]}
)";
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    const auto r = run_moves(moving_cluster(operations, faults), seed);
    CHECK(r.completed == 2);
    CHECK(r.in_progress == 0);
    CHECK(r.longest > ksim::seconds(5));  // not before broker 3 is back and caught up
  }
}

TEST_CASE("a throttled reassignment copies at the throttled rate", "[kip455][system]") {
  // --throttle 4MB/s at 25 s: each moved partition has 25 s of 1.25 MB/s to
  // copy (31 MB) and gains 1.25 MB/s until the producers stop at 30 s.
  // Kafka's quotas let about ten seconds' worth (40 MB) through at once, then
  // hold 4 MB/s. Each leader's quota alone would let its partition through in
  // that burst (one move takes a fraction of a second); but both moves go to
  // broker 3, whose follower quota (follower.replication.throttled.rate) holds
  // the two together (62 MB and more) to 4 MB/s after its burst.
  const std::string moves = R"(
  - {at: 25s, kind: reassign_partitions, topic: orders, replicas: {0: [3, 1, 2], 1: [1, 2, 3]})";
  const std::string one_move = R"(
  - {at: 25s, kind: reassign_partitions, topic: orders, replicas: {0: [3, 1, 2]}, throttle: 4MB/s})";
  const auto unthrottled = run_moves(moving_cluster(moves + "}\n"), 1);
  const auto throttled = run_moves(moving_cluster(moves + ", throttle: 4MB/s}\n"), 1);
  const auto alone = run_moves(moving_cluster(one_move + "\n"), 1);
  CHECK(unthrottled.completed == 2);
  CHECK(unthrottled.longest < ksim::seconds(1));
  CHECK(alone.completed == 1);
  CHECK(alone.longest < ksim::seconds(1));
  CHECK(throttled.completed == 2);
  CHECK(throttled.longest > ksim::seconds(8));
  CHECK(throttled.longest < ksim::seconds(15));
}

TEST_CASE("decommissioning a broker moves every replica of the topics off it", "[kip455][system]") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    const std::string yaml = moving_cluster("  - {at: 10s, kind: decommission_broker, broker: 0}\n");
    const auto scenario = ksim::testing::parse_scenario(yaml);
    ksim::app::Cluster cluster(scenario, ksim::app::RunOptions{});
    cluster.run();
    for (std::int32_t p = 0; p < 4; ++p) {
      const auto replicas = replicas_of(cluster, {0, p});
      CHECK(replicas.size() == 3);
      CHECK(std::find(replicas.begin(), replicas.end(), 0) == replicas.end());
      CHECK(cluster.brokers()[0]->partition({0, p}) == nullptr);
    }
    const auto report = ksim::app::make_report(cluster, 0);
    CHECK(report.kafka->delivery.lost == 0);
    CHECK(report.kafka->operations.operation_errors == 0);
    const auto& r = report.kafka->operations.reassignments;
    CHECK(r.started == r.completed);  // partitions already placed as proposed are not reassigned
    CHECK(r.started >= 4);            // broker 0 held a replica of each
    CHECK(r.replicas_deleted >= 4);
  }
  // A topic on every broker cannot leave one.
  CHECK_THAT(ksim::testing::scenario_error(R"(
brokers: {count: 3}
topics: [{name: t, partitions: 1, replication_factor: 3}]
operations: [{at: 1s, kind: decommission_broker, broker: 1}]
)"),
             Catch::Contains("has replication factor 3: the other brokers cannot hold it"));
}

TEST_CASE("a decommission with internal_topics moves __consumer_offsets off the broker too", "[kip455][system]") {
  // The tool moves the topics it is given: without the internal ones the broker keeps its replicas of
  // __consumer_offsets (and may still coordinate groups); with them it is left with nothing.
  const auto offsets_on_broker_0 = [](const ksim::app::Cluster& cluster) {
    int held = 0;
    for (const auto& [tp, state] : cluster.controller()->partitions()) {
      if (cluster.topic_name(tp.topic) != "__consumer_offsets") continue;
      held += std::find(state.replicas.begin(), state.replicas.end(), 0) != state.replicas.end() ? 1 : 0;
    }
    return held;
  };
  for (const bool internal : {false, true}) {
    INFO("internal_topics " << internal);
    const std::string flag = internal ? ", internal_topics: true" : "";
    const auto scenario =
        ksim::testing::parse_scenario(moving_cluster("  - {at: 10s, kind: decommission_broker, broker: 0" + flag + "}\n"));
    ksim::app::Cluster cluster(scenario, ksim::app::RunOptions{});
    cluster.run();
    const auto report = ksim::app::make_report(cluster, 0);
    CHECK(report.kafka->delivery.lost == 0);
    CHECK(report.kafka->groups[0].report.unprocessed == 0);
    CHECK(report.kafka->operations.operation_errors == 0);
    if (internal) {
      CHECK(offsets_on_broker_0(cluster) == 0);
      CHECK(cluster.brokers()[0]->log_dir_stats()[0].partitions == 0);
    } else {
      CHECK(offsets_on_broker_0(cluster) > 0);  // 50 partitions with RF 3 over 4 brokers
    }
  }
}

TEST_CASE("a reassignment to the replicas a partition has changes nothing, a new order completes at once",
          "[kip455][system]") {
  // changeRecordIsNoOp: partition 0 already has [0, 1, 2].
  const auto same = run_moves(moving_cluster("  - {at: 10s, kind: reassign_partitions, topic: orders, replicas: {0: [0, 1, 2]}}\n"), 1);
  CHECK(same.started == 0);
  CHECK(same.replicas_created == 0);
  // The same replicas in another order: no replica added or removed, complete in the same change.
  const auto reordered = run_moves(moving_cluster("  - {at: 10s, kind: reassign_partitions, topic: orders, replicas: {0: [2, 1, 0]}}\n"), 1);
  CHECK(reordered.started == 1);
  CHECK(reordered.completed == 1);
  CHECK(reordered.in_progress == 0);
  CHECK(reordered.longest == 0);
  CHECK(reordered.replicas_created == 0);
}

// LogManager.asyncDelete: a removed replica's log is renamed *-delete and
// removed file.delete.delay.ms later (deleteLogs); its bytes hold the disk
// until then, and count against its capacity.
TEST_CASE("a removed replica's log leaves the disk file.delete.delay.ms later", "[kip455][system]") {
  const auto disk_excess = [](const ksim::testing::ScenarioRun& run, BrokerId broker) {
    std::uint64_t excess = 0;
    for (const auto& dir : run.report["log_dirs"]) {
      if (dir["broker"] != broker) continue;
      excess += dir["disk_bytes"].get<std::uint64_t>() - dir["bytes"].get<std::uint64_t>();
    }
    return excess;
  };
  // The moves complete about 11 s in; the run ends at 40 s.
  const auto kept = run_scenario("reassign-partitions", 1);
  const auto freed = run_scenario("reassign-partitions", 1, {"brokers.config[log.segment.delete.delay.ms]=5000"});
  REQUIRE(kept.status == ksim::app::kExitOk);
  REQUIRE(freed.status == ksim::app::kExitOk);
  // Broker 0 gave up two replicas: still on its disk 60 s on, gone 5 s on.
  const auto deleted = kept.report["reassignments"]["bytes_deleted"].get<std::uint64_t>();
  CHECK(deleted > 10'000'000);
  CHECK(disk_excess(kept, 0) == deleted);
  CHECK(disk_excess(freed, 0) == 0);
  for (BrokerId b = 0; b < 4; ++b) CHECK(disk_excess(freed, b) == 0);
}
