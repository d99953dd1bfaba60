#include <catch2/catch.hpp>

#include "bench/network_bench.hpp"
#include "sim/events/event_queue.hpp"
#include "sim/random/random.hpp"
#include "tests/support/allocation_counter.hpp"
#include "tests/support/probe_node.hpp"

using namespace ksim;

TEST_CASE("scheduling and running events does not allocate per event", "[engine][allocation]") {
  EventQueue q;
  RandomStream rng(3);
  std::uint64_t ran = 0;
  struct Hop {
    EventQueue* q;
    RandomStream* rng;
    std::uint64_t* ran;
    void operator()() const {
      ++*ran;
      q->schedule_after(static_cast<SimTime>(rng->exponential(1000)), *this);
    }
  };
  for (int i = 0; i < 10000; ++i) q.schedule_after(static_cast<SimTime>(rng.exponential(1000)), Hop{&q, &rng, &ran});
  for (int i = 0; i < 200000; ++i) q.step();  // warm: buckets and slots at their working size
  const std::uint64_t before = testing::allocations;
  for (int i = 0; i < 1000000; ++i) q.step();
  // Only the rare growth of a bucket past its largest size so far allocates.
  CHECK(testing::allocations - before < 100);
  CHECK(ran == 1200000);
}

TEST_CASE("sending and delivering a reused message does not allocate per message", "[network][allocation]") {
  ksim::testing::ProbeCluster c(2);
  // Ping-pong one message object back and forth through the full network path.
  struct Echo final : Node {
    using Node::Node;
    std::uint64_t received = 0;
    void on_message(ConnectionId cn, MessagePtr m) override {
      ++received;
      send(cn, std::move(m));
    }
  };
  auto& a = c.sim.spawn<Echo>("a", c[0].host());
  auto& b = c.sim.spawn<Echo>("b", c[1].host());
  a.start();
  b.start();
  const ConnectionId ab = c.sim.network().connect(a.id(), b.id());
  c.sim.network().send(ab, a.id(), std::make_unique<ksim::testing::Payload>(1, 1000));
  c.sim.run_until(milliseconds(100));  // warm
  const std::uint64_t before = testing::allocations;
  const std::uint64_t received_before = a.received + b.received;
  c.sim.run_until(seconds(2));
  const std::uint64_t delivered = a.received + b.received - received_before;
  CHECK(delivered > 10000);
  CHECK(testing::allocations - before < delivered / 1000);
}
