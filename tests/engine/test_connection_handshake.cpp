// A connection is established by a handshake before data flows (sim/core/network.hpp):
// Kafka's NetworkClient sends only on a ready connection, and a refused
// connect is a reset that comes back a round trip later.
#include <catch2/catch.hpp>

#include "sim/faults/fault_injector.hpp"
#include "tests/support/probe_node.hpp"

using namespace ksim;
using ksim::testing::ProbeCluster;

// ProbeCluster's hosts are 20 us apart one way (two 10 us links).
TEST_CASE("a connection is established after a round trip and data sent before waits for it", "[network][handshake]") {
  ProbeCluster c(2);
  const ConnectionId conn = c[0].connect(c[1].id());
  CHECK_FALSE(c[0].established(conn));
  c[0].send_payload(conn, 1, 100);
  c.sim.run_until(microseconds(39));
  CHECK(c[0].connected.empty());
  CHECK(c[1].received.empty());
  c.sim.run_until(seconds(1));
  REQUIRE(c[0].connected.size() == 1);
  CHECK(c[0].connected[0] == std::pair<SimTime, ConnectionId>{microseconds(40), conn});
  CHECK(c[0].established(conn));
  REQUIRE(c[1].received.size() == 1);
  CHECK(c[1].received[0].at > microseconds(60));  // a round trip, then one way with its transmission
  CHECK(c[1].received[0].at < microseconds(70));
  CHECK(c[1].connected.empty());  // only the side that connected hears of it
}

TEST_CASE("a connect to a crashed node is refused a round trip later and nothing it carried arrives",
          "[network][handshake]") {
  ProbeCluster c(2);
  c[1].crash();
  const ConnectionId conn = c[0].connect(c[1].id());
  c[0].send_payload(conn, 1, 100);
  c.sim.run_until(microseconds(39));
  CHECK(c[0].closed.empty());
  c.sim.run_until(seconds(1));
  CHECK(c[0].closed == std::vector<ConnectionId>{conn});
  CHECK(c[0].connected.empty());
  CHECK_FALSE(c.sim.network().is_open(conn));
  const NetworkStats stats = c.sim.network().stats();
  CHECK(stats.connections_refused == 1);
  CHECK(stats.messages_dropped == 1);
  CHECK(stats.messages_in_flight == 0);
}

TEST_CASE("the server's state when the SYN arrives decides: a node that restarts meanwhile accepts",
          "[network][handshake]") {
  ProbeCluster c(2);
  c[1].crash();
  const ConnectionId conn = c[0].connect(c[1].id());
  c.sim.events().schedule_at(microseconds(10), [&] { c[1].restart(); });
  c.sim.run_until(seconds(1));
  CHECK(c[0].closed.empty());
  CHECK(c[0].connected.size() == 1);
  CHECK(c.sim.network().stats().connections_refused == 0);
  (void)conn;
}

TEST_CASE("a paused server's kernel completes the handshake", "[network][handshake]") {
  ProbeCluster c(2);
  c[1].pause();
  const ConnectionId conn = c[0].connect(c[1].id());
  c[0].send_payload(conn, 1, 100);
  c.sim.run_until(seconds(1));
  CHECK(c[0].connected.size() == 1);
  CHECK(c[1].received.empty());  // the process reads it once it resumes
  c[1].resume();
  c.sim.run_until(seconds(2));
  CHECK(c[1].received.size() == 1);
}

// A simplification (docs/engine.md): a cut does not stop a handshake; what
// the connection carries is held like any data.
TEST_CASE("a connect across a cut is established and its data waits for the cut to heal",
          "[network][handshake][faults]") {
  ProbeCluster c(2);
  FaultInjector faults(c.sim);
  faults.schedule(Fault{.kind = FaultKind::Partition, .at = 0, .duration = seconds(2), .nodes = {c[1].id()}});
  c.sim.run_until(milliseconds(1));
  const ConnectionId conn = c[0].connect(c[1].id());
  c[0].send_payload(conn, 1, 100);
  c.sim.run_until(milliseconds(2));
  CHECK(c[0].connected.size() == 1);
  c.sim.run_until(seconds(2));
  CHECK(c[1].received.empty());
  c.sim.run_until(seconds(3));
  REQUIRE(c[1].received.size() == 1);
  CHECK(c[1].received[0].at >= seconds(2));
}

TEST_CASE("a latency spike slows the handshake like data", "[network][handshake][faults]") {
  ProbeCluster c(2);
  FaultInjector faults(c.sim);
  faults.schedule(Fault{.kind = FaultKind::LatencySpike, .at = 0, .duration = seconds(1), .nodes = {c[1].id()},
                        .extra_latency = milliseconds(100)});
  c.sim.run_until(microseconds(1));
  c[0].connect(c[1].id());
  c.sim.run_until(seconds(2));
  REQUIRE(c[0].connected.size() == 1);
  CHECK(c[0].connected[0].first >= milliseconds(100));
}
