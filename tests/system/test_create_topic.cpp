// A topic created while the cluster runs (scenarios/create-topic.yaml and
// inline variants): the controller creates it at the operation's time, the
// producer's send() waits for it in waitOnMetadata (or gives up after
// max.block.ms), the consumer group rebalances onto it, and a broker that was
// down when it was created creates its replicas from the metadata log.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_scenario;
using ksim::testing::ScenarioRun;

namespace {

int created_topic_partitions_on(const ScenarioRun& run, int broker) {
  for (const auto& d : run.report["log_dirs"]) {
    if (d["broker"] == broker) return d["partitions"].get<int>();
  }
  return -1;
}

}  // namespace

TEST_CASE("create-topic: send() waits for a topic created at 15 s, the group rebalances onto it, nothing lost",
          "[create-topic][scenarios]") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const ScenarioRun run = run_scenario("create-topic", seed);
    INFO("seed " << seed << ": " << run.report["expectations"].dump() << " " << run.report["operations"].dump());
    CHECK(run.status == ksim::app::kExitOk);
    CHECK(run.report["delivery"]["lost"] == 0);
    CHECK(run.report["delivery"]["duplicated"] == 0);
    CHECK(run.report["groups"][0]["unprocessed"] == 0);
    CHECK(run.report["groups"][0]["processed"].get<std::int64_t>() > 60000);
    const auto& op = run.report["operations"][0];
    CHECK(op["applied_at_ms"].get<double>() == Approx(15000).margin(1));
    CHECK(op["errors"].empty());
    CHECK(run.report["producer"]["metadata_waits"].get<int>() >= 1);
    // The records sent before the topic existed waited for it: the latency's tail is the wait, about 15 s
    // less the time the cluster took to get ready.
    CHECK(run.report["latency_ms"]["max"].get<double>() > 13000);
    CHECK(run.report["latency_ms"]["max"].get<double>() < 16000);
    CHECK(run.report["producer"]["longest_block_ms"].get<double>() > 13000);
  }
}

TEST_CASE("create-topic: past max.block.ms each send() fails with 'not present in metadata'", "[create-topic]") {
  const ScenarioRun run = run_scenario("create-topic", 1, {"producers.0.config[max.block.ms]=4000", "expect={lost: 0}"});
  CHECK(run.status == ksim::app::kExitOk);
  // One send() at a time gives up, after 4 s each, until the topic appears at 15 s: three or four of them.
  const auto failed = run.report["delivery"]["failed"].get<int>();
  CHECK(failed >= 3);
  CHECK(failed <= 4);
  CHECK_THAT(run.report["delivery"]["failed_because"].get<std::string>(),
             Catch::Contains("TIMEOUT (topic not present in metadata)"));
  CHECK(run.report["delivery"]["lost"] == 0);
  CHECK(run.report["groups"][0]["unprocessed"] == 0);
  CHECK(run.report["producer"]["longest_block_ms"].get<double>() == Approx(4000).margin(1));
}

TEST_CASE("create-topic: KIP-848's coordinator assigns the new topic's partitions when it appears",
          "[create-topic][kip848]") {
  const ScenarioRun run =
      run_scenario("create-topic", 1, {"consumers.0.config[group.protocol]=consumer", "kafka_version=\"4.0\""});
  INFO(run.report["expectations"].dump());
  CHECK(run.status == ksim::app::kExitOk);
  CHECK(run.report["groups"][0]["unprocessed"] == 0);
  CHECK(run.report["groups"][0]["processed"].get<std::int64_t>() > 60000);
  // Nothing to assign until the coordinator's broker has the topic; the next heartbeat after it then gets
  // a new target assignment (GroupMetadataManager: the subscribed topics' metadata changed).
  const auto& log = run.report["groups"][0]["rebalance_log"];
  REQUIRE(!log.empty());
  CHECK(log.back()["trigger"] == "partition metadata");
  CHECK(log.back()["started_s"].get<double>() > 15.0);
  CHECK(log.back()["partitions_moved"] == 6);
}

TEST_CASE("create-topic: a broker down when the topic is created replays it from the metadata log and catches up",
          "[create-topic][kip631]") {
  // Three controllers (KIP-631's metadata log, which the broker replays on restart). The placement puts
  // replicas on broker-2 while it is fenced; the ISR leaves it out until it returns and catches up.
  const ScenarioRun run = run_scenario(
      "create-topic", 1,
      {"controllers.count=3", "faults=[{kind: crash, nodes: [broker-2], at: 10s, duration: 15s}]",
       "expect={lost: 0, duplicated: 0}"});
  INFO(run.report["expectations"].dump() << " " << run.report["operations"].dump());
  CHECK(run.status == ksim::app::kExitOk);
  CHECK(run.report["operations"][0]["errors"].empty());
  CHECK(run.report["groups"][0]["unprocessed"] == 0);
  // broker-2 holds every partition of `orders` (RF 3 over 3 brokers) besides its __consumer_offsets ones.
  CHECK(created_topic_partitions_on(run, 2) == created_topic_partitions_on(run, 0));
  CHECK(run.report["replica_divergences_at_end"] == 0);
  CHECK(run.report["invariant_violations"] == 0);
}

TEST_CASE("create-topic: with every broker fenced the controller refuses: INVALID_REPLICATION_FACTOR",
          "[create-topic]") {
  // All three brokers crash at 3 s and are fenced after broker.session.timeout.ms (9 s): at 15 s no broker is
  // active, so no partition could have an ISR ("All brokers are currently fenced or in controlled shutdown").
  const ScenarioRun run = run_scenario(
      "create-topic", 1,
      {"faults=[{kind: crash, nodes: [brokers], at: 3s, duration: 20s}]", "expect={}"});
  const auto& errors = run.report["operations"][0]["errors"];
  REQUIRE(errors.size() == 6);
  CHECK(errors[0] == "orders-0: INVALID_REPLICATION_FACTOR");
  CHECK(run.report["delivery"]["acknowledged"] == 0);
}

TEST_CASE("create-topic: a rebalance that completes after the topic appears still ends with its partitions",
          "[create-topic]") {
  // Found by ksim explore: the coordinator crashes during the group's first rebalance, which completes at
  // 17.3 s, after the creation; the leader saw the topic appear while waiting for its SyncGroup answer. Its
  // assignment snapshot (no partitions) must make it rejoin once that rebalance completes, as Kafka's
  // rejoinNeededOrPending does on the next poll, rather than be forgotten.
  const ScenarioRun run = run_scenario(
      "create-topic", 18397852227377538053ULL,
      {"nemesis={start: 1s, end: 40s, crash: {rate: 0.097860883/s, duration: {distribution: uniform, min: 100ms, "
       "max: 4088758047ns}, targets: [brokers]}, latency_spike: {rate: 0.086673319/s, duration: {distribution: "
       "uniform, min: 100ms, max: 6351350455ns}, extra: 3834931922ns}, jitter_burst: {rate: 0.096009076/s, duration: "
       "{distribution: uniform, min: 100ms, max: 6869806359ns}, jitter: {distribution: pareto, scale: 100us, shape: 1.2}}}"});
  CHECK(run.status == ksim::app::kExitOk);
  CHECK(run.report["groups"][0]["unprocessed"] == 0);
  const auto& log = run.report["groups"][0]["rebalance_log"];
  REQUIRE(log.size() >= 2);
  CHECK(log[0]["duration_s"].get<double>() > 14.0);  // the first rebalance outlived the creation
}

TEST_CASE("a topic created during the run that is numbered before others is checked as its own partitions",
          "[create-topic][invariants]") {
  // `late` is topic 1, created at 5 s, the last topic (no consumers or transactions: no internal
  // topics after it). The invariants' per-partition epochs were sized by the topics that existed at the
  // start, so `late`'s partitions fell past the end (a crash of ksim), and the availability tracker left
  // `late` out. A broker crash after the creation moves leaders of every topic: each partition's
  // epochs are checked on their own, and the writes of both topics wait for broker-0 (in every ISR).
  const ksim::app::RunReport report = ksim::testing::run_inline(R"(
duration: 12s
drain: 3s
network: {racks: [r1, r2, r3]}
brokers: {count: 3, config: {auto.create.topics.enable: false}}
topics:
  - {name: early, partitions: 3, config: {min.insync.replicas: 2}}
  - {name: late, partitions: 3, config: {min.insync.replicas: 2}}
producers:
  - {name: app, topic: early, rate: 500/s, record_size: 100B}
  - {name: later, topic: late, rate: 500/s, record_size: 100B, start: 6s}
operations:
  - {at: 5s, kind: create_topic, topic: late}
faults:
  - {kind: crash, at: 7s, duration: 2s, nodes: [broker-0]}
)");
  REQUIRE(report.kafka);
  CHECK(report.kafka->invariant_violations == 0);
  CHECK(report.kafka->delivery.lost == 0);
  CHECK(report.kafka->delivery.acknowledged > 5000);
  CHECK(report.kafka->availability.writes.partitions == 6);  // 3 before the availability fix
}

TEST_CASE("ground-truth/create-topic: send() waits for the topic created at 8 s, the group reads everything",
          "[create-topic][ground-truth]") {
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    const ScenarioRun run = run_scenario("ground-truth/create-topic", seed);
    INFO("seed " << seed << ": " << run.report["expectations"].dump());
    CHECK(run.status == ksim::app::kExitOk);
    CHECK(run.report["delivery"]["lost"] == 0);
    CHECK(run.report["groups"][0]["unprocessed"] == 0);
    CHECK(run.report["groups"][0]["processed"].get<std::int64_t>() > 20000);
    CHECK(run.report["producer"]["metadata_waits"].get<int>() >= 1);
  }
}
