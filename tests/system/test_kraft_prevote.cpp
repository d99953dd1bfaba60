// KIP-996's pre-vote in the KRaft controller quorum (scenarios/kraft-prevote.yaml):
// a standby controller cut off for 15 s, while the metadata log grows, returns
// without an election on 4.x; on 3.9, or 4.3 with `kips: {KIP-996: off}`, the
// epoch it raised while alone makes the leader step down: a failover and
// about 1 s without an active controller.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_scenario;
using ksim::testing::ScenarioRun;

namespace {

const nlohmann::json& kraft_prevote_quorum(const ScenarioRun& run) { return run.report["controller"]["quorum"]; }

}  // namespace

TEST_CASE("kraft-prevote: a returning standby forces no election with pre-vote (4.x), and does without (3.9, "
          "KIP-996 off)",
          "[quorum][prevote][scenarios]") {
  // The cut hits `standby-controller`, whichever controller the seed made active (controller-1 leads on
  // seeds 2, 3, 5, 6 and 8: when the scenario named controller-1, those seeds cut the active controller off).
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const ScenarioRun with = run_scenario("kraft-prevote", seed);
    INFO("seed " << seed << ": " << with.report["expectations"].dump() << " " << kraft_prevote_quorum(with).dump());
    CHECK(with.status == ksim::app::kExitOk);
    CHECK(with.report["delivery"]["verdict"] == "exactly-once");
    CHECK(kraft_prevote_quorum(with)["failovers"] == 0);
    CHECK(kraft_prevote_quorum(with)["leaderless_periods"] == 0);
    CHECK(kraft_prevote_quorum(with)["raft_epochs"].get<int>() <= 2);

    if (seed > 3) continue;
    for (const std::vector<std::string>& before : {std::vector<std::string>{"kips.KIP-996=off"},
                                                   std::vector<std::string>{"kafka_version=3.9"}}) {
      const ScenarioRun without = run_scenario("kraft-prevote", seed, before);
      INFO(before[0] << ": " << kraft_prevote_quorum(without).dump());
      CHECK(without.status == ksim::app::kExitExpectationFailed);  // its controller expectations fail
      CHECK(without.report["delivery"]["verdict"] == "exactly-once");
      CHECK(kraft_prevote_quorum(without)["failovers"].get<int>() >= 1);
      CHECK(kraft_prevote_quorum(without)["leaderless_periods"].get<int>() >= 1);
      CHECK(kraft_prevote_quorum(without)["longest_leaderless_ms"].get<double>() > 500);
      CHECK(kraft_prevote_quorum(without)["raft_epochs"].get<int>() >= 5);  // one per election timeout while cut off
    }
  }
}
