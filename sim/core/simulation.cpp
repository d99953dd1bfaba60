#include "sim/core/simulation.hpp"

namespace ksim {

Simulation::Simulation(std::uint64_t seed, Topology topology, NetworkOptions network_options,
                       spdlog::level::level_enum log_level)
    : seed_(seed),
      log_(events_, log_level),
      topology_(std::move(topology)),
      network_(*this, topology_, std::move(network_options)) {}

Simulation::~Simulation() = default;

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
