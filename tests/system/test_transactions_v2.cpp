// Transactions v2 (KIP-890 part 2, the default from 4.0): an epoch bump with
// every EndTxn, partitions added by their leaders, no AddOffsetsToTxn. The
// transaction scenarios under both versions, and the case v2 closes.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_scenario;

namespace {

constexpr const char* kV1 = "kips[KIP-890-part2]=off";
constexpr const char* kV2 = "kips[KIP-890-part2]=on";

std::uint64_t txn_figure(const ksim::testing::ScenarioRun& run, const char* name) {
  return run.report["transactions"][name].get<std::uint64_t>();
}

double run_figure(const ksim::testing::ScenarioRun& run, const char* name) {
  return run.report["delivery"][name].get<double>();
}

}  // namespace

namespace {

// A transaction scenario over eight seeds under both versions: the same
// verdicts, the same fencing, the same records committed within a tenth.
void same_outcomes_under_both_versions(const char* scenario) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    INFO(scenario << " seed " << seed);
    const auto v1 = run_scenario(scenario, seed, {kV1});
    const auto v2 = run_scenario(scenario, seed, {kV2});
    CHECK(v1.status == v2.status);
    CHECK(v1.report["transactions"]["exactly_once"] == true);
    CHECK(v2.report["transactions"]["exactly_once"] == true);
    CHECK(txn_figure(v2, "committed") > 0);
    CHECK(txn_figure(v2, "hanging") == 0);
    // The same records committed, within a tenth. Not the same transactions:
    // a v2 transaction's first write waits (CONCURRENT_TRANSACTIONS) while the
    // previous one's markers are written, so transactions that end on a
    // commit interval span more records (eos-transform: 316 against 801).
    const auto acknowledged_v1 = run_figure(v1, "acknowledged");
    CHECK(run_figure(v2, "acknowledged") == Approx(acknowledged_v1).epsilon(0.1));
    CHECK(txn_figure(v1, "fenced") == txn_figure(v2, "fenced"));
  }
}

}  // namespace

TEST_CASE("transactions v2: txn-isolation keeps its outcomes under both versions", "[scenarios][transactions][kip-890]") {
  same_outcomes_under_both_versions("txn-isolation");
}

TEST_CASE("transactions v2: txn-zombie keeps its outcomes under both versions", "[scenarios][transactions][kip-890]") {
  same_outcomes_under_both_versions("txn-zombie");
}

TEST_CASE("transactions v2: txn-coordinator-failover keeps its outcomes under both versions",
          "[scenarios][transactions][kip-890]") {
  same_outcomes_under_both_versions("txn-coordinator-failover");
}

TEST_CASE("transactions v2: eos-transform keeps its outcomes under both versions", "[scenarios][transactions][kip-890]") {
  same_outcomes_under_both_versions("eos-transform");
}

TEST_CASE("transactions v2: a write delayed past its transaction's abort is fenced by the abort's epoch bump, even "
          "without verification (v1 hangs)",
          "[scenarios][transactions][kip-890]") {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    INFO("seed " << seed);
    const auto v1 = run_scenario("txn-hanging", seed);  // kips: {KIP-890-part2: off}, verification off
    const auto v2 = run_scenario("txn-hanging", seed, {kV2});
    CHECK(txn_figure(v1, "hanging") >= 1);
    CHECK(v1.report["transactions"]["exactly_once"] == false);
    CHECK(txn_figure(v2, "hanging") == 0);
    CHECK(txn_figure(v2, "aborted") >= 1);  // the delayed transaction did abort
    CHECK(v2.report["transactions"]["exactly_once"] == true);
    CHECK(v2.report["release"]["kafka_version"] == "4.3");
    // A 4.3 cluster whose finalized transaction.version stayed at 1 runs v1.
    const auto tv1 = run_scenario("txn-hanging", seed, {kV2, "controller.features[transaction.version]=1"});
    CHECK(txn_figure(tv1, "hanging") >= 1);
  }
}

// KIP-360 for transactional producers (TransactionManager.epochBumpRequired):
// a batch that failed unwritten leaves a gap in its partition's sequences, so
// the abort that follows ends with InitProducerId bumping the epoch, and the
// sequences start again at 0. Here the producer is cut from broker-0 for 15 s,
// past delivery.timeout.ms (3 s) and the connection's reset: a few
// transactions abort, then they commit again. Before, every later transaction
// writing to that partition failed with OUT_OF_ORDER_SEQUENCE_NUMBER and
// aborted (27 aborts to the end of the run, 2,549 records failed).
// With transactions v2 the abort's EndTxn bumps the epoch itself: no InitProducerId.
TEST_CASE("transactions v2: no client-side epoch bump after a failed batch, the abort's EndTxn bumps it",
          "[transactions][kip-890]") {
  const std::string scenario = R"(
duration: 40s
drain: 10s
brokers: {count: 3}
topics: [{name: t, partitions: 3, replication_factor: 3, config: {min.insync.replicas: 2}}]
producers:
  - name: loader
    topic: t
    rate: 300/s
    record_size: 100B
    records_per_transaction: 100
    config: {transactional.id: loader, delivery.timeout.ms: 3s, request.timeout.ms: 1s, linger.ms: 0}
faults:
  - {kind: partition, at: 10s, duration: 15s, nodes: [loader], other_nodes: [broker-0]}
)";
  const ksim::app::RunReport v1 = ksim::testing::run_inline("kips: {KIP-890-part2: off}\n" + scenario);
  const ksim::app::RunReport v2 = ksim::testing::run_inline(scenario);
  REQUIRE(v1.kafka->transactions);
  REQUIRE(v2.kafka->transactions);
  CHECK(v2.kafka->delivery.failed > 0);      // the outage did fail batches
  CHECK(v1.kafka->epoch_bumps >= 1);         // v1: InitProducerId after the abort (KIP-360)
  CHECK(v2.kafka->epoch_bumps == 0);         // v2: none needed
  CHECK(v2.kafka->transactions->aborted >= 1);
  CHECK(v2.kafka->transactions->committed >= 75);
  CHECK(v2.kafka->transactions->exactly_once());
}

// KIP-890: every EndTxn bumps the epoch; at Short.MAX_VALUE - 1 the
// coordinator hands the producer a new producer id at epoch 0 and its
// sequences start again (scenarios/txn-v2-epoch-exhaustion.yaml).
TEST_CASE("transactions v2 exhaust the producer epoch: a new producer id, nothing lost or duplicated across it",
          "[scenarios][transactions][kip890]") {
  constexpr const char* kBumps = "KIP-890: an epoch bump at EndTxn (transactions v2)";
  constexpr const char* kExhausted = "KIP-890: an exhausted epoch, a new producer id";
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    INFO("seed " << seed);
    const auto run = run_scenario("txn-v2-epoch-exhaustion", seed);
    CHECK(run.status == ksim::app::kExitOk);
    CHECK(txn_figure(run, "producer_ids_renewed") == 1);
    CHECK(run.report["protocol_states"][kExhausted] == 1);
    const std::uint64_t committed = txn_figure(run, "committed");
    CHECK(committed > 32767 + 1000);  // a thousand transactions and more under the new producer id
    CHECK(run.report["protocol_states"][kBumps] == committed);
    CHECK(run.report["delivery"]["exactly_once"] == true);
    CHECK(run.report["delivery"]["acknowledged"] == committed);  // one record per transaction
    CHECK(run.report["groups"][0]["exactly_once"] == true);
    CHECK(run.report["invariants"].empty());
  }
  // Transactions v1: the epoch moves only with InitProducerId, never exhausted here.
  const auto v1 = run_scenario("txn-v2-epoch-exhaustion", 1, {kV1});
  CHECK(txn_figure(v1, "producer_ids_renewed") == 0);
  CHECK(v1.report["protocol_states"][kBumps] == 0);
  CHECK(txn_figure(v1, "committed") > 32767);
  CHECK(v1.report["transactions"]["exactly_once"] == true);
}
