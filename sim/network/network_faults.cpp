#include "sim/network/network_faults.hpp"

#include <algorithm>
#include <cassert>

namespace ksim {

static std::vector<NodeId> sorted(std::vector<NodeId> nodes) {
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

bool NetworkFaults::contains(const std::vector<NodeId>& sorted_nodes, NodeId node) {
  return std::binary_search(sorted_nodes.begin(), sorted_nodes.end(), node);
}

bool NetworkFaults::covers(const Effect& e, NodeId from, NodeId to) {
  return e.side_a.empty() || contains(e.side_a, from) || contains(e.side_a, to);
}

FaultHandle NetworkFaults::add(Effect effect) {
  const FaultHandle handle = next_handle_++;
  effects_.emplace(handle, std::move(effect));
  return handle;
}

FaultHandle NetworkFaults::add_cut(std::vector<NodeId> side_a, std::vector<NodeId> side_b, bool one_way) {
  ++cut_count_;
  return add(Effect{.kind = Kind::Cut, .side_a = sorted(std::move(side_a)), .side_b = sorted(std::move(side_b)),
                    .one_way = one_way});
}

FaultHandle NetworkFaults::add_latency_spike(std::vector<NodeId> targets, SimTime extra) {
  assert(extra >= 0);
  ++spike_count_;
  return add(Effect{.kind = Kind::LatencySpike, .side_a = sorted(std::move(targets)), .extra = extra});
}

FaultHandle NetworkFaults::add_jitter_burst(std::vector<NodeId> targets, Distribution jitter) {
  ++burst_count_;
  return add(Effect{.kind = Kind::JitterBurst, .side_a = sorted(std::move(targets)), .jitter = jitter});
}

FaultHandle NetworkFaults::add_link_slowdown(std::vector<LinkId> links, double factor) {
  assert(factor > 0);
  const FaultHandle handle = add(Effect{.kind = Kind::LinkSlowdown, .links = links, .factor = factor});
  recompute_link_factors(links);
  return handle;
}

void NetworkFaults::remove(FaultHandle handle) {
  const auto it = effects_.find(handle);
  assert(it != effects_.end());
  const Effect effect = std::move(it->second);
  effects_.erase(it);
  switch (effect.kind) {
    case Kind::Cut: --cut_count_; break;
    case Kind::LatencySpike: --spike_count_; break;
    case Kind::JitterBurst: --burst_count_; break;
    case Kind::LinkSlowdown: recompute_link_factors(effect.links); break;
  }
}

// Overlapping slowdowns multiply; recomputing from the active set avoids drift.
void NetworkFaults::recompute_link_factors(const std::vector<LinkId>& links) {
  for (const LinkId l : links) {
    double factor = 1.0;
    for (const auto& [handle, e] : effects_) {
      if (e.kind == Kind::LinkSlowdown && std::find(e.links.begin(), e.links.end(), l) != e.links.end()) {
        factor *= e.factor;
      }
    }
    topology_.link(l).bandwidth_factor = factor;
  }
}

bool NetworkFaults::is_cut(NodeId from, NodeId to) const {
  if (cut_count_ == 0) return false;
  for (const auto& [handle, e] : effects_) {
    if (e.kind != Kind::Cut) continue;
    if (contains(e.side_a, from) && contains(e.side_b, to)) return true;
    if (!e.one_way && contains(e.side_b, from) && contains(e.side_a, to)) return true;
  }
  return false;
}

SimTime NetworkFaults::extra_latency(NodeId from, NodeId to) const {
  if (spike_count_ == 0) return 0;
  SimTime extra = 0;
  for (const auto& [handle, e] : effects_) {
    if (e.kind == Kind::LatencySpike && covers(e, from, to)) extra = std::max(extra, e.extra);
  }
  return extra;
}

const Distribution* NetworkFaults::jitter_override(NodeId from, NodeId to) const {
  if (burst_count_ == 0) return nullptr;
  const Distribution* found = nullptr;
  for (const auto& [handle, e] : effects_) {
    if (e.kind == Kind::JitterBurst && covers(e, from, to)) found = &e.jitter;
  }
  return found;
}

}  // namespace ksim
