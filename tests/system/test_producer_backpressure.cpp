// The producer's sends wait for its socket (producer audit item 2): Kafka's
// InFlightRequests.canSendMore lets a new request go to a broker only once
// the last is wholly written to the socket, and an acks=0 request is
// complete, its batches done and their memory freed, only then
// (NetworkClient.handleCompletedSends). The socket's send buffer
// (send.buffer.bytes) holds bytes sent and not yet delivered.
#include <catch2/catch.hpp>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_inline;

namespace {

const char* kCutAcks0 = R"(
duration: 20s
drain: 10s
brokers: {count: 1}
topics: [{name: t, partitions: 1, replication_factor: 1}]
producers:
  - {name: p, topic: t, rate: 5000/s, record_size: 1KiB,
     config: {acks: 0, enable.idempotence: false, request.timeout.ms: 30s, max.block.ms: 2s}}
faults:
  - {kind: partition, at: 5s, duration: 12s, nodes: [p-0], other_nodes: [broker-0]}
)";

}  // namespace

// Cut from its broker for 12 s (the connection resets after 10 s), an acks=0
// producer counts as sent only what its socket took: about send.buffer.bytes
// (128 KiB, some 120 records), lost with the reset; then buffer.memory fills
// and send() blocks. Before, every record of the cut was acknowledged and
// 50,177 were lost.
TEST_CASE("an acks=0 producer cut from its broker blocks once its socket buffer is full", "[kafka][producer]") {
  const auto report = run_inline(kCutAcks0);
  const auto& d = report.kafka->delivery;
  CHECK(d.lost > 0);
  CHECK(d.lost < 200);
  CHECK(report.kafka->blocked_sends > 0);
  CHECK(report.kafka->producer_memory_peak_bytes >= 30ULL << 20);  // buffer.memory, 32 MiB
  const auto bigger = run_inline(kCutAcks0, 1, {"producers.0.config[send.buffer.bytes]=1048576"});
  CHECK(bigger.kafka->delivery.lost > 5 * d.lost);  // a larger buffer takes, and loses, more
}
