#pragma once
// Test helpers: a node that records what reaches it, and a small cluster.
#include <memory>
#include <string>
#include <vector>

#include "sim/core/simulation.hpp"

namespace ksim::testing {

struct Payload final : Message {
  Payload(std::uint64_t id, std::uint64_t bytes) : id(id), bytes(bytes) {}
  std::uint64_t id;
  std::uint64_t bytes;
  std::uint64_t size_bytes() const override { return bytes; }
  std::string_view name() const override { return "payload"; }
};

class ProbeNode : public Node {
 public:
  struct Received {
    SimTime at;
    ConnectionId connection;
    std::uint64_t id;
  };
  using Node::Node;
  using Node::cancel_timer;
  using Node::close;
  using Node::connect;
  using Node::established;
  using Node::send;
  using Node::set_timer;

  bool send_payload(ConnectionId c, std::uint64_t id, std::uint64_t bytes) {
    return send(c, std::make_unique<Payload>(id, bytes));
  }

  std::vector<Received> received;
  std::vector<ConnectionId> closed;
  std::vector<std::pair<SimTime, ConnectionId>> connected;  // on_connected: when, which
  std::vector<SimTime> timer_fired_at;
  int crashes = 0;
  int starts = 0;

 protected:
  void on_start() override { ++starts; }
  void on_crash(CrashKind) override { ++crashes; }
  void on_message(ConnectionId c, MessagePtr m) override {
    received.push_back({now(), c, static_cast<Payload&>(*m).id});
  }
  void on_connection_closed(ConnectionId c) override { closed.push_back(c); }
  void on_connected(ConnectionId c) override { connected.emplace_back(now(), c); }
};

// Hosts h0..h{n-1}, `per_rack` to a rack, one ProbeNode per host named like its host.
struct ProbeCluster {
  explicit ProbeCluster(int hosts, int per_rack = 100, LinkSpec host_link = {1.25e8, microseconds(10)},
                        NetworkOptions options = {}, std::uint64_t seed = 1)
      : sim(seed, make_topology(hosts, per_rack, host_link), options) {
    for (int i = 0; i < hosts; ++i) {
      const std::string name = "h" + std::to_string(i);
      nodes.push_back(&sim.spawn<ProbeNode>(name, *sim.topology().find(name)));
    }
    for (ProbeNode* n : nodes) n->start();
  }
  static Topology make_topology(int hosts, int per_rack, LinkSpec host_link) {
    RackLayout layout;
    layout.host_link = host_link;
    for (int i = 0; i < hosts; ++i) layout.hosts.push_back({"h" + std::to_string(i), "r" + std::to_string(i / per_rack)});
    return build_rack_topology(layout);
  }
  ProbeNode& operator[](std::size_t i) { return *nodes[i]; }

  Simulation sim;
  std::vector<ProbeNode*> nodes;
};

}  // namespace ksim::testing
