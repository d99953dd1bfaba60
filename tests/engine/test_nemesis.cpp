#include <catch2/catch.hpp>

#include "sim/faults/fault_injector.hpp"
#include "sim/faults/nemesis.hpp"
#include "tests/support/probe_node.hpp"

using namespace ksim;

namespace {
NemesisRule crash_rule(double rate) {
  NemesisRule rule;
  rule.rate_per_s = rate;
  rule.duration = Distribution::uniform(seconds(1), seconds(3));
  rule.candidates = {0, 1, 2, 3, 4};
  rule.targets_per_fault = 2;
  rule.shape.kind = FaultKind::NodeCrash;
  return rule;
}
}  // namespace

TEST_CASE("the nemesis draws faults at its rate within its window", "[nemesis]") {
  const auto faults = plan_rule(crash_rule(2.0), seconds(10), seconds(1010), RandomStream(9));
  CHECK(static_cast<double>(faults.size()) == Approx(2000).epsilon(0.1));
  for (const Fault& f : faults) {
    CHECK(f.at >= seconds(10));
    CHECK(f.at < seconds(1010));
    CHECK(f.duration >= seconds(1));
    CHECK(f.duration <= seconds(3));
    REQUIRE(f.nodes.size() == 2);
    CHECK(f.nodes[0] != f.nodes[1]);
    CHECK(f.kind == FaultKind::NodeCrash);
  }
  for (std::size_t i = 1; i < faults.size(); ++i) CHECK(faults[i - 1].at <= faults[i].at);
}

TEST_CASE("the same stream gives the same nemesis plan, another gives another", "[nemesis][determinism]") {
  const auto a = plan_rule(crash_rule(1.0), 0, seconds(100), RandomStream::derive(5, "nemesis/crash"));
  const auto b = plan_rule(crash_rule(1.0), 0, seconds(100), RandomStream::derive(5, "nemesis/crash"));
  const auto c = plan_rule(crash_rule(1.0), 0, seconds(100), RandomStream::derive(6, "nemesis/crash"));
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].at == b[i].at);
    CHECK(a[i].nodes == b[i].nodes);
  }
  CHECK((a.size() != c.size() || a[0].at != c[0].at));
}

TEST_CASE("nemesis crashes take nodes down and bring them back", "[nemesis][faults]") {
  ksim::testing::ProbeCluster c(5);
  FaultInjector injector(c.sim);
  NemesisRule rule = crash_rule(0.5);
  rule.targets_per_fault = 1;
  injector.schedule_all(plan_rule(rule, 0, seconds(100), c.sim.stream("nemesis/crash")));
  c.sim.run_until(seconds(200));
  int crashes = 0;
  for (auto* node : c.nodes) {
    crashes += node->crashes;
    CHECK(node->state() == NodeState::Running);  // every crash ended in a restart
  }
  CHECK(crashes > 20);
  CHECK(injector.coverage().at("crash") == injector.started());
}

// Two crash faults that overlap on a node keep it down until the later ends;
// two overlapping pauses keep it paused until the later ends. The first to
// end used to restart (resume) the node while the other was still in force.
TEST_CASE("overlapping crashes or pauses of a node end with the last of them", "[nemesis][faults]") {
  ksim::testing::ProbeCluster c(2);
  FaultInjector injector(c.sim);
  Fault long_crash;
  long_crash.kind = FaultKind::NodeCrash;
  long_crash.at = seconds(10);
  long_crash.duration = seconds(20);  // down until 30 s
  long_crash.nodes = {0};
  Fault short_crash = long_crash;
  short_crash.at = seconds(15);
  short_crash.duration = seconds(2);  // ends at 17 s, inside the long one
  Fault long_pause;
  long_pause.kind = FaultKind::NodePause;
  long_pause.at = seconds(10);
  long_pause.duration = seconds(20);
  long_pause.nodes = {1};
  Fault short_pause = long_pause;
  short_pause.at = seconds(12);
  short_pause.duration = seconds(3);
  injector.schedule_all({long_crash, short_crash, long_pause, short_pause});
  c.sim.run_until(seconds(20));
  CHECK(c.nodes[0]->state() == NodeState::Crashed);
  CHECK(c.nodes[1]->state() == NodeState::Paused);
  c.sim.run_until(seconds(31));
  CHECK(c.nodes[0]->state() == NodeState::Running);
  CHECK(c.nodes[1]->state() == NodeState::Running);
  CHECK(c.nodes[0]->crashes == 1);
}
