#include <catch2/catch.hpp>

#include "sim/faults/fault_injector.hpp"
#include "tests/support/probe_node.hpp"

using namespace ksim;
using ksim::testing::ProbeCluster;

// 1 Gbps host links (125 MB/s), 10us each way through the rack switch.
TEST_CASE("a message pays transmission on each link plus propagation", "[network]") {
  ProbeCluster c(2);
  const ConnectionId conn = c[0].connect(c[1].id());
  c[0].send_payload(conn, 1, 125'000);  // 1ms at 125 MB/s
  c.sim.run_until(seconds(1));
  REQUIRE(c[1].received.size() == 1);
  // The handshake's round trip (40us), then pipelined over two links: 1ms of
  // transmission, 20us of propagation.
  CHECK(c[1].received[0].at == microseconds(40) + milliseconds(1) + microseconds(20));
}

TEST_CASE("messages on one connection arrive in order despite jitter", "[network]") {
  NetworkOptions options;
  options.jitter = Distribution::exponential(milliseconds(5));  // far larger than the gaps
  ProbeCluster c(2, 100, {1.25e9, microseconds(10)}, options);
  const ConnectionId conn = c[0].connect(c[1].id());
  for (std::uint64_t i = 0; i < 1000; ++i) {
    c[0].set_timer(microseconds(static_cast<std::int64_t>(i)), [&c, conn, i] { c[0].send_payload(conn, i, 100); });
  }
  c.sim.run_until(seconds(1));
  REQUIRE(c[1].received.size() == 1000);
  for (std::uint64_t i = 0; i < 1000; ++i) CHECK(c[1].received[i].id == i);
}

TEST_CASE("two flows sharing a link each get about half of it", "[network]") {
  // h0 and h1 both send to h2 as fast as they can: h2's access link is the bottleneck.
  ProbeCluster c(3);
  const ConnectionId a = c[0].connect(c[2].id());
  const ConnectionId b = c[1].connect(c[2].id());
  for (std::uint64_t i = 0; i < 2000; ++i) {  // each offers 2000 x 125KB = 250MB in 1s: twice the link
    const auto at = microseconds(static_cast<std::int64_t>(i) * 500);
    c[0].set_timer(at, [&c, a, i] { c[0].send_payload(a, i, 125'000); });
    c[1].set_timer(at, [&c, b, i] { c[1].send_payload(b, i, 125'000); });
  }
  c.sim.run_until(seconds(1));
  std::uint64_t from_a = 0, from_b = 0;
  for (const auto& r : c[2].received) (r.connection == a ? from_a : from_b) += 125'000;
  // The link carries 125 MB in the second; each flow gets about half.
  CHECK(static_cast<double>(from_a + from_b) == Approx(125e6).epsilon(0.02));
  CHECK(static_cast<double>(from_a) == Approx(62.5e6).epsilon(0.05));
  CHECK(static_cast<double>(from_b) == Approx(62.5e6).epsilon(0.05));
}

TEST_CASE("a small message shares a busy link with a large one instead of queueing behind it", "[network]") {
  // TCP's flows share h2's access link: the small one is not held up by the
  // large one's 100ms, and the large one slows only while both send.
  ProbeCluster c(3);
  const ConnectionId big = c[0].connect(c[2].id());
  const ConnectionId small = c[1].connect(c[2].id());
  c[0].send_payload(big, 1, 12'500'000);  // 100ms alone on h2's link
  c[1].set_timer(milliseconds(1), [&] { c[1].send_payload(small, 2, 125'000); });  // 1ms alone
  c.sim.run_until(seconds(1));
  REQUIRE(c[2].received.size() == 2);
  CHECK(c[2].received[0].id == 2);
  // Half the link for 2ms, then the latency of its two links.
  CHECK(c[2].received[0].at == milliseconds(3) + microseconds(20));
  CHECK(c[2].received[1].at == microseconds(40) + milliseconds(101) + microseconds(20));  // it began after the handshake
}

TEST_CASE("a flow limited elsewhere leaves the rest of a shared link to the others (max-min fairness)", "[network]") {
  // h0 and h1 send to h2; h0's own link runs at a tenth of its speed, so h0's
  // flow gets 12.5 MB/s and h1's flow the other 112.5 MB/s of h2's link.
  ProbeCluster c(3);
  FaultInjector faults(c.sim);
  const VertexId h0 = *c.sim.topology().find("h0");
  faults.schedule(Fault{.kind = FaultKind::LinkSlowdown, .at = 0, .duration = seconds(10), .bandwidth_factor = 0.1,
                        .links = c.sim.topology().links_touching(h0)});
  const ConnectionId slow = c[0].connect(c[2].id());
  const ConnectionId fast = c[1].connect(c[2].id());
  c[0].set_timer(milliseconds(1), [&] { c[0].send_payload(slow, 1, 1'250'000); });  // 100ms at 12.5 MB/s
  c[1].set_timer(milliseconds(1), [&] { c[1].send_payload(fast, 2, 11'250'000); });  // 100ms at 112.5 MB/s
  c.sim.run_until(seconds(2));
  REQUIRE(c[2].received.size() == 2);
  CHECK(c[2].received[0].at >= milliseconds(101));
  CHECK(c[2].received[0].at <= milliseconds(101) + microseconds(21));
  CHECK(c[2].received[1].at >= milliseconds(101));
  CHECK(c[2].received[1].at <= milliseconds(101) + microseconds(21));
}

TEST_CASE("a partition holds messages and heal delivers them in order", "[network][faults]") {
  ProbeCluster c(2);
  FaultInjector faults(c.sim);
  const ConnectionId conn = c[0].connect(c[1].id());
  faults.schedule(Fault{.kind = FaultKind::Partition, .at = milliseconds(10), .duration = seconds(2),
                        .nodes = {c[0].id()}});
  for (std::uint64_t i = 0; i < 10; ++i) {
    c[0].set_timer(milliseconds(20 + static_cast<std::int64_t>(i)), [&c, conn, i] { c[0].send_payload(conn, i, 100); });
  }
  c.sim.run_until(seconds(2));
  CHECK(c[1].received.empty());
  c.sim.run_until(seconds(3));
  REQUIRE(c[1].received.size() == 10);
  for (std::uint64_t i = 0; i < 10; ++i) CHECK(c[1].received[i].id == i);
  CHECK(c[1].received[0].at >= milliseconds(2010));
  CHECK(c.sim.network().is_open(conn));
  CHECK(faults.coverage().at("partition") == 1);
}

TEST_CASE("a one-way partition cuts only one direction", "[network][faults]") {
  ProbeCluster c(2);
  FaultInjector faults(c.sim);
  const ConnectionId conn = c[0].connect(c[1].id());
  // From 50us, once the handshake is done (a cut handshake waits: test_connection_handshake.cpp).
  faults.schedule(Fault{.kind = FaultKind::Partition, .at = microseconds(50), .duration = seconds(1),
                        .nodes = {c[0].id()}, .other_nodes = {c[1].id()}, .one_way = true});
  c[0].set_timer(milliseconds(1), [&] { c[0].send_payload(conn, 1, 100); });
  c[1].set_timer(milliseconds(1), [&] { c[1].send_payload(conn, 2, 100); });
  c.sim.run_until(milliseconds(500));
  CHECK(c[1].received.empty());
  REQUIRE(c[0].received.size() == 1);
  CHECK(c[0].received[0].id == 2);
}

TEST_CASE("a cut longer than the reset timeout resets the connection and drops its messages", "[network][faults]") {
  NetworkOptions options;
  options.connection_reset_timeout = seconds(5);
  ProbeCluster c(2, 100, {1.25e8, microseconds(10)}, options);
  FaultInjector faults(c.sim);
  const ConnectionId conn = c[0].connect(c[1].id());
  faults.schedule(Fault{.kind = FaultKind::Partition, .at = microseconds(50), .duration = seconds(20),
                        .nodes = {c[1].id()}});  // once the handshake is done
  c[0].set_timer(milliseconds(1), [&] { c[0].send_payload(conn, 1, 100); });
  c.sim.run_until(seconds(4));
  CHECK(c.sim.network().is_open(conn));
  c.sim.run_until(seconds(6));
  CHECK_FALSE(c.sim.network().is_open(conn));
  CHECK(c[0].closed == std::vector<ConnectionId>{conn});
  CHECK(c[1].closed == std::vector<ConnectionId>{conn});
  c.sim.run_until(seconds(30));
  CHECK(c[1].received.empty());
  CHECK(c.sim.network().stats().messages_dropped == 1);
  CHECK_FALSE(c[0].send_payload(conn, 2, 100));
}

TEST_CASE("a latency spike delays messages of its targets only while it lasts", "[network][faults]") {
  ProbeCluster c(3);
  FaultInjector faults(c.sim);
  const ConnectionId to_slow = c[0].connect(c[1].id());
  const ConnectionId to_fast = c[0].connect(c[2].id());
  faults.schedule(Fault{.kind = FaultKind::LatencySpike, .at = 0, .duration = seconds(1), .nodes = {c[1].id()},
                        .extra_latency = milliseconds(400)});
  c[0].set_timer(milliseconds(1), [&] {
    c[0].send_payload(to_slow, 1, 100);
    c[0].send_payload(to_fast, 2, 100);
  });
  c[0].set_timer(seconds(2), [&] { c[0].send_payload(to_slow, 3, 100); });
  c.sim.run_until(seconds(3));
  REQUIRE(c[1].received.size() == 2);
  REQUIRE(c[2].received.size() == 1);
  CHECK(c[1].received[0].at > milliseconds(401));
  CHECK(c[2].received[0].at < milliseconds(2));
  CHECK(c[1].received[1].at < seconds(2) + milliseconds(1));
}

TEST_CASE("a link slowdown stretches transmission by its factor", "[network][faults]") {
  ProbeCluster c(2);
  FaultInjector faults(c.sim);
  const ConnectionId conn = c[0].connect(c[1].id());
  const VertexId h1 = *c.sim.topology().find("h1");
  faults.schedule(Fault{.kind = FaultKind::LinkSlowdown, .at = 0, .duration = seconds(1), .bandwidth_factor = 0.1,
                        .links = c.sim.topology().links_touching(h1)});
  c[0].set_timer(milliseconds(1), [&] { c[0].send_payload(conn, 1, 125'000); });
  c.sim.run_until(seconds(2));
  REQUIRE(c[1].received.size() == 1);
  CHECK(c[1].received[0].at == milliseconds(1) + milliseconds(10) + microseconds(20));
  CHECK(c.sim.topology().link(c.sim.topology().links_touching(h1)[0]).bandwidth_factor == 1.0);
}

TEST_CASE("a jitter burst replaces the jitter distribution for its window", "[network][faults]") {
  ProbeCluster c(2, 100, {1.25e9, microseconds(10)});
  FaultInjector faults(c.sim);
  const ConnectionId conn = c[0].connect(c[1].id());
  faults.schedule(Fault{.kind = FaultKind::JitterBurst, .at = 0, .duration = seconds(1),
                        .jitter = Distribution::constant(milliseconds(50))});
  c[0].set_timer(milliseconds(1), [&] { c[0].send_payload(conn, 1, 100); });
  c[0].set_timer(seconds(2), [&] { c[0].send_payload(conn, 2, 100); });
  c.sim.run_until(seconds(3));
  REQUIRE(c[1].received.size() == 2);
  CHECK(c[1].received[0].at > milliseconds(51));
  CHECK(c[1].received[1].at < seconds(2) + milliseconds(1));
}

TEST_CASE("routes cross racks through the spine and are recomputed when links change", "[network]") {
  Topology t = ProbeCluster::make_topology(4, 2, {1.25e9, microseconds(10)});
  const VertexId h0 = *t.find("h0"), h1 = *t.find("h1"), h2 = *t.find("h2");
  CHECK(t.route(h0, h1).size() == 2);  // same rack: host -> rack switch -> host
  CHECK(t.route(h0, h2).size() == 4);  // host -> rack -> spine -> rack -> host
  t.add_link(h0, h2, {1.25e9, microseconds(1)});  // a direct cable
  CHECK(t.route(h0, h2).size() == 1);
}

// A crash does not recall what the crashed node had already put on the wire:
// a fetch response on its way still arrives (ground truth: a leader killed
// behind a latency spike, docs/ground-truth.md), and its peer learns of the
// reset after it. What was on its way to the crashed node is gone.
TEST_CASE("a crashed sender's messages already on the wire still arrive before its peer learns of the reset",
          "[network][faults]") {
  ProbeCluster c(2);
  FaultInjector faults(c.sim);
  const ConnectionId conn = c[0].connect(c[1].id());
  faults.schedule(Fault{.kind = FaultKind::LatencySpike, .at = microseconds(50), .duration = seconds(1),
                        .nodes = {c[1].id()}, .extra_latency = milliseconds(100)});  // once the handshake is done
  c[0].set_timer(milliseconds(1), [&] { c[0].send_payload(conn, 1, 100); });  // arrives after 101ms
  c[1].set_timer(milliseconds(2), [&] { c[1].send_payload(conn, 2, 100); });  // to the node about to crash
  c.sim.events().schedule_at(milliseconds(50), [&] { c[0].crash(); });
  c.sim.run_until(milliseconds(100));
  CHECK(c[1].received.empty());
  CHECK(c[1].closed.empty());  // not before what was sent ahead of the reset
  c.sim.run_until(seconds(1));
  REQUIRE(c[1].received.size() == 1);
  CHECK(c[1].received[0].id == 1);
  CHECK(c[1].received[0].at > milliseconds(101));
  CHECK(c[1].closed == std::vector<ConnectionId>{conn});
  CHECK(c[0].received.empty());
  CHECK(c.sim.network().stats().messages_dropped == 1);
}

// kill -9: the kernel frees the process's memory before it closes its sockets
// (ground truth: a killed leader's producer had five requests in flight that
// were never answered, docs/ground-truth.md item 10).
TEST_CASE("a killed process's peers learn of it after its exit teardown and lose what they send meanwhile",
          "[network][faults]") {
  ProbeCluster c(2);
  c[1].set_exit_teardown(milliseconds(30));
  const ConnectionId conn = c[0].connect(c[1].id());
  c.sim.events().schedule_at(milliseconds(10), [&] { c[1].crash(CrashKind::Process); });
  c[0].set_timer(milliseconds(20), [&] { c[0].send_payload(conn, 1, 100); });
  c.sim.run_until(milliseconds(39));
  CHECK(c[0].closed.empty());
  CHECK(c.sim.network().is_open(conn));
  c.sim.run_until(seconds(1));
  CHECK(c[0].closed == std::vector<ConnectionId>{conn});
  CHECK(c[1].received.empty());
  const ConnectionId later = c[0].connect(c[1].id());  // nothing listens meanwhile: refused
  c.sim.run_until(seconds(2));
  CHECK(c[0].closed == std::vector<ConnectionId>{conn, later});
}

TEST_CASE("a graceful stop closes the connections at once, whatever the exit teardown", "[network][faults]") {
  ProbeCluster c(2);
  c[1].set_exit_teardown(milliseconds(30));
  const ConnectionId conn = c[0].connect(c[1].id());
  c.sim.events().schedule_at(milliseconds(10), [&] { c[1].crash(CrashKind::Shutdown); });
  c.sim.run_until(milliseconds(11));
  CHECK(c[0].closed == std::vector<ConnectionId>{conn});
}

// A machine that loses power sends no reset: its peers learn nothing until
// their own timeouts, or until a retransmission meets the machine back up.
TEST_CASE("a power loss tells its peers nothing: what they send is held until the connection reset timeout",
          "[network][faults][power-loss]") {
  ProbeCluster c(2);
  const ConnectionId conn = c[0].connect(c[1].id());
  c.sim.events().schedule_at(milliseconds(10), [&] { c[1].crash(CrashKind::Machine); });
  c[0].set_timer(milliseconds(20), [&] { c[0].send_payload(conn, 1, 100); });
  c.sim.run_until(seconds(10));
  CHECK(c[0].closed.empty());
  CHECK(c.sim.network().is_open(conn));
  c.sim.run_until(seconds(11));  // held since 20 ms: the reset timeout (10 s) has passed
  CHECK(c[0].closed == std::vector<ConnectionId>{conn});
  CHECK(c[1].received.empty());
  CHECK(c[1].closed.empty());
  CHECK(c.sim.network().stats().messages_dropped == 1);
}

TEST_CASE("a machine back after a power loss answers its peers' retransmissions with a reset",
          "[network][faults][power-loss]") {
  ProbeCluster c(2);
  const ConnectionId conn = c[0].connect(c[1].id());
  const ConnectionId idle = c[1].connect(c[0].id());  // nothing goes on it
  c.sim.events().schedule_at(milliseconds(10), [&] { c[1].crash(CrashKind::Machine); });
  c[0].set_timer(milliseconds(20), [&] { c[0].send_payload(conn, 1, 100); });
  c.sim.events().schedule_at(seconds(2), [&] { c[1].restart(); });
  c.sim.run_until(seconds(2) - 1);
  CHECK(c[0].closed.empty());
  c.sim.run_until(seconds(2) + milliseconds(1));
  CHECK(c[0].closed == std::vector<ConnectionId>{conn});  // its retransmission met the new process's kernel
  CHECK(c[1].received.empty());  // which never had the connection
  CHECK(c[1].closed.empty());
  CHECK(c.sim.network().is_open(idle));  // nothing sent on it: nobody knows yet
}

TEST_CASE("a connect to a machine that is off gets no answer: it gives up at its connect timeout, or a SYN it "
          "sends again reaches the machine back up",
          "[network][faults][power-loss]") {
  for (const bool back : {false, true}) {
    INFO("back " << back);
    ProbeCluster c(2);
    c[0].set_connect_timeout(seconds(10));
    c.sim.events().schedule_at(milliseconds(1), [&] { c[1].crash(CrashKind::Machine); });
    if (back) c.sim.events().schedule_at(seconds(5), [&] { c[1].restart(); });
    ConnectionId conn = 0;
    c[0].set_timer(milliseconds(2), [&] { conn = c[0].connect(c[1].id()); });
    c.sim.run_until(seconds(5));
    CHECK(c[0].closed.empty());
    CHECK(c[0].connected.empty());
    c.sim.run_until(seconds(11));
    CHECK(c.sim.network().stats().connections_refused == 0);
    if (back) {
      // SYNs at 2 ms, then 1, 3 and 7 s later: the one at about 7 s finds it running.
      REQUIRE(c[0].connected.size() == 1);
      CHECK(c[0].connected[0].first > seconds(7));
      CHECK(c[0].connected[0].first < seconds(7) + milliseconds(10));
      CHECK(c[0].closed.empty());
    } else {
      CHECK(c[0].connected.empty());
      CHECK(c[0].closed == std::vector<ConnectionId>{conn});
    }
  }
}
