// The internal topics are compacted (GroupCoordinatorService.groupMetadataTopicConfigs,
// TransactionStateManager.transactionTopicConfigs: cleanup.policy=compact, segments of
// offsets.topic.segment.bytes and transaction.state.log.segment.bytes, 100 MiB by default):
// with small segments the cleaner removes superseded offset commits and transaction states,
// and a coordinator that takes over replays only what is left, with the same outcome.
#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_scenario;
using ksim::testing::ScenarioRun;

namespace {

std::uint64_t internal_count(const nlohmann::json& section, const char* field) {
  return section[field].get<std::uint64_t>();
}
const nlohmann::json& internal_group(const ScenarioRun& run, const std::string& name) {
  for (const auto& g : run.report["groups"]) {
    if (g["group"] == name) return g;
  }
  FAIL("no group " << name);
  return run.report;
}

}  // namespace

TEST_CASE("__consumer_offsets is compacted: a new coordinator replays fewer records, the group resumes as before",
          "[scenarios][compaction]") {
  // coordinator-failover commits after every processed batch; with 16 KiB segments and a cleaner that
  // looks every second, most commits are superseded by the time the coordinator loses power at 15 s.
  const ScenarioRun whole = run_scenario("coordinator-failover", 1);
  const ScenarioRun compacted = run_scenario(
      "coordinator-failover", 1,
      {"brokers.config[offsets.topic.segment.bytes]=16KiB", "brokers.config[log.cleaner.backoff.ms]=1s"});
  CHECK(internal_count(whole.report["compaction"], "internal_cleanings") == 0);  // 100 MiB segments never roll here
  CHECK(internal_count(compacted.report["compaction"], "internal_cleanings") > 0);
  CHECK(internal_count(compacted.report["compaction"], "internal_records_removed") > 0);
  CHECK(internal_count(compacted.report["compaction"], "cleanings") == 0);  // no user topic compacts
  const auto& before = internal_group(whole, "ledger");
  const auto& after = internal_group(compacted, "ledger");
  INFO("records replayed: whole log " << before["coordinator_load_records"] << ", compacted "
                                      << after["coordinator_load_records"]);
  CHECK(internal_count(after, "coordinator_loads") >= 1);
  CHECK(internal_count(after, "coordinator_load_records") * 2 < internal_count(before, "coordinator_load_records"));
  // The loaded offsets are the latest commits: the same guarantees hold.
  CHECK(compacted.status == ksim::app::kExitOk);
  CHECK(internal_count(after, "unprocessed") == 0);
  CHECK(compacted.report["invariants"].empty());
}

TEST_CASE("a KIP-848 group's and a transaction's compacted records load as they were written",
          "[scenarios][compaction]") {
  const std::pair<const char*, const char*> runs[] = {
      {"kip848-coordinator-failover", "brokers.config[offsets.topic.segment.bytes]=16KiB"},
      {"txn-coordinator-failover", "brokers.config[transaction.state.log.segment.bytes]=4KiB"}};
  for (const auto& [scenario, segments] : runs) {
    INFO(scenario);
    const ScenarioRun compacted = run_scenario(scenario, 1, {segments, "brokers.config[log.cleaner.backoff.ms]=1s"});
    CHECK(internal_count(compacted.report["compaction"], "internal_cleanings") > 0);
    CHECK(internal_count(compacted.report["compaction"], "internal_records_removed") > 0);
    CHECK(compacted.status == ksim::app::kExitOk);  // the scenario's expectations: nothing lost or left open
    CHECK(compacted.report["invariants"].empty());
  }
}
