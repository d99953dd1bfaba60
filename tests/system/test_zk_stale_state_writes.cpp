// The ZooKeeper-era controller's state writes that fail on a version: before
// KIP-497 (2.7) a leader writes its own ISR to the partition's state znode,
// so the controller's write of an election or an ISR change made on the
// version it last read can fail with BADVERSION. Kafka reads the state again
// and redoes it (PartitionStateMachine.electLeaderForPartitions,
// `updatesToRetry`); ksim dropped such an election, and partitions stayed
// without a leader to the end.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_scenario;

// Found by ksim explore of chaos.yaml on 2.4 (run 73 of root seed 5): broker-2
// leads all eight partitions with ISR {2} (it wrote the shrinks itself),
// crashes and restarts within its 6 s session; at the session's expiry the
// partitions go offline, and at its new registration the controller elects it
// again, on partition state versions the leader's own writes had moved.
TEST_CASE("zookeeper era before KIP-497: an election whose state write meets a leader's own ISR write is redone "
          "on the state read again",
          "[zookeeper][system]") {
  const auto run = run_scenario(
      "chaos", 10702932270423238297ULL,
      {"kafka_version=2.4", "producers.0.config[acks]=all", "producers.0.config[enable.idempotence]=true",
       "nemesis={start: 1s, end: 30s, crash: {rate: 0.177377756/s, duration: {distribution: uniform, min: 100ms, "
       "max: 1943342371ns}, targets: [brokers]}, pause: {rate: 0.083794986/s, duration: {distribution: uniform, "
       "min: 100ms, max: 4368888551ns}, targets: [brokers]}, latency_spike: {rate: 0.024507938/s, duration: "
       "{distribution: uniform, min: 100ms, max: 3319115511ns}, extra: 4107919678ns}, shutdown: {rate: "
       "0.020602955/s, duration: {distribution: uniform, min: 100ms, max: 7247737856ns}, targets: [brokers]}}"});
  CHECK(run.report["offline_partitions"].empty());  // all eight, before
  CHECK(run.report["delivery"]["verdict"] == "exactly-once");
  CHECK(run.report["delivery"]["unavailable"] == 0);
  CHECK(run.report["delivery"]["acknowledged"].get<int>() > 50000);
  CHECK(run.report["invariant_violations"] == 0);
}

// Found by ksim explore of chaos.yaml on 2.4 (run 264 of root seed 5): broker-2,
// cut off, leads partition 0-0 while the controller drops broker-1 from its ISR
// (a new leader epoch). At 30 s broker-2 shrinks the ISR it knows to itself; its
// write, at the version it last knew, fails. Kafka's Partition.maybeUpdateIsrAndVersion then
// keeps the ISR as it was ("Cached zkVersion not equal to that in zookeeper,
// skip updating ISR"); ksim took the ISR it had proposed as committed, advanced
// the high watermark past broker-3, still in the ISR, and the controller's
// epoch, arriving next, kept it there.
TEST_CASE("zookeeper era before KIP-497: a leader whose own ISR write fails keeps the ISR it had",
          "[zookeeper][system]") {
  const auto run = run_scenario(
      "chaos", 10428781796121482305ULL,
      {"kafka_version=2.4", "producers.0.config[acks]=all", "producers.0.config[enable.idempotence]=true",
       "nemesis={start: 1s, end: 30s, pause: {rate: 0.023452104/s, duration: {distribution: uniform, min: 100ms, "
       "max: 1445820891ns}, targets: [brokers]}, partition: {rate: 0.107399241/s, duration: {distribution: uniform, "
       "min: 100ms, max: 6989505197ns}, targets: [brokers]}, jitter_burst: {rate: 0.164534439/s, duration: "
       "{distribution: uniform, min: 100ms, max: 1886729523ns}, jitter: {distribution: pareto, scale: 100us, shape: "
       "1.2}}, shutdown: {rate: 0.099485807/s, duration: {distribution: uniform, min: 100ms, max: 7729230798ns}, "
       "targets: [brokers]}}"});
  CHECK(run.report["invariant_violations"] == 0);  // high_watermark_within_isr twice, before
  CHECK(run.report["delivery"]["verdict"] == "exactly-once");
  CHECK(run.report["delivery"]["acknowledged"].get<int>() > 50000);
}

// Found by ksim explore of chaos.yaml on 2.0 (run 143 of root seed 11): broker-0
// leads 0-0 and shrinks its ISR; its ZooKeeper connection is lost before the
// answer, and the write, sent again on the next connection, fails on the version
// its first try moved. Kafka's ReplicationUtils.checkLeaderAndIsrZkData reads the
// znode and, finding what it wrote, counts the write as done; ksim counted it as
// failed, and the leader retried at its old version every 2.5 s to the end while
// a produce request waited for the dead follower (104 records pending).
TEST_CASE("zookeeper era before KIP-497: a leader's ISR write resent after a lost connection counts once it is found "
          "written",
          "[zookeeper][system]") {
  const auto run = run_scenario(
      "chaos", 17484070779500705853ULL,
      {"kafka_version=2.0", "producers.0.config[acks]=all", "producers.0.config[enable.idempotence]=true",
       "nemesis={start: 1s, end: 30s, crash: {rate: 0.158026332/s, duration: {distribution: uniform, min: 100ms, "
       "max: 1909344430ns}, targets: [brokers]}, pause: {rate: 0.144394068/s, duration: {distribution: uniform, min: "
       "100ms, max: 3247137813ns}, targets: [brokers]}, latency_spike: {rate: 0.071837842/s, duration: "
       "{distribution: uniform, min: 100ms, max: 7196411141ns}, extra: 4528872790ns}, jitter_burst: {rate: "
       "0.126092845/s, duration: {distribution: uniform, min: 100ms, max: 7834066367ns}, jitter: {distribution: "
       "pareto, scale: 100us, shape: 1.2}}}"});
  CHECK(run.report["delivery"]["pending"] == 0);  // 104, before
  CHECK(run.report["delivery"]["verdict"] == "exactly-once");
  CHECK(run.report["delivery"]["acknowledged"].get<int>() > 15000);  // 19,201 of 58,950; the rest failed in crashes
  CHECK(run.report["invariant_violations"] == 0);
}
