// KIP-848's fencing reached through real mechanisms, over many seeds
// (scenarios/kip848-fenced-member-epoch.yaml, kip848-rebalance-timeout.yaml):
// a member whose heartbeat answers are lost while its member epoch moves
// twice is answered FENCED_MEMBER_EPOCH; a member that never hears it must
// revoke is removed at its rebalance timeout. Either way it gives its
// partitions up without committing, joins again with epoch 0, and the group
// leaves nothing unprocessed. The report counts the fencings by cause.
#include <catch2/catch.hpp>

#include <variant>
#include <string>
#include <vector>

#include "app/harness/cluster.hpp"
#include "tests/support/scenario_runner.hpp"

namespace {

using ksim::models::FencingCause;

struct FencingRun {
  ksim::models::ConsumptionHistory history;
  ksim::app::RunReport report;
  std::uint32_t fenced_consumer = 0;  // billing-0's index in the history
  ksim::SimTime fenced_answer_at = ksim::kNever;  // billing-0 read FENCED_MEMBER_EPOCH
};

FencingRun kip848_fencing_run(const std::string& name, std::uint64_t seed, const std::vector<std::string>& overrides = {}) {
  auto document = ksim::config::Document::load_file(std::string(KSIM_SOURCE_DIR) + "/scenarios/" + name + ".yaml");
  document.apply_override("seed=" + std::to_string(seed));
  for (const auto& o : overrides) document.apply_override(o);
  const auto scenario = ksim::app::read_scenario(document, ksim::app::expectation_catalogue());
  ksim::app::Cluster cluster(scenario, ksim::app::RunOptions{});
  ksim::SimTime fenced_answer_at = ksim::kNever;
  cluster.model_events()->subscribe([&](ksim::SimTime now, const ksim::Node& from, const ksim::models::ModelEvent& e) {
    const auto* lost = std::get_if<ksim::models::CoordinatorLost>(&e);
    if (lost && lost->reason == "FENCED_MEMBER_EPOCH" && from.name() == "billing-0" && fenced_answer_at == ksim::kNever) {
      fenced_answer_at = now;
    }
  });
  cluster.run();
  FencingRun run{cluster.consumption(), ksim::app::make_report(cluster, 0), 0, fenced_answer_at};
  for (const auto* c : cluster.consumers()) {
    if (c->name() == "billing-0") run.fenced_consumer = c->index();
  }
  return run;
}

const ksim::models::ConsumptionReport& billing(const FencingRun& run) {
  REQUIRE(run.report.kafka);
  REQUIRE(run.report.kafka->groups.size() == 1);
  return run.report.kafka->groups.front().report;
}

// After `at`, billing-0 owns partitions no more until it owns some again (it
// joined again); and no commit of it succeeds in between (its partitions were
// lost, not revoked: answers to commits sent before may arrive with the loss).
void check_lost_then_rejoined(const FencingRun& run, ksim::SimTime at) {
  ksim::SimTime lost = ksim::kNever, owned_again = ksim::kNever;
  for (const auto& e : run.history.ownership) {
    if (e.consumer != run.fenced_consumer || e.at < at) continue;
    if (!e.owned && lost == ksim::kNever) lost = e.at;
    if (e.owned && lost != ksim::kNever) {
      owned_again = e.at;
      break;
    }
  }
  REQUIRE(lost != ksim::kNever);
  REQUIRE(owned_again != ksim::kNever);
  for (const auto& c : run.history.commits) {
    if (c.consumer == run.fenced_consumer && c.error == ksim::models::Error::None) {
      CHECK_FALSE((c.at > lost && c.at < owned_again));
    }
  }
}

}  // namespace

TEST_CASE("KIP-848: heartbeat answers lost while the member epoch moves twice: FENCED_MEMBER_EPOCH, rejoin, nothing unprocessed",
          "[kip848][kip848-fencing][consumer]") {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    INFO("seed " << seed);
    const FencingRun run = kip848_fencing_run("kip848-fenced-member-epoch", seed);
    CHECK(run.report.expectations_held());
    const auto& g = billing(run);
    CHECK(g.unprocessed == 0);
    CHECK(g.fenced_member_epoch == 1);
    CHECK(g.fenced_rebalance_timeout == 0);
    CHECK(g.fenced_session_timeout == 0);
    // The coordinator fenced billing-0, two epochs behind, while the one-way cut (10 s to 50 s) held its answers.
    REQUIRE_FALSE(run.history.member_fencings.empty());
    const auto& first = run.history.member_fencings.front();
    CHECK(first.cause == FencingCause::MemberEpoch);
    CHECK(first.member_id.rfind("billing-0-", 0) == 0);
    CHECK(first.at > ksim::seconds(28));
    CHECK(first.at < ksim::seconds(50));
    // It heard at the heal: its partitions lost, uncommitted, and it joined again with epoch 0 and took them back.
    check_lost_then_rejoined(run, ksim::seconds(50));
  }
}

TEST_CASE("KIP-848: without the lost answers the member is never fenced", "[kip848][kip848-fencing][consumer]") {
  // The same run with the one-way cut the other way: billing-0's heartbeats are held, not the answers. The
  // coordinator moves a member's epoch only on its heartbeats, so billing-0 is never behind: no fencing.
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    const FencingRun run = kip848_fencing_run("kip848-fenced-member-epoch", seed,
                                              {"faults.0.nodes=[billing-0]", "faults.0.other_nodes=[\"coordinator:billing\"]"});
    CHECK(billing(run).fenced_member_epoch == 0);
    CHECK(billing(run).fenced_session_timeout == 0);  // 40 s without a heartbeat: within its 45 s session
    CHECK(billing(run).unprocessed == 0);
  }
}

TEST_CASE("KIP-848: a member that never hears it must revoke is fenced at its rebalance timeout, nothing unprocessed",
          "[kip848][kip848-fencing][consumer]") {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    INFO("seed " << seed);
    const FencingRun run = kip848_fencing_run("kip848-rebalance-timeout", seed);
    CHECK(run.report.expectations_held());
    const auto& g = billing(run);
    CHECK(g.unprocessed == 0);
    CHECK(g.fenced_rebalance_timeout == 1);
    CHECK(g.fenced_member_epoch == 0);
    CHECK(g.fenced_session_timeout == 0);
    CHECK(g.poll_timeouts == 0);  // its own poll timer never ran out: it kept polling
    REQUIRE(run.history.member_fencings.size() == 1);
    const auto& f = run.history.member_fencings.front();
    CHECK(f.cause == FencingCause::RebalanceTimeout);
    CHECK(f.member_id.rfind("billing-0-", 0) == 0);
    // Its revocation came with its first heartbeat after the scale-out (14 s), the timeout 10 s later.
    CHECK(f.at > ksim::seconds(24));
    CHECK(f.at < ksim::seconds(35));
    // A zombie until the fault heals (35 s): then UNKNOWN_MEMBER_ID, its partitions lost, it joins again.
    check_lost_then_rejoined(run, ksim::seconds(35));
  }
}

TEST_CASE("KIP-848: a member that hears its revocation is not fenced at its rebalance timeout",
          "[kip848][kip848-fencing][consumer]") {
  // The same cut with billing-0's max.poll.interval.ms (its rebalance timeout) longer than the cut: it hears its
  // revocation when the cut heals and revokes in time.
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    const FencingRun run = kip848_fencing_run("kip848-rebalance-timeout", seed, {"consumers.0.config[max.poll.interval.ms]=60s"});
    CHECK(billing(run).fenced_rebalance_timeout == 0);
    CHECK(billing(run).fenced_member_epoch == 0);
    CHECK(billing(run).unprocessed == 0);
  }
}

// AbstractMembershipManager.transitionToFenced: onPartitionsLost is a
// ConsumerRebalanceListenerCallbackNeededEvent for the application thread,
// run in its next poll(); the partitions are cleared and the member joins
// again only once it has run. Without a listener the callback is complete at
// once. billing's sync-after-process commits register one (onPartitionsRevoked
// commits); with 2 ms per record and about 200 records a second for its
// partitions the application is processing when the answer comes in about 2
// seeds of 5 (5 of seeds 1-12), so both cases are checked over 12 seeds.
TEST_CASE("KIP-848: a fenced member with a rebalance listener loses its partitions in its next poll(), without one at once",
          "[kip848][kip848-fencing][consumer]") {
  int later = 0;
  int at_answer = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    INFO("seed " << seed);
    const FencingRun run = kip848_fencing_run("kip848-fenced-member-epoch", seed);
    REQUIRE(run.fenced_answer_at != ksim::kNever);
    ksim::SimTime lost = ksim::kNever;
    for (const auto& e : run.history.ownership) {
      if (e.consumer == run.fenced_consumer && !e.owned && e.at >= run.fenced_answer_at) {
        lost = e.at;
        break;
      }
    }
    REQUIRE(lost != ksim::kNever);
    CHECK(lost - run.fenced_answer_at < ksim::seconds(1));  // within one poll loop: 100 records of about 2 ms
    if (lost > run.fenced_answer_at) ++later;
    else ++at_answer;
    CHECK(billing(run).unprocessed == 0);
  }
  CHECK(later >= 3);      // it was processing: lost in its next poll()
  CHECK(at_answer >= 3);  // it was waiting in poll(): lost with the answer
  // Auto-commit and no listener: the partitions go with the answer.
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed << " without a listener");
    const FencingRun run = kip848_fencing_run("kip848-fenced-member-epoch", seed,
                                              {"consumers.0.commit=none", "consumers.0.config[enable.auto.commit]=true"});
    REQUIRE(run.fenced_answer_at != ksim::kNever);
    bool lost_at_answer = false;
    for (const auto& e : run.history.ownership) {
      if (e.consumer == run.fenced_consumer && !e.owned && e.at == run.fenced_answer_at) lost_at_answer = true;
    }
    CHECK(lost_at_answer);
  }
}
