// The idempotent producer past a gap in its sequences (KIP-360, Kafka 2.5+):
// the client bumps its epoch on its own and renumbers only the partition
// that had the gap, and a leader that knows nothing of the producer takes
// any sequence (docs/audit/producer.md, items 1 and 12).
#include <catch2/catch.hpp>

#include "tests/support/scenario_runner.hpp"

using ksim::models::Error;
using ksim::testing::run_inline;
using ksim::testing::run_scenario;

// unclean-election.yaml: the followers stall while the producer writes, so
// the new leader knows its producer id, with sequences up to the stall; the
// next batch the producer sends it comes after the records that the unclean
// election lost, a real gap (OUT_OF_ORDER_SEQUENCE_NUMBER for the batch right
// after the last acknowledged). Before, ksim failed that batch and every one
// behind it while a new producer id was fetched: 147 to 177 records of seeds
// 1-4, each failed OUT_OF_ORDER_SEQUENCE_NUMBER.
TEST_CASE("an idempotent producer renumbers a partition past a real gap and fails nothing", "[kafka][producer][idempotence]") {
  for (const std::uint64_t seed : {1, 2}) {
    INFO("seed " << seed);
    const auto run = run_scenario("unclean-election", seed);
    const auto& delivery = run.report["delivery"];
    CHECK(delivery["lost"].get<int>() > 0);  // the unclean election did lose records: the gap is there
    CHECK(delivery["failed"] == 0);
    CHECK(delivery["failed_because"] == "none");
    CHECK(run.report["producer"]["epoch_bumps"] == 1);  // one local bump, no InitProducerId
  }
}

// Cut from the leader of one partition for 15 s with delivery.timeout.ms=3s:
// batches sent there are retried until they expire, unresolved (they may
// have been written); the partition's new batches wait until nothing of it
// is unanswered, then an epoch bump starts its sequences again. Only expired
// records fail. Before, every record sent during the outage failed (1,455 of
// seed 1): after the heal the batches behind an expired one were rejected
// OUT_OF_ORDER_SEQUENCE_NUMBER and failed too.
TEST_CASE("an idempotent producer fails only the batches that expired in an outage", "[kafka][producer][idempotence]") {
  const auto report = run_inline(R"(
duration: 40s
drain: 10s
brokers: {count: 3}
topics: [{name: t, partitions: 3, replication_factor: 3, config: {min.insync.replicas: 2}}]
producers:
  - name: loader
    topic: t
    rate: 300/s
    record_size: 100B
    config: {enable.idempotence: true, delivery.timeout.ms: 3s, request.timeout.ms: 1s, linger.ms: 0}
faults:
  - {kind: partition, at: 10s, duration: 15s, nodes: [loader], other_nodes: [broker-0]}
)");
  const auto& delivery = report.kafka->delivery;
  const std::uint64_t sent_in_outage = report.kafka->availability.incidents.at(0).writes.records_waited;
  CHECK(delivery.failed > 0);
  CHECK(delivery.failed < sent_in_outage);  // those of the outage's last seconds went after the heal
  CHECK(delivery.failed_by_error.size() == 1);
  CHECK(delivery.failed_by_error.count(Error::DeliveryTimeout) == 1);
  CHECK(report.kafka->epoch_bumps >= 1);
  CHECK(delivery.exactly_once());
  CHECK(delivery.vacuous.empty());
}
