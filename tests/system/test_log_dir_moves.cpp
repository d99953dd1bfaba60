// KIP-113 end to end: replicas move between the log dirs of their broker
// online (scenarios/jbod-rebalance.yaml and inline variants), under load,
// with nothing lost; a throttle slows a move; a crash or a power loss of the
// broker during a move leaves a future replica that resumes after the
// restart; a failed target dir abandons the move; a dir named for a replica
// the broker does not host yet is where that replica is created later.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>

#include "app/harness/cluster.hpp"
#include "tests/support/scenario_runner.hpp"

namespace {

// Three brokers with two log dirs each; four partitions of RF 3; a producer
// of 500 records/s of 1 KB (125 KB/s a partition); `operations` and `faults` appended.
std::string two_dir_cluster(const std::string& operations, const std::string& faults = "",
                            const std::string& drain = "10s") {
  return R"(
name: log-dir-move-test
duration: 40s
drain: )" + drain + R"(
brokers:
  count: 3
  log_dirs:
    - {path: /data/a, capacity: 100GB}
    - {path: /data/b, capacity: 100GB}
topics:
  - name: orders
    partitions: 4
    replication_factor: 3
    config: {min.insync.replicas: 2}
producers:
  - {name: app, topic: orders, rate: 500/s, record_size: 1KB}
consumers:
  - {name: readers, topic: orders, count: 2, config: {auto.offset.reset: earliest}}
operations:
)" + operations + (faults.empty() ? "" : "faults:\n" + faults);
}

// Partitions 0 and 2 of broker 0 (placed on /data/a, by the fewest partitions) move to /data/b at 20 s.
std::string move_two(const std::string& throttle = "") {
  return "  - {at: 20s, kind: alter_replica_log_dirs, broker: 0, topic: orders, log_dirs: {0: /data/b, 2: /data/b}" +
         (throttle.empty() ? std::string() : ", throttle: " + throttle) + "}\n";
}

const ksim::app::OperationFigures& checked(const ksim::app::RunReport& report) {
  REQUIRE(report.kafka);
  CHECK(report.kafka->delivery.lost == 0);
  CHECK(report.kafka->delivery.duplicated == 0);
  CHECK(report.kafka->delivery.acknowledged > 10000);
  CHECK(report.kafka->invariant_violations == 0);
  REQUIRE(report.kafka->groups.size() == 1);
  CHECK(report.kafka->groups[0].report.unprocessed == 0);
  return report.kafka->operations;
}

}  // namespace

TEST_CASE("alter_replica_log_dirs moves a leader's and a follower's replica to another dir under load", "[kip113]") {
  for (const std::uint64_t seed : {1, 2, 3}) {
    INFO("seed " << seed);
    const auto report = ksim::testing::run_inline(two_dir_cluster(move_two()), seed);
    const auto& o = checked(report);  // (the report outlives `o`)
    CHECK(o.operation_errors == 0);
    CHECK(o.log_dir_moves.started == 2);
    CHECK(o.log_dir_moves.completed == 2);
    CHECK(o.log_dir_moves.in_progress == 0);
    CHECK(o.log_dir_moves.bytes_moved > 2 * 2'000'000);  // 20 s at 125 KB/s each, at least
    REQUIRE(o.operations.size() == 1);
    const auto& before = o.operations[0].log_dirs_before;
    const auto& after = o.operations[0].log_dirs_after;
    REQUIRE(before.size() == 2);
    REQUIRE(after.size() == 2);
    CHECK(after[0].second < before[0].second);  // /data/a gave its two replicas away (their bytes freed)
    CHECK(after[1].second > before[1].second + before[0].second);  // /data/b holds all four, and more since
  }
}

TEST_CASE("a log dir move throttled by replica.alter.log.dirs.io.max.bytes.per.second takes longer", "[kip113]") {
  const auto fast_run = ksim::testing::run_inline(two_dir_cluster(move_two()), 1);
  const auto slow_run = ksim::testing::run_inline(two_dir_cluster(move_two("300KB/s")), 1);
  const auto& fast = checked(fast_run).log_dir_moves;
  const auto& slow = checked(slow_run).log_dir_moves;
  REQUIRE(fast.completed == 2);
  REQUIRE(slow.completed == 2);
  // KIP-858: the caught-up copy waits for the controller to accept its dir
  // (the AssignmentsManager batches for 100 ms): a quick move takes that.
  CHECK(fast.longest < ksim::milliseconds(300));
  CHECK(slow.longest > ksim::seconds(2));  // past the Rate's ten-second burst, 300 KB/s against 125 KB/s written
}

TEST_CASE("with a CPU model a log dir move's copy takes its thread's CPU time", "[kip113]") {
  // The ReplicaAlterLogDirsThread appends what it copies as a replica fetcher does: at 2 us a byte
  // (the profile's follower_ns_per_byte raised a thousandfold) the 2 x 2.5 MB take seconds of CPU.
  const std::string profile = "profile: {name: laptop-ssd, broker_costs: {follower_ns_per_byte: 2000}}\n";
  const auto cheap_run = ksim::testing::run_inline(two_dir_cluster(move_two()) + "profile: laptop-ssd\n", 1);
  const auto costly_run = ksim::testing::run_inline(two_dir_cluster(move_two()) + profile, 1);
  REQUIRE(cheap_run.kafka);
  REQUIRE(costly_run.kafka);
  const auto& cheap = cheap_run.kafka->operations.log_dir_moves;
  const auto& costly = costly_run.kafka->operations.log_dir_moves;
  REQUIRE(cheap.completed == 2);
  REQUIRE(costly.completed == 2);
  CHECK(cheap.longest < ksim::milliseconds(300));
  CHECK(costly.longest > ksim::seconds(1));
}

TEST_CASE("a broker crash or power loss during a log dir move resumes it after the restart", "[kip113]") {
  for (const bool power_loss : {false, true}) {
    for (const std::uint64_t seed : {1, 2}) {
      INFO("power loss " << power_loss << ", seed " << seed);
      const std::string crash = "  - {kind: crash, at: 21s, duration: 3s, nodes: [broker-0], power_loss: " +
                                std::string(power_loss ? "true" : "false") + "}\n";
      // A machine that loses power sends no reset: a consumer whose fetch was
      // in flight to it waits request.timeout.ms (30 s) before it closes the
      // connection and asks for the new leader (NetworkClient), so the run
      // drains past 51 s.
      const auto report =
          ksim::testing::run_inline(two_dir_cluster(move_two("300KB/s"), crash, power_loss ? "25s" : "10s"), seed);
      const auto& o = checked(report);
      CHECK(o.log_dir_moves.started == 2);
      CHECK(o.log_dir_moves.completed == 2);
      CHECK(o.log_dir_moves.abandoned == 0);
      CHECK(o.log_dir_moves.longest > ksim::seconds(4));  // past the restart
    }
  }
}

TEST_CASE("in KRaft from 3.7 a log dir move ends only once the controller accepted the new dir (KIP-858)", "[kip113]") {
  // The controller is down from 19 s to 29 s; the move starts at 20 s.
  const std::string down = "  - {kind: crash, at: 19s, duration: 10s, nodes: [controller]}\n";
  for (const char* version : {"3.6", "4.3"}) {
    INFO("Kafka " << version);
    const auto report =
        ksim::testing::run_inline(two_dir_cluster(move_two(), down), 1, {std::string("kafka_version=") + version});
    const auto& moves = checked(report).log_dir_moves;
    CHECK(moves.completed == 2);
    if (std::string(version) == "3.6") {
      CHECK(moves.longest < ksim::milliseconds(100));  // promoted at once, the controller never told
    } else {
      CHECK(moves.longest > ksim::seconds(9));  // AssignReplicasToDirs waits for the controller
      CHECK(moves.longest < ksim::seconds(20));
    }
  }
}

TEST_CASE("a log dir move whose target dir fails is abandoned, the replica stays where it was", "[kip113]") {
  const std::string failure = "  - {kind: disk_failure, at: 21s, nodes: [broker-0], log_dir: /data/b}\n";
  const auto report = ksim::testing::run_inline(two_dir_cluster(move_two("300KB/s"), failure), 1);
  const auto& o = checked(report);
  CHECK(o.log_dir_moves.started == 2);
  // One thread moves both, one at a time: orders-0 fitted in the throttle's burst and was done at 20 s.
  CHECK(o.log_dir_moves.completed == 1);
  CHECK(o.log_dir_moves.abandoned == 1);
  REQUIRE(o.abandoned_moves.size() == 1);
  CHECK(o.abandoned_moves[0] == "orders-2 on broker 0: target log dir failed");
}

TEST_CASE("alterReplicaLogDirs for a replica the broker does not host yet places it when it comes", "[kip113]") {
  // Broker 3 hosts nothing of orders-0 at 5 s: REPLICA_NOT_AVAILABLE, and the
  // dir is remembered; the reassignment at 6 s creates the replica there.
  std::string yaml = two_dir_cluster(
      "  - {at: 5s, kind: alter_replica_log_dirs, broker: 3, topic: orders, log_dirs: {0: /data/b}}\n"
      "  - {at: 6s, kind: reassign_partitions, topic: orders, replicas: {0: [3, 1, 2]}}\n");
  yaml.replace(yaml.find("count: 3"), 8, "count: 4");
  const auto report = ksim::testing::run_inline(yaml, 1);
  const auto& o = checked(report);
  REQUIRE(o.operations.size() == 2);
  REQUIRE(o.operations[0].errors.size() == 1);
  CHECK(o.operations[0].errors[0] == "orders-0: REPLICA_NOT_AVAILABLE");
  CHECK(o.reassignments.completed == 1);
  // Without the preference orders-0 would go to /data/a, the first of two dirs with as many
  // partitions (of __consumer_offsets) each.
  REQUIRE(report.kafka->log_dirs.size() == 8);
  std::map<std::string, std::int32_t> partitions;
  for (const auto& d : report.kafka->log_dirs) {
    if (d.broker == 3) partitions[d.stats.path] = d.stats.partitions;
  }
  CHECK(partitions["/data/b"] == partitions["/data/a"] + 1);
}

TEST_CASE("jbod-rebalance.yaml: balance_log_dirs evens out a skewed broker's dirs online", "[kip113][scenarios]") {
  for (const std::uint64_t seed : {1, 2, 3}) {
    INFO("seed " << seed);
    ksim::config::Document document =
        ksim::config::Document::load_file(std::string(KSIM_SOURCE_DIR) + "/scenarios/jbod-rebalance.yaml");
    document.apply_override("seed=" + std::to_string(seed));
    const ksim::app::Scenario scenario = ksim::app::read_scenario(document, ksim::app::expectation_catalogue());
    ksim::app::Cluster cluster(scenario, {});
    cluster.run();
    const auto report = ksim::app::make_report(cluster, 0);
    REQUIRE(report.kafka);
    CHECK(report.kafka->delivery.lost == 0);
    CHECK(report.kafka->delivery.duplicated == 0);
    CHECK(report.expectations_held());
    const auto& o = report.kafka->operations;
    CHECK(o.log_dir_moves.completed >= 2);
    CHECK(o.log_dir_moves.in_progress == 0);
    REQUIRE(o.operations.size() == 1);
    const auto skew = [](const auto& dirs) {
      std::uint64_t total = 0;
      std::uint64_t fullest = 0;
      for (const auto& [path, bytes] : dirs) {
        total += bytes;
        fullest = std::max(fullest, bytes);
      }
      return static_cast<double>(fullest) * static_cast<double>(dirs.size()) / static_cast<double>(total);
    };
    const double before = skew(o.operations[0].log_dirs_before);
    REQUIRE(o.operations[0].moves_done_at != ksim::kNever);
    const double after = skew(o.operations[0].log_dirs_after_moves);
    INFO("skew before " << before << ", after the moves " << after << ", at the end " << o.log_dir_skew);
    // The best a placement can do: the largest replica alone in a dir (the
    // hottest partition of the Zipf keys holds more than a dir's fair share).
    std::uint64_t total = 0;
    std::uint64_t largest = 0;
    for (const auto& r : cluster.brokers()[0]->replica_placements()) {
      total += r.bytes;
      largest = std::max(largest, r.bytes);
    }
    const double best = std::max(1.0, 3.0 * static_cast<double>(largest) / static_cast<double>(total));
    INFO("the best possible " << best);
    CHECK(before > 1.5);          // Zipf keys: the dirs are far apart in bytes
    CHECK(after < before - 0.25);  // and much closer once the moves are done:
    CHECK(after < best + 0.03);    // as close as the replicas' sizes allow
  }
}
