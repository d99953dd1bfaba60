// A KIP-848 group's coordinator fails over (scenarios/kip848-coordinator-failover.yaml):
// the new coordinator loads the group from __consumer_offsets, so its
// members keep their epochs and partitions (no rebalance, nobody fenced,
// nothing unprocessed), and a member that misses its session after the move
// is removed at the load plus group.consumer.session.timeout.ms.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "app/harness/cluster.hpp"
#include "tests/support/scenario_runner.hpp"

namespace {

struct FailoverRun {
  ksim::models::ConsumptionHistory history;
  ksim::app::RunReport report;
};

FailoverRun kip848_failover(std::uint64_t seed, const std::vector<std::string>& overrides = {}) {
  auto document = ksim::config::Document::load_file(std::string(KSIM_SOURCE_DIR) +
                                                    "/scenarios/kip848-coordinator-failover.yaml");
  document.apply_override("seed=" + std::to_string(seed));
  for (const auto& o : overrides) document.apply_override(o);
  const auto scenario = ksim::app::read_scenario(document, ksim::app::expectation_catalogue());
  ksim::app::Cluster cluster(scenario, ksim::app::RunOptions{});
  cluster.run();
  return {cluster.consumption(), ksim::app::make_report(cluster, 0)};
}

}  // namespace

TEST_CASE("a KIP-848 coordinator failover: the group is loaded as it was, no rebalance, nothing unprocessed",
          "[kip848-persist][kip848][consumer]") {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    INFO("seed " << seed);
    const FailoverRun run = kip848_failover(seed);
    CHECK(run.report.expectations_held());
    REQUIRE_FALSE(run.history.coordinator_loads.empty());
    for (const auto& load : run.history.coordinator_loads) {
      CHECK(load.at > ksim::seconds(15));  // the move, after the crash
      CHECK(load.generation > 0);          // the group epoch it had, not a fresh group
    }
    // The group forms once; nothing after the crash rebalances it.
    for (const auto& r : run.history.rebalances) {
      INFO(r.trigger);
      CHECK(r.started < ksim::seconds(15));
      CHECK(r.completed < ksim::seconds(15));
    }
    for (const auto& e : run.history.consumer_events) CHECK(e.kind != ksim::models::ConsumerEventKind::Fenced);
  }
}

TEST_CASE("a KIP-848 member silent across the coordinator move is removed once its session since the load expires",
          "[kip848-persist][kip848][consumer]") {
  // ledger-1 is paused from 14 s to 90 s: the new coordinator loads its membership, then removes it at
  // the load plus group.consumer.session.timeout.ms (45 s), not at its last heartbeat plus 45 s.
  const FailoverRun run = kip848_failover(
      1, {"duration=120s", "faults=[{kind: crash, at: 15s, duration: 20s, nodes: [\"coordinator:ledger\"], power_loss: true}, "
                           "{kind: pause, at: 14s, duration: 76s, nodes: [ledger-1]}]"});
  REQUIRE(run.history.coordinator_loads.size() == 1);
  const ksim::SimTime loaded = run.history.coordinator_loads.front().at;
  bool removed = false;
  for (const auto& r : run.history.rebalances) {
    if (r.trigger != "session timeout of ledger-1") continue;
    removed = true;
    CHECK(r.started >= loaded + ksim::seconds(45));
    CHECK(r.started <= loaded + ksim::seconds(45) + ksim::milliseconds(1));
  }
  CHECK(removed);
}
