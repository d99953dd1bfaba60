// Committed offsets expire (offsets.retention.minutes, checked every
// offsets.retention.check.interval.ms) and Empty groups are deleted, with
// tombstones in __consumer_offsets (GroupCoordinatorShard.cleanupGroupMetadata):
// scenarios/offsets-expiry.yaml and scenarios/releases/offsets-expiry-active-group.yaml.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_scenario;
using ksim::testing::ScenarioRun;

namespace {

const nlohmann::json& expiry_group(const ScenarioRun& run, const std::string& name) {
  for (const auto& g : run.report["groups"]) {
    if (g["group"] == name) return g;
  }
  FAIL("no group " << name);
  return run.report;
}

std::uint64_t expiry_count(const ScenarioRun& run, const std::string& group, const char* field) {
  return expiry_group(run, group)[field].get<std::uint64_t>();
}

bool mentions_expiry(const nlohmann::json& causes, bool kafka_behaviour_only) {
  for (const auto& c : causes) {
    const bool expiry = c["cause"].get<std::string>().find("offsets.retention.minutes") != std::string::npos;
    if (expiry && (!kafka_behaviour_only || c["kafka_behaviour"].get<bool>())) return true;
  }
  return false;
}

// The consumers crash at 20 s and come back at 130 s; the groups' offsets expire at 80 s (KIP-848: a minute
// after the last commit) and 125 s (classic: a minute after the sessions ran out and the group became Empty).
const char* const kConsumersDown =
    "{kind: crash, at: 20s, duration: 110s, nodes: [reports-0, reports-1, alerts-0, alerts-1, audit-0, audit-1]}";

}  // namespace

TEST_CASE("a group down longer than offsets.retention.minutes loses its offsets and is deleted",
          "[scenarios][offsets-expiry]") {
  for (const std::uint64_t seed : {1, 2, 3}) {
    INFO("seed " << seed);
    const ScenarioRun run = run_scenario("offsets-expiry", seed);
    CHECK(run.status == ksim::app::kExitOk);  // the scenario's expectations
    for (const char* group : {"reports", "alerts", "audit"}) {
      INFO(group);
      CHECK(expiry_count(run, group, "offsets_expired") == 4);
      CHECK(expiry_count(run, group, "group_deletions") >= 1);
    }
    // Each reprocessing and each skipped record is put down to the expiry, the skips as Kafka's behaviour.
    const auto& reports = expiry_group(run, "reports");
    REQUIRE(reports["duplicate_causes"].size() == 1);
    CHECK(reports["duplicate_causes"][0]["count"] == reports["duplicates"]);
    CHECK(mentions_expiry(reports["duplicate_causes"], false));
    CHECK(mentions_expiry(expiry_group(run, "audit")["duplicate_causes"], false));
    CHECK(mentions_expiry(expiry_group(run, "alerts")["unprocessed_causes"], true));
    CHECK(run.report["invariants"].empty());
  }
}

TEST_CASE("with the default offsets.retention.minutes (7 days) nothing expires: each group resumes where it committed",
          "[scenarios][offsets-expiry]") {
  const ScenarioRun expired = run_scenario("offsets-expiry", 1);
  const ScenarioRun kept = run_scenario("offsets-expiry", 1, {"brokers.config[offsets.retention.minutes]=10080"});
  for (const char* group : {"reports", "alerts", "audit"}) {
    INFO(group);
    CHECK(expiry_count(kept, group, "offsets_expired") == 0);
    CHECK(expiry_count(kept, group, "group_deletions") == 0);
    CHECK_FALSE(mentions_expiry(expiry_group(kept, group)["duplicate_causes"], false));
  }
  // Only what was processed after the last auto-commit before the crash is processed again.
  CHECK(expiry_count(kept, "reports", "duplicates") * 4 < expiry_count(expired, "reports", "duplicates"));
  CHECK(expiry_count(kept, "alerts", "unprocessed") * 4 < expiry_count(expired, "alerts", "unprocessed"));
}

TEST_CASE("a coordinator that loads __consumer_offsets after the expiry replays the tombstones",
          "[scenarios][offsets-expiry]") {
  // On seed 1 broker-0 coordinates reports and alerts, broker-1 audit: each crashes after the
  // expiry, and the partitions' new leaders load them before the consumers return. Had the
  // tombstones not been replayed, the groups would come back with their old offsets
  // (reports about 600 duplicates after the restarts instead of the whole topic again).
  const ScenarioRun plain = run_scenario("offsets-expiry", 1);
  const std::string faults = std::string("faults=[") + kConsumersDown +
                             ", {kind: crash, at: 126s, duration: 1s, nodes: [broker-0]}"
                             ", {kind: crash, at: 127500ms, duration: 1s, nodes: [broker-1]}]";
  const ScenarioRun failover = run_scenario("offsets-expiry", 1, {faults});
  CHECK(failover.status == ksim::app::kExitOk);
  for (const char* group : {"reports", "alerts", "audit"}) {
    INFO(group);
    CHECK(expiry_count(failover, group, "duplicates") == expiry_count(plain, group, "duplicates"));
    CHECK(expiry_count(failover, group, "unprocessed") == expiry_count(plain, group, "unprocessed"));
  }
  CHECK(mentions_expiry(expiry_group(failover, "reports")["duplicate_causes"], false));
}

TEST_CASE("before KIP-211 (2.0) a consuming group's quiet offsets expire under it, from 2.1 they are kept",
          "[scenarios][offsets-expiry][releases]") {
  for (const std::uint64_t seed : {1, 2}) {
    INFO("seed " << seed);
    const ScenarioRun v20 = run_scenario("releases/offsets-expiry-active-group", seed);
    CHECK(v20.status == ksim::app::kExitOk);
    CHECK(expiry_count(v20, "ledger", "offsets_expired") == 4);
    CHECK(expiry_count(v20, "ledger", "duplicates") > 0);
    CHECK(mentions_expiry(expiry_group(v20, "ledger")["duplicate_causes"], false));
    const ScenarioRun v21 = run_scenario("releases/offsets-expiry-active-group", seed, {"kafka_version=2.1"});
    CHECK(expiry_count(v21, "ledger", "offsets_expired") == 0);
    CHECK(expiry_count(v21, "ledger", "duplicates") == 0);
    CHECK(expiry_count(v21, "ledger", "unprocessed") == 0);
  }
}
