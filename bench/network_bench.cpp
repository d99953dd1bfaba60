#include "bench/network_bench.hpp"

#include <chrono>
#include <string>

#include "sim/core/simulation.hpp"

namespace ksim::bench {

namespace {

struct Ping final : Message {
  explicit Ping(std::uint64_t bytes) : bytes(bytes) {}
  std::uint64_t bytes;
  std::uint64_t size_bytes() const override { return bytes; }
  std::string_view name() const override { return "ping"; }
};

// Echoes every message back on its connection, reusing the message object.
class EchoServer final : public Node {
 public:
  using Node::Node;

 private:
  void on_message(ConnectionId connection, MessagePtr message) override { send(connection, std::move(message)); }
};

// Sends the next request when the previous response arrives, `rounds` times.
class PingClient final : public Node {
 public:
  PingClient(Simulation& sim, std::string name, HostId host, NodeId server, std::uint64_t rounds, std::uint64_t bytes)
      : Node(sim, std::move(name), host), server_(server), rounds_left_(rounds), bytes_(bytes) {}

 private:
  void on_start() override {
    connection_ = connect(server_);
    send(connection_, std::make_unique<Ping>(bytes_));
  }
  void on_message(ConnectionId connection, MessagePtr message) override {
    if (--rounds_left_ > 0) send(connection, std::move(message));
  }

  NodeId server_;
  std::uint64_t rounds_left_;
  std::uint64_t bytes_;
  ConnectionId connection_ = 0;
};

Topology make_topology(const NetworkBenchOptions& options) {
  RackLayout layout;
  for (std::uint32_t i = 0; i < options.pairs * 2; ++i) {
    layout.hosts.push_back({"host-" + std::to_string(i), "rack-" + std::to_string(i / options.hosts_per_rack)});
  }
  return build_rack_topology(layout);
}

}  // namespace

NetworkBenchResult run_network_bench(const NetworkBenchOptions& options) {
  NetworkOptions network;
  if (options.jitter) network.jitter = Distribution::lognormal(microseconds(10), 0.5);
  Simulation sim(options.seed, make_topology(options), network);
  for (std::uint32_t p = 0; p < options.pairs; ++p) {
    // Server p sits on host p, its client on the mirror host, often in another rack.
    const auto server_host = *sim.topology().find("host-" + std::to_string(p));
    const auto client_host = *sim.topology().find("host-" + std::to_string(options.pairs * 2 - 1 - p));
    auto& server = sim.spawn<EchoServer>("server-" + std::to_string(p), server_host);
    auto& client = sim.spawn<PingClient>("client-" + std::to_string(p), client_host, server.id(), options.rounds,
                                         options.size_bytes);
    server.start();
    client.start();
  }
  // Wall-clock time measures the benchmark only; it never reaches the simulation.
  const auto start = std::chrono::steady_clock::now();
  while (sim.events().step()) {}
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  NetworkBenchResult result;
  result.messages = sim.network().stats().messages_delivered;
  result.events = sim.events().events_executed();
  result.wall_s = wall;
  result.sim_time_s = to_seconds(sim.now());
  result.messages_per_second = wall > 0 ? static_cast<double>(result.messages) / wall : 0;
  result.trace_hash = sim.trace().hash();
  return result;
}

}  // namespace ksim::bench
