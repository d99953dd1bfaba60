// Behaviours of the Kafka models, each from a small inline scenario.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <map>

#include "app/harness/cluster.hpp"
#include "app/report/report.hpp"
#include "app/scenario/config_reader.hpp"
#include "tests/support/scenario_runner.hpp"

using namespace ksim;
using namespace ksim::app;
using ksim::testing::run_inline;

namespace {

// The scenario `yaml` with its PLACEHOLDER replaced by `value`, run.
RunReport run_with(std::string yaml, const std::string& placeholder, const std::string& value) {
  yaml.replace(yaml.find(placeholder), placeholder.size(), value);
  return run_inline(yaml);
}

const std::string kSingleReplica = R"(
duration: 20s
drain: 5s
brokers: {count: 1}
topics: [{name: t, partitions: 2, replication_factor: 1}]
producers:
  - {name: p, topic: t, rate: 500/s, record_size: 100B, defaults: pre-3.0}
faults:
  - {kind: crash, at: 15s, duration: 2s, nodes: [broker-0], power_loss: true}
)";

}  // namespace

TEST_CASE("a power loss loses acknowledged records that were never flushed", "[kafka][durability]") {
  const RunReport report = run_inline(kSingleReplica);
  // The OS writes back after 30s, Kafka never fsyncs by default: everything
  // acknowledged before the power loss was still only in the page cache.
  CHECK(report.kafka->delivery.lost > 5000);
}

TEST_CASE("log.flush.interval.messages=1 makes every acknowledged record survive a power loss", "[kafka][durability]") {
  std::string yaml = kSingleReplica;
  yaml.replace(yaml.find("brokers: {count: 1}"), 19, "brokers: {count: 1, config: {log.flush.interval.messages: 1}}");
  const RunReport report = run_inline(yaml);
  CHECK(report.kafka->delivery.lost == 0);
  CHECK(report.kafka->delivery.acknowledged > 5000);
}

TEST_CASE("a process crash keeps the page cache: nothing acknowledged is lost", "[kafka][durability]") {
  std::string yaml = kSingleReplica;
  yaml.replace(yaml.find("power_loss: true"), 16, "power_loss: false");
  const RunReport report = run_inline(yaml);
  CHECK(report.kafka->delivery.lost == 0);
}

TEST_CASE("a failed log dir goes offline and its leaderships move, losing nothing acknowledged", "[kafka][disks]") {
  const RunReport report = run_inline(R"(
duration: 20s
drain: 20s
brokers:
  count: 3
  log_dirs: [{path: /a}, {path: /b}]
topics: [{name: t, partitions: 8, replication_factor: 3, config: {min.insync.replicas: 2}}]
producers:
  - {name: p, topic: t, rate: 1000/s, record_size: 100B}
faults:
  - {kind: disk_failure, at: 8s, nodes: [broker-0], log_dir: /a}
)");
  CHECK(report.kafka->delivery.exactly_once());
  CHECK(report.kafka->controller.elections >= 1);
  CHECK(report.faults_fired.at("disk_failure") == 1);
  bool offline_dir = false;
  for (const auto& d : report.kafka->log_dirs) offline_dir |= d.broker == 0 && d.stats.path == "/a" && !d.stats.online;
  CHECK(offline_dir);
}

TEST_CASE("a full disk takes its log dir offline", "[kafka][disks]") {
  const RunReport report = run_inline(R"(
duration: 10s
brokers:
  count: 1
  log_dirs: [{path: /small, capacity: 200KB}]
topics: [{name: t, partitions: 1, replication_factor: 1}]
producers:
  - {name: p, topic: t, rate: 1000/s, record_size: 100B, config: {delivery.timeout.ms: 3s, request.timeout.ms: 1s}}
)");
  REQUIRE(report.kafka->log_dirs.size() == 1);
  CHECK_FALSE(report.kafka->log_dirs[0].stats.online);
  CHECK(report.kafka->log_dirs[0].stats.bytes <= 200000);
  CHECK(report.kafka->delivery.failed > 0);
  CHECK(report.kafka->delivery.lost == 0);
}

TEST_CASE("a log dir offline since its disk filled is back after the broker restarts", "[kafka][disks]") {
  // LogManager validates the dirs at start: a disk with room again serves its logs.
  const std::string yaml = R"(
duration: 20s
brokers:
  count: 3
  log_dirs: [{path: /a}, {path: /b}]
topics: [{name: t, partitions: 4, replication_factor: 3}]
producers:
  - {name: p, topic: t, rate: 1000/s, record_size: 100B}
faults:
  - {kind: disk_full, at: 5s, duration: 1s, nodes: [broker-0], log_dir: /b}
)";
  const auto b_online = [](const ksim::app::RunReport& report) {
    for (const auto& d : report.kafka->log_dirs) {
      if (d.broker == 0 && d.stats.path == "/b") return d.stats.online;
    }
    FAIL("no /b on broker 0");
    return false;
  };
  const RunReport stays = run_inline(yaml);
  const RunReport restarted = run_inline(yaml + "  - {kind: crash, at: 8s, duration: 2s, nodes: [broker-0]}\n");
  CHECK_FALSE(b_online(stays));  // no way back while the process runs
  CHECK(b_online(restarted));
  CHECK(restarted.kafka->delivery.lost == 0);
}

TEST_CASE("min.insync.replicas refuses writes while the ISR is too small", "[kafka]") {
  const RunReport report = run_inline(R"(
duration: 20s
drain: 5s
brokers: {count: 3, config: {replica.lag.time.max.ms: 2s}}
topics: [{name: t, partitions: 1, replication_factor: 3, assignment: [[0, 1, 2]], config: {min.insync.replicas: 3}}]
producers:
  - {name: p, topic: t, rate: 500/s, record_size: 100B, config: {delivery.timeout.ms: 3s, request.timeout.ms: 1s}}
faults:
  - {kind: pause, at: 5s, duration: 10s, nodes: [broker-2]}
)");
  // With broker-2 out of the ISR, acks=all writes fail: nothing is acknowledged
  // that is not on all three replicas, and the records of that window fail.
  CHECK(report.kafka->delivery.failed > 1000);
  CHECK(report.kafka->delivery.lost == 0);
  CHECK(report.kafka->controller.isr_changes >= 1);
}

TEST_CASE("a slow disk makes appends wait once the page cache's dirty limit is reached", "[kafka][disks]") {
  const std::string base = R"(
duration: 10s
drain: 5s
brokers:
  count: 1
  disk: {write_bandwidth: 20MB/s, dirty_limit: 4MB}
topics: [{name: t, partitions: 1, replication_factor: 1}]
producers:
  - {name: p, topic: t, rate: 10000/s, record_size: 1KB}
)";
  const RunReport fast = run_inline(base);
  const RunReport slow = run_inline(base + "faults:\n  - {kind: disk_slow, at: 2s, duration: 6s, nodes: [broker-0], log_dir: /data/0, factor: 0.1}\n");
  CHECK(fast.kafka->latency_p99_ms < 20.0);
  CHECK(slow.kafka->latency_p99_ms > 10 * fast.kafka->latency_p99_ms);
  CHECK(slow.kafka->delivery.exactly_once());
}

TEST_CASE("a controlled shutdown moves leadership first, so producers barely notice, a crash makes them wait",
          "[kafka][controller]") {
  const std::string base = R"(
duration: 20s
drain: 20s
network: {racks: [a, b, c]}
brokers: {count: 3}
topics: [{name: t, partitions: 6, replication_factor: 3, config: {min.insync.replicas: 2}}]
producers:
  - {name: p, topic: t, rate: 1000/s, record_size: 100B, start: 2s, config: {request.timeout.ms: 5s}}
faults:
)";
  const RunReport shutdown = run_inline(base + "  - {kind: shutdown, at: 8s, duration: 5s, nodes: [broker-0]}\n");
  const RunReport crash = run_inline(base + "  - {kind: crash, at: 8s, duration: 5s, nodes: [broker-0]}\n");
  CHECK(shutdown.kafka->controller.controlled_shutdowns == 1);
  CHECK(shutdown.kafka->controller.elections >= 1);
  CHECK(shutdown.kafka->delivery.exactly_once());
  CHECK(crash.kafka->delivery.exactly_once());
  // The crash leaves requests to the dead leader until they time out; the shutdown does not.
  CHECK(crash.kafka->latency_max_ms > 2000.0);
  CHECK(shutdown.kafka->latency_max_ms < 1000.0);
  CHECK(shutdown.faults_fired.at("shutdown") == 1);
}

TEST_CASE("buffer.memory bounds the producer: batch.size is reserved per partition and send() blocks", "[kafka][producer]") {
  // 200 partitions x 16KB batches need more than the 1MiB buffer: sends block.
  const RunReport report = run_inline(R"(
duration: 10s
drain: 10s
brokers: {count: 1}
topics: [{name: t, partitions: 200, replication_factor: 1}]
producers:
  - {name: p, topic: t, rate: 20000/s, record_size: 100B, keys: {distribution: uniform, count: 100000}, config: {buffer.memory: 1MiB, linger.ms: 50ms}}
)");
  CHECK(report.kafka->blocked_sends > 0);
  CHECK(report.kafka->producer_memory_peak_bytes <= 1048576);
  CHECK(report.kafka->producer_memory_peak_bytes > 1048576 - 16384);
  CHECK(report.kafka->delivery.exactly_once());
}

TEST_CASE("send() gives up after max.block.ms when the cluster is gone", "[kafka][producer]") {
  const RunReport report = run_inline(R"(
duration: 20s
drain: 5s
brokers: {count: 1}
topics: [{name: t, partitions: 4, replication_factor: 1}]
producers:
  - {name: p, topic: t, rate: 2000/s, record_size: 1KB, config: {buffer.memory: 256KB, max.block.ms: 1s, delivery.timeout.ms: 120s}}
faults:
  - {kind: crash, at: 5s, nodes: [broker-0]}
)");
  CHECK(report.kafka->blocked_sends > 0);
  CHECK(report.kafka->delivery.failed > 0);
  CHECK(report.kafka->delivery.lost == 0);
}

TEST_CASE("send() blocked on buffer.memory counts in produce latency, and no record the application meant to send is omitted",
          "[scenarios][producer]") {
  // The producer is cut from the brokers for 3s: with 32 MiB of buffer it
  // queues; with 256 KiB its send() blocks. Either way the application's
  // records keep arriving and are all sent, each timed from its arrival.
  const std::vector<std::string> cut{"faults=[{kind: partition, at: 5s, duration: 3s, nodes: [checkout-0], other_nodes: [brokers]}]",
                                     "duration=12s"};
  auto small = cut;
  small.push_back("producers.0.config[buffer.memory]=256KiB");
  const auto roomy = ksim::testing::run_scenario("quickstart", 1, cut);
  const auto blocked = ksim::testing::run_scenario("quickstart", 1, small);
  CHECK(roomy.report["producer"]["blocked_sends"] == 0);
  CHECK(blocked.report["producer"]["blocked_sends"].get<std::uint64_t>() > 0);
  CHECK(blocked.report["producer"]["blocked_s"].get<double>() > 2.5);
  CHECK(blocked.report["producer"]["longest_block_ms"].get<double>() > 2500);
  CHECK(blocked.report["delivery"]["produced"] == roomy.report["delivery"]["produced"]);  // no coordinated omission
  CHECK(blocked.report["latency_ms"]["max"].get<double>() > 2900);
}

TEST_CASE("an exhausted buffer.memory sends batches at once, whatever linger.ms", "[kafka][producer]") {
  // RecordAccumulator.ready: a batch is sendable when a send() waits for
  // memory. With linger.ms=10s and nothing else to fill the batches, the
  // producer would otherwise send once every 10 seconds.
  const RunReport report = run_inline(R"(
duration: 10s
drain: 15s
brokers: {count: 1}
topics: [{name: t, partitions: 64, replication_factor: 1}]
producers:
  - {name: p, topic: t, rate: 5000/s, record_size: 100B, keys: {distribution: uniform, count: 100000}, config: {buffer.memory: 256KiB, batch.size: 16384, linger.ms: 10s}}
)");
  CHECK(report.kafka->blocked_sends > 0);
  CHECK(report.kafka->delivery.acknowledged > 45000);
  CHECK(report.kafka->latency_p50_ms < 100);
  CHECK(report.kafka->delivery.exactly_once());
}

TEST_CASE("flush.ms fsyncs through the log flusher, which runs every log.flush.scheduler.interval.ms", "[kafka][durability]") {
  std::string yaml = kSingleReplica;
  yaml.replace(yaml.find("brokers: {count: 1}"), 19, "brokers: {count: 1, config: {log.flush.scheduler.interval.ms: 100ms}}");
  yaml.replace(yaml.find("replication_factor: 1}"), 22, "replication_factor: 1, config: {flush.ms: 0}}");
  const RunReport report = run_inline(yaml);
  // At most the last tick's records are unflushed: 500/s x 100ms.
  CHECK(report.kafka->delivery.lost <= 60);
  CHECK(report.kafka->delivery.acknowledged > 5000);
  // Without the scheduler, flush.ms does nothing (and the scenario is warned).
  std::string unscheduled = kSingleReplica;
  unscheduled.replace(unscheduled.find("replication_factor: 1}"), 22, "replication_factor: 1, config: {flush.ms: 0}}");
  CHECK(run_inline(unscheduled).kafka->delivery.lost > 5000);
}

TEST_CASE("flush.messages is a topic's own log.flush.interval.messages", "[kafka][durability]") {
  std::string yaml = kSingleReplica;
  yaml.replace(yaml.find("replication_factor: 1}"), 22, "replication_factor: 1, config: {flush.messages: 1}}");
  const RunReport report = run_inline(yaml);
  CHECK(report.kafka->delivery.lost == 0);
  CHECK(report.kafka->delivery.acknowledged > 5000);
}

TEST_CASE("min.insync.replicas over the replication factor is capped at it (KAFKA-15583, Kafka 3.7+)", "[kafka]") {
  const RunReport report = run_inline(R"(
duration: 5s
drain: 2s
brokers: {count: 3, config: {min.insync.replicas: 2}}
topics: [{name: t, partitions: 2, replication_factor: 1}]
producers:
  - {name: p, topic: t, rate: 500/s, record_size: 100B, config: {acks: all}}
)");
  // Before 3.7 every one of these writes failed with NOT_ENOUGH_REPLICAS.
  CHECK(report.kafka->delivery.failed == 0);
  CHECK(report.kafka->delivery.acknowledged > 2000);
}

TEST_CASE("a follower at the leader's log end stays in the ISR however long ago it fetched (Replica.isCaughtUp)",
          "[kafka][isr]") {
  // An idle partition: broker-2 cannot reach the leader for 20s, past
  // replica.lag.time.max.ms, but it had everything, so Kafka keeps it in the ISR.
  const RunReport report = run_inline(R"(
duration: 30s
drain: 2s
brokers: {count: 3}
topics: [{name: t, partitions: 1, replication_factor: 3, assignment: [[0, 1, 2]]}]
producers:
  - {name: p, topic: t, rate: 100/s, record_size: 100B, stop: 2s}
faults:
  - {kind: partition, at: 5s, duration: 20s, nodes: [broker-0], other_nodes: [broker-2]}
)");
  CHECK(report.kafka->controller.isr_changes == 0);
  CHECK(report.kafka->delivery.acknowledged > 100);
}

TEST_CASE("acks=all with flush.messages=1 waits for the leader's fsync, then a follower's", "[kafka][durability]") {
  // The leader completes parked follower fetches once its append, fsync
  // included, has returned (KafkaApis' tryCompleteActions); the follower
  // sends its next fetch, which tells the leader its new log end, once its
  // own append and fsync have (AbstractFetcherThread.processFetchRequest).
  const RunReport report = run_inline(R"(
duration: 10s
drain: 2s
brokers: {count: 3, disk: {flush_latency: 5ms}}
topics: [{name: t, partitions: 1, replication_factor: 3, config: {min.insync.replicas: 2, flush.messages: 1}}]
producers:
  - {name: p, rate: 50/s, record_size: 100B, config: {acks: all, linger.ms: 0}}
)");
  CHECK(report.kafka->latency_p50_ms > 10.0);  // two fsyncs one after the other (5.3ms when they overlapped)
  CHECK(report.kafka->latency_p50_ms < 15.0);
  CHECK(report.kafka->delivery.lost == 0);
}

// RecordAccumulator.drainBatchesForOneNode: a broker with one batch ready
// gets every partition's head batch, lingering or not.
TEST_CASE("the producer's drain takes every partition's batch for a broker that has one ready", "[kafka][producer]") {
  const RunReport report = run_inline(R"(
duration: 10s
brokers: {count: 3}
topics: [{name: t, partitions: 12, replication_factor: 3}]
producers:
  - {name: p, rate: 1200/s, record_size: 100B, keys: {distribution: uniform, count: 1000}, config: {linger.ms: 50}}
)");
  REQUIRE(report.kafka->delivery.acknowledged > 11000);
  // A request per partition per linger.ms would be 12 x 20/s x 10 s = 2,400 (1,996 before the fix);
  // with the drain about one per broker per linger.ms (574).
  CHECK(report.kafka->producer_requests < 900);
  CHECK(report.kafka->producer_requests > 300);
}

// KIP-580's exponential retry backoff arrived in Kafka 3.7; a pre-3.0 client waits retry.backoff.ms every time.
TEST_CASE("retries back off exponentially in current clients, by retry.backoff.ms alone before 3.0", "[kafka][producer]") {
  const std::string yaml = R"(
duration: 10s
drain: 20s
brokers: {count: 3}
topics: [{name: t, partitions: 3, replication_factor: 3}]
producers:
  - {name: p, rate: 100/s, record_size: 100B, defaults: DEFAULTS,
     config: {acks: 1, enable.idempotence: false, linger.ms: 0, request.timeout.ms: 200, delivery.timeout.ms: 20s}}
faults:
  - {kind: partition, at: 3s, duration: 5s, nodes: [p-0]}
)";
  const RunReport old_client = run_with(yaml, "DEFAULTS", "pre-3.0");
  const RunReport current = run_with(yaml, "DEFAULTS", "current");
  CHECK(old_client.kafka->delivery.lost == 0);
  CHECK(current.kafka->delivery.acknowledged == old_client.kafka->delivery.acknowledged);
  // 5 s cut off, 200 ms request timeouts: a retry every 300 ms, against 300, 400, 600, 1,000, 1,200 ms ...
  CHECK(old_client.kafka->producer_retries > 1.8 * static_cast<double>(current.kafka->producer_retries));
  CHECK(current.kafka->producer_retries > 20);
}

// Sender.getExpiredInflightBatches: a batch in flight at delivery.timeout.ms
// fails then, and the answer that comes later is ignored (its records are
// written: "failed but written"), where ksim used to wait for the answer.
TEST_CASE("an in-flight batch fails at delivery.timeout.ms, and its late answer changes nothing", "[kafka][producer]") {
  const RunReport report = run_inline(R"(
duration: 8s
drain: 10s
brokers: {count: 3}
topics: [{name: t, partitions: 1, replication_factor: 3}]
producers:
  - {name: p, rate: 200/s, record_size: 100B,
     config: {acks: 1, enable.idempotence: false, linger.ms: 0, max.in.flight.requests.per.connection: 1,
              request.timeout.ms: 4s, delivery.timeout.ms: 4s}}
faults:
  - {kind: latency_spike, at: 2s, duration: 4s, nodes: [p-0], extra: 1500ms}
)");
  // Round trips of 3 s with one request in flight: a batch waits for the one
  // before it, is sent about 3 s after it was created and answered 3 s later.
  CHECK(report.kafka->delivery.failed > 0);
  CHECK(report.kafka->delivery.failed_but_written > 0);
  CHECK(report.kafka->delivery.lost == 0);
  CHECK(report.kafka->latency_max_ms <= 4000);  // nothing acknowledged after its delivery timeout
}

// Metadata.timeToAllowUpdate (3.7+): answers that raise no leader epoch
// stretch the wait before the next refresh, up to retry.backoff.max.ms, so
// a client finds a partition's returning leader later than one refreshing
// every retry.backoff.ms (before 3.7). broker-1 answers, without a leader once broker-0
// is fenced (about 5 s to 9 s); the reconnect backoff (KIP-144) is held at 50 ms.
TEST_CASE("metadata refreshes back off exponentially while a partition stays leaderless", "[kafka][producer]") {
  const std::string yaml = R"(
duration: 12s
drain: 10s
brokers: {count: 2, config: {broker.session.timeout.ms: 2s, broker.heartbeat.interval.ms: 500ms}}
topics: [{name: t, partitions: 1, replication_factor: 1, assignment: [[0]]}]
producers:
  - {name: p, rate: 100/s, record_size: 100B,
     config: {acks: 1, enable.idempotence: false, linger.ms: 0, delivery.timeout.ms: 60s, retry.backoff.max.ms: MAX,
              reconnect.backoff.max.ms: 50ms}}
faults:
  - {kind: crash, at: 3s, duration: 6s, nodes: [broker-0]}
)";
  const RunReport constant = run_with(yaml, "MAX", "100ms");
  const RunReport exponential = run_with(yaml, "MAX", "1s");
  for (const RunReport* r : {&constant, &exponential}) {
    CHECK(r->kafka->delivery.lost == 0);
    CHECK(r->kafka->delivery.failed == 0);
  }
  INFO("max produce latency: constant " << constant.kafka->latency_max_ms << " ms, exponential "
                                        << exponential.kafka->latency_max_ms << " ms");
  // Four seconds without a leader: a refresh every 100 ms, against 100,
  // 200, 400, 800 ms and then every second (each jittered by 20%).
  CHECK(constant.kafka->latency_max_ms < 6000 + 300);
  CHECK(exponential.kafka->latency_max_ms < 6000 + 1400);
  CHECK(constant.network.messages_sent > exponential.network.messages_sent + 30);
}

// KIP-951 (3.7+): a NOT_LEADER_OR_FOLLOWER answer names the new leader,
// which the client takes at once, and a retry to a newer leader skips its
// backoff. Cut off from the cluster for 12 s, broker-0 is fenced and its
// leaderships move; when it is back it answers its waiting produces so.
TEST_CASE("a NOT_LEADER answer carries the new leader, and the retry to it skips the backoff", "[kafka][producer]") {
  const std::string yaml = R"(
duration: 20s
drain: 10s
brokers: {count: 3}
topics: [{name: t, partitions: 3, replication_factor: 3, config: {min.insync.replicas: 2}}]
producers:
  - {name: p, rate: 200/s, record_size: 100B, keys: {distribution: uniform, count: 300}, defaults: DEFAULTS,
     config: {acks: all, enable.idempotence: true, linger.ms: 0, request.timeout.ms: 20s,
              delivery.timeout.ms: 60s}}
faults:
  - {kind: partition, at: 3s, duration: 12s, nodes: [broker-0], other_nodes: [controller, broker-1, broker-2]}
)";
  const RunReport current = run_with(yaml, "DEFAULTS", "current");
  const RunReport old_client = run_with(yaml, "DEFAULTS", "pre-3.0");  // the same configs, before KIP-951
  for (const RunReport* r : {&current, &old_client}) {
    CHECK(r->kafka->delivery.lost == 0);
    CHECK(r->kafka->delivery.failed == 0);
    CHECK(r->kafka->controller.fencings >= 1);
  }
  INFO("max latency: current " << current.kafka->latency_max_ms << " ms, before KIP-951 " << old_client.kafka->latency_max_ms);
  // Without it: retry.backoff.ms (100 ms, jittered) and a Metadata round trip first.
  CHECK(current.kafka->latency_max_ms < old_client.kafka->latency_max_ms - 40);
}

// DelayedFetch.tryComplete, case G: a parked follower fetch completes once
// replica.fetch.min.bytes are there, or at replica.fetch.wait.max.ms.
TEST_CASE("replica.fetch.min.bytes holds follower fetches, and acks=all with them, until the bytes are there",
          "[kafka][replication]") {
  const std::string yaml = R"(
duration: 10s
drain: 2s
brokers: {count: 3, config: {replica.fetch.min.bytes: MIN_BYTES}}
topics: [{name: t, partitions: 1, replication_factor: 3}]
producers:
  - {name: p, rate: 20/s, record_size: 100B, start: 2s, config: {acks: all, linger.ms: 0}}
)";
  const RunReport eager = run_with(yaml, "MIN_BYTES", "1");
  const RunReport held = run_with(yaml, "MIN_BYTES", "100000");  // far more than 500 ms of records
  CHECK(eager.kafka->latency_p50_ms < 5.0);
  CHECK(held.kafka->latency_p50_ms > 500.0);  // a fetch round is replica.fetch.wait.max.ms, and requests queue behind it
  CHECK(held.kafka->delivery.acknowledged > 100);
  CHECK(held.kafka->delivery.lost == 0);
}

// ReplicaManager.completeDelayedOperationsWhenNotPartitionLeader: a broker that
// learns it no longer leads a partition answers the fetches parked on it at once.
TEST_CASE("a broker that loses a leadership answers the fetches parked for that partition at once", "[kafka][replication]") {
  // broker-0 is cut from the controller and the other brokers but not from
  // the clients: fenced, it loses its leaderships and learns it at the heal.
  const Scenario s = ksim::testing::parse_scenario(R"(
duration: 25s
drain: 5s
brokers: {count: 3}
topics: [{name: t, partitions: 3, replication_factor: 3, config: {min.insync.replicas: 2}}]
producers:
  - {name: p, rate: 200/s, record_size: 100B, start: 2s}
consumers:
  - {name: c, config: {fetch.max.wait.ms: 5000, auto.offset.reset: earliest}}
faults:
  - {kind: partition, at: 5s, duration: 12s, nodes: [broker-0], other_nodes: [controller, broker-1, broker-2]}
)");
  Cluster cluster(s, RunOptions{});
  int probes = 0, parked_unled = 0;
  std::function<void()> probe = [&] {
    ++probes;
    for (const auto* broker : cluster.brokers()) {
      for (const models::TopicPartition tp : broker->hosted_partitions()) {
        if (!broker->is_leader(tp) && broker->parked_fetches_listing(tp) > 0) ++parked_unled;
      }
    }
    if (cluster.sim().now() < seconds(24)) cluster.sim().events().schedule_at(cluster.sim().now() + milliseconds(10), probe);
  };
  cluster.sim().events().schedule_at(seconds(3), probe);
  cluster.run();
  CHECK(probes > 2000);
  CHECK(parked_unled == 0);  // before the fix: 3 s of broker-0's consumer fetch parked after the heal
  CHECK(cluster.brokers()[0]->is_leader({0, 0}) == false);
}

// AbstractFetcherManager keys its threads by (source broker, fetcher id): a
// follower of two leaders appends their data on two threads, not one.
TEST_CASE("a broker runs num.replica.fetchers threads per source broker", "[kafka][replication][profile]") {
  // Each follower appends 15 MB/s at 100 ns per byte: 1.5 s of work per second, from two leaders.
  const Scenario s = ksim::testing::parse_scenario(R"(
duration: 10s
drain: 2s
profile: {name: linkedin-2014, broker_costs: {follower_ns_per_byte: 100}}
brokers: {count: 3}
topics: [{name: t, partitions: 6, replication_factor: 3}]
producers:
  - {name: p, rate: 2200/s, record_size: 10KB, start: 1s, config: {acks: 1, linger.ms: 5}}
)", std::string(KSIM_SOURCE_DIR) + "/scenarios/inline.yaml");
  Cluster cluster(s, RunOptions{});
  cluster.run();
  CHECK(cluster.max_replication_lag() < 200);  // one thread for both leaders: 1,180 records behind, and growing
}

// AbstractFetcherThread moves a partition that got data to the end of its
// list (updateAndMoveToEnd): a follower catching up many partitions under a
// binding replica.fetch.response.max.bytes brings them back together, not the
// first of the list first. The producer spreads its records evenly (adaptive
// partitioning off), so every partition has the same to catch up.
TEST_CASE("a follower catching up under a response budget rotates its partitions", "[kafka][replication]") {
  const Scenario s = ksim::testing::parse_scenario(R"(
duration: 40s
drain: 5s
brokers: {count: 3, config: {replica.fetch.response.max.bytes: 32768, replica.fetch.max.bytes: 16384}}
topics: [{name: t, partitions: 24, replication_factor: 3}]
producers:
  - {name: p, rate: 10000/s, record_size: 1KB, start: 1s, config: {acks: 1, batch.size: 2048, partitioner.adaptive.partitioning.enable: false}}
faults:
  - {kind: crash, at: 3s, duration: 12s, nodes: [broker-2]}
)");
  Cluster cluster(s, RunOptions{});
  std::map<std::int32_t, SimTime> back_in_isr;  // partition -> when broker-2 was first in its ISR again
  std::function<void()> probe = [&] {
    for (const auto& [tp, state] : cluster.controller()->partitions()) {
      if (tp.topic != 0 || back_in_isr.contains(tp.partition)) continue;
      if (std::find(state.isr.begin(), state.isr.end(), 2) != state.isr.end()) back_in_isr[tp.partition] = cluster.sim().now();
    }
    if (cluster.sim().now() < seconds(44)) cluster.sim().events().schedule_at(cluster.sim().now() + milliseconds(10), probe);
  };
  // fenced at broker.session.timeout.ms (9 s), broker-2 leaves every ISR; it restarts at 15 s
  cluster.sim().events().schedule_at(seconds(14), [&] {
    for (const auto& [tp, state] : cluster.controller()->partitions()) {
      if (tp.topic == 0) REQUIRE(std::find(state.isr.begin(), state.isr.end(), 2) == state.isr.end());
    }
    probe();
  });
  cluster.run();
  REQUIRE(back_in_isr.size() == 24);
  SimTime first = kNever, last = 0;
  for (const auto& [p, at] : back_in_isr) {
    first = std::min(first, at);
    last = std::max(last, at);
  }
  INFO("first back " << first << " ns, last " << last << " ns");
  // Both catch up by 15.33 s; the partitions come back within 110 ms of each
  // other with the rotation, over 270 ms without (the first of the list first).
  CHECK(last - first < milliseconds(180));
}

// AbstractFetcherThread.handlePartitionsWithErrors: a partition answered with
// an error is left out of the follower's fetches for replica.fetch.backoff.ms,
// the fetcher's other partitions go on. Here broker-1 becomes t-0's leader
// 200 ms before it hears so (the controller's messages to it are held), and
// broker-2, which heard at once, fetches t-0 from it and is refused; t-1,
// which broker-1 already led, keeps replicating through the same fetcher.
// acks=all on t-0 then waits for the backoff after the last refusal, as in
// Kafka. Before (replication audit item 2), the partial error made the
// fetcher retry at once, and t-0 recovered 200 ms after the election whatever
// the backoff.
TEST_CASE("a follower's partition refused by its leader is fetched again only after replica.fetch.backoff.ms",
          "[kafka][replication]") {
  const std::string yaml = R"(
duration: 20s
drain: 10s
warmup: 5s
brokers: {count: 3, config: {replica.fetch.backoff.ms: BACKOFF}}
topics: [{name: t, partitions: 2, replication_factor: 3, assignment: [[0, 1, 2], [1, 2, 0]], config: {min.insync.replicas: 2}}]
producers:
  - {name: p, topic: t, rate: 1000/s, record_size: 100B, keys: {distribution: uniform}}
faults:
  - {kind: partition, at: 9.999s, duration: 200ms, nodes: [controller], other_nodes: [broker-1], one_way: true}
  - {kind: shutdown, at: 10s, duration: 5s, nodes: [broker-0]}
)";
  const RunReport one_second = run_with(yaml, "BACKOFF", "1s");
  const RunReport three_seconds = run_with(yaml, "BACKOFF", "3s");
  CHECK(one_second.kafka->delivery.exactly_once());
  CHECK(one_second.kafka->latency_max_ms > 1000.0);
  CHECK(one_second.kafka->latency_max_ms < 1500.0);
  CHECK(three_seconds.kafka->latency_max_ms > 3000.0);
  CHECK(three_seconds.kafka->latency_max_ms < 3500.0);
}
