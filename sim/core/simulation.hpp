#pragma once
// One simulation instance: the clock and event queue, the trace, the
// logger, the topology and network, and the nodes. No global state, so
// several simulations can live in one process (sweeps, tests).
#include <memory>
#include <string_view>
#include <vector>

#include "sim/events/event_queue.hpp"
#include "sim/core/network.hpp"
#include "sim/core/node.hpp"
#include "sim/random/random.hpp"
#include "sim/observe/sim_logger.hpp"
#include "sim/network/topology.hpp"
#include "sim/observe/trace.hpp"

namespace ksim {

class Simulation {
 public:
  Simulation(std::uint64_t seed, Topology topology, NetworkOptions network_options,
             spdlog::level::level_enum log_level = spdlog::level::warn);
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;
  ~Simulation();

  std::uint64_t seed() const { return seed_; }
  SimTime now() const { return events_.now(); }
  EventQueue& events() { return events_; }
  const EventQueue& events() const { return events_; }
  Trace& trace() { return trace_; }
  const Trace& trace() const { return trace_; }
  SimLogger& log() { return log_; }
  Topology& topology() { return topology_; }
  const Topology& topology() const { return topology_; }
  Network& network() { return network_; }
  const Network& network() const { return network_; }

  // An independent random stream for a component, stable under adding others.
  RandomStream stream(std::string_view component_name) const {
    return RandomStream::derive(seed_, component_name);
  }

  // Creates a node owned by the simulation; ids follow creation order.
  template <class T, class... Args>
  T& spawn(Args&&... args) {
    auto node = std::make_unique<T>(*this, std::forward<Args>(args)...);
    T& ref = *node;
    owned_.push_back(std::move(node));
    return ref;
  }
  Node& node(NodeId id) { return *nodes_[id]; }
  const Node& node(NodeId id) const { return *nodes_[id]; }
  std::size_t node_count() const { return nodes_.size(); }
  Node* find_node(std::string_view name);

  NodeId register_node(Node& node);  // called by Node's constructor

  void run_until(SimTime until) { events_.run_until(until); }

 private:
  std::uint64_t seed_;
  EventQueue events_;
  Trace trace_;
  SimLogger log_;
  Topology topology_;
  Network network_;
  std::vector<Node*> nodes_;
  std::vector<std::unique_ptr<Node>> owned_;
};

}  // namespace ksim
