// Transactional ids expire at their coordinator (transactional.id.expiration.ms,
// TransactionStateManager.removeExpiredTransactionalIds), and a producer still
// using one recovers with a new producer id from 2.5 (KIP-360) or stops before:
// scenarios/txn-id-expiry.yaml.
#include <catch2/catch.hpp>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_scenario;
using ksim::testing::ScenarioRun;

namespace {

std::uint64_t id_expiry_figure(const ScenarioRun& run, const char* field) {
  return run.report["transactions"][field].get<std::uint64_t>();
}

}  // namespace

TEST_CASE("an idle transactional producer outlives its transactional.id and recovers with a new producer id",
          "[scenarios][transactions][txn-id-expiry]") {
  for (const std::uint64_t seed : {1, 2, 3}) {
    INFO("seed " << seed);
    const ScenarioRun run = run_scenario("txn-id-expiry", seed);
    CHECK(run.status == ksim::app::kExitOk);  // the scenario's expectations: exactly-once delivery
    const std::uint64_t lost = id_expiry_figure(run, "producer_id_mappings_lost");
    CHECK(lost >= 2);  // the transactions after a gap of more than 30 s
    CHECK(id_expiry_figure(run, "aborted") == lost);  // each such transaction aborts...
    CHECK(id_expiry_figure(run, "committed") >= 2);   // ...and the producer goes on
    CHECK(id_expiry_figure(run, "fenced") == 0);
    CHECK(run.report["invariants"].empty());
  }
}

TEST_CASE("before KIP-360 (2.5) INVALID_PRODUCER_ID_MAPPING stops the producer, and with the default expiration nothing expires",
          "[scenarios][transactions][txn-id-expiry][releases]") {
  const ScenarioRun old = run_scenario("txn-id-expiry", 1, {"producers.0.kafka_version=2.4"});
  CHECK(id_expiry_figure(old, "producer_id_mappings_lost") == 1);
  CHECK(id_expiry_figure(old, "fenced") == 1);  // fatal: nothing more is sent
  CHECK(id_expiry_figure(old, "committed") == 1);
  const ScenarioRun kept = run_scenario("txn-id-expiry", 1, {"brokers.config[transactional.id.expiration.ms]=168h"});
  CHECK(id_expiry_figure(kept, "producer_id_mappings_lost") == 0);
  CHECK(id_expiry_figure(kept, "aborted") == 0);
  CHECK(id_expiry_figure(kept, "committed") >= 5);
}
