#pragma once
// One simulation instance: the clock and event queue, the trace, the
// logger, the topology and network, and the nodes. No global state, so
// several simulations can live in one process (sweeps, tests).
#include <functional>
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

  // Runs every event due at or before `until` (then the clock is `until`),
  // calling the after-event hooks after each one.
  void run_until(SimTime until);

  // Called after every event, in the order added (invariant checks).
  void add_after_event_hook(std::function<void()> hook) { after_event_hooks_.push_back(std::move(hook)); }
  // Hears every node start, crash, pause, resume and shutdown request, after the node handled it.
  using NodeObserver = std::function<void(const Node&, NodeChange)>;
  void observe_nodes(NodeObserver observer) { node_observers_.push_back(std::move(observer)); }
  void node_changed(const Node& node, NodeChange change) {  // called by Node
    for (const NodeObserver& observer : node_observers_) observer(node, change);
  }

 private:
  std::uint64_t seed_;
  EventQueue events_;
  Trace trace_;
  SimLogger log_;
  Topology topology_;
  Network network_;
  std::vector<Node*> nodes_;
  std::vector<std::unique_ptr<Node>> owned_;
  std::vector<std::function<void()>> after_event_hooks_;
  std::vector<NodeObserver> node_observers_;
};

}  // namespace ksim
