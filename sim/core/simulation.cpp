#include "sim/core/simulation.hpp"

namespace ksim {

Simulation::Simulation(std::uint64_t seed, Topology topology, NetworkOptions network_options,
                       spdlog::level::level_enum log_level)
    : seed_(seed),
      log_(events_, log_level),
      topology_(std::move(topology)),
      network_(*this, topology_, std::move(network_options)) {}

Simulation::~Simulation() = default;

void Simulation::run_until(SimTime until) {
  if (after_event_hooks_.empty()) return events_.run_until(until);
  while (events_.next_time() <= until) {
    events_.step();
    for (const auto& hook : after_event_hooks_) hook();
  }
  events_.run_until(until);  // no event is left before `until`: this moves the clock
}

NodeId Simulation::register_node(Node& node) {
  nodes_.push_back(&node);
  return static_cast<NodeId>(nodes_.size() - 1);
}

Node* Simulation::find_node(std::string_view name) {
  for (Node* n : nodes_) {
    if (n->name() == name) return n;
  }
  return nullptr;
}

}  // namespace ksim
