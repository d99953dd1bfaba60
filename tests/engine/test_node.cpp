#include <catch2/catch.hpp>

#include "sim/faults/fault_injector.hpp"
#include "tests/support/probe_node.hpp"

using namespace ksim;
using ksim::testing::ProbeCluster;

TEST_CASE("a paused node runs nothing until it resumes, then handles what queued in order", "[node]") {
  ProbeCluster c(2);
  FaultInjector faults(c.sim);
  const ConnectionId conn = c[0].connect(c[1].id());
  faults.schedule(Fault{.kind = FaultKind::NodePause, .at = milliseconds(10), .duration = milliseconds(500),
                        .nodes = {c[1].id()}});
  c[1].set_timer(milliseconds(100), [&] { c[1].timer_fired_at.push_back(c.sim.now()); });
  for (std::uint64_t i = 0; i < 5; ++i) {
    c[0].set_timer(milliseconds(20 + static_cast<std::int64_t>(i)), [&c, conn, i] { c[0].send_payload(conn, i, 100); });
  }
  c.sim.run_until(milliseconds(509));
  CHECK(c[1].received.empty());
  CHECK(c[1].timer_fired_at.empty());
  CHECK(c[1].state() == NodeState::Paused);
  c.sim.run_until(seconds(1));
  CHECK(c[1].state() == NodeState::Running);
  REQUIRE(c[1].received.size() == 5);
  for (std::uint64_t i = 0; i < 5; ++i) {
    CHECK(c[1].received[i].id == i);
    CHECK(c[1].received[i].at == milliseconds(510));
  }
  CHECK(c[1].timer_fired_at == std::vector<SimTime>{milliseconds(510)});
}

TEST_CASE("a crash drops timers and connections, restart starts afresh", "[node]") {
  ProbeCluster c(2);
  FaultInjector faults(c.sim);
  const ConnectionId conn = c[0].connect(c[1].id());
  faults.schedule(Fault{.kind = FaultKind::NodeCrash, .at = milliseconds(10), .duration = seconds(1),
                        .nodes = {c[1].id()}});
  c[1].set_timer(milliseconds(100), [&] { c[1].timer_fired_at.push_back(c.sim.now()); });
  c.sim.run_until(milliseconds(20));
  CHECK(c[1].state() == NodeState::Crashed);
  CHECK(c[1].crashes == 1);
  CHECK_FALSE(c.sim.network().is_open(conn));
  CHECK(c[0].closed == std::vector<ConnectionId>{conn});  // the peer learns of the reset
  CHECK_FALSE(c[0].send_payload(conn, 1, 100));
  c.sim.run_until(seconds(2));
  CHECK(c[1].timer_fired_at.empty());  // the old incarnation's timer never fires
  CHECK(c[1].state() == NodeState::Running);
  CHECK(c[1].starts == 2);
  // A new connection works after the restart.
  const ConnectionId again = c[0].connect(c[1].id());
  CHECK(c[0].send_payload(again, 2, 100));
  c.sim.run_until(seconds(3));
  REQUIRE(c[1].received.size() == 1);
  CHECK(c[1].received[0].id == 2);
}

TEST_CASE("connecting to a crashed node is refused", "[node]") {
  ProbeCluster c(2);
  c[1].crash();
  const ConnectionId conn = c[0].connect(c[1].id());
  c.sim.run_until(seconds(1));
  CHECK_FALSE(c.sim.network().is_open(conn));
  CHECK(c[0].closed == std::vector<ConnectionId>{conn});
}

TEST_CASE("a paused node's own timers wait too, but time moves on for others", "[node]") {
  ProbeCluster c(2);
  c[0].set_timer(milliseconds(5), [&] { c[0].timer_fired_at.push_back(c.sim.now()); });
  c[1].set_timer(milliseconds(5), [&] { c[1].timer_fired_at.push_back(c.sim.now()); });
  c[0].pause();
  c.sim.run_until(milliseconds(100));
  c[0].resume();
  c.sim.run_until(milliseconds(200));
  CHECK(c[1].timer_fired_at == std::vector<SimTime>{milliseconds(5)});
  CHECK(c[0].timer_fired_at == std::vector<SimTime>{milliseconds(100)});
}

TEST_CASE("a crash that ends before a node's start does not start it early", "[node]") {
  Simulation sim(1, ksim::testing::ProbeCluster::make_topology(2, 100, {1.25e8, microseconds(10)}), {});
  auto& early = sim.spawn<ksim::testing::ProbeNode>("h0", *sim.topology().find("h0"));
  auto& late = sim.spawn<ksim::testing::ProbeNode>("h1", *sim.topology().find("h1"));  // starts at 3 s
  early.start();
  sim.events().schedule_at(seconds(3), [&late] { late.start(); });
  FaultInjector faults(sim);
  faults.schedule(Fault{.kind = FaultKind::NodeCrash, .at = milliseconds(10), .duration = seconds(1),
                        .nodes = {early.id(), late.id()}});
  CHECK(late.never_started());
  sim.run_until(seconds(2));
  CHECK(early.state() == NodeState::Running);  // crashed and restarted
  CHECK(early.starts == 2);
  CHECK(late.state() == NodeState::Crashed);  // the fault's end did not start it
  CHECK(late.starts == 0);
  CHECK(late.never_started());
  sim.run_until(seconds(4));
  CHECK(late.state() == NodeState::Running);
  CHECK(late.starts == 1);
  CHECK_FALSE(late.never_started());
}
