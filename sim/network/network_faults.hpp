#pragma once
// The network faults in force at one instant: cuts (partitions), latency
// spikes, jitter bursts and link slowdowns. Each is a small named predicate
// or adjustment that the network consults per message; the fault injector
// adds them when a fault starts and removes them when it ends.
#include <cstdint>
#include <map>
#include <vector>

#include "sim/random/distribution.hpp"
#include "sim/network/message.hpp"
#include "sim/network/topology.hpp"

namespace ksim {

using FaultHandle = std::uint64_t;

class NetworkFaults {
 public:
  explicit NetworkFaults(Topology& topology) : topology_(topology) {}

  // Traffic from `side_a` to `side_b` is cut, and back again unless one-way.
  FaultHandle add_cut(std::vector<NodeId> side_a, std::vector<NodeId> side_b, bool one_way);
  // Extra delay on every message sent by or to a target (no targets: all messages).
  FaultHandle add_latency_spike(std::vector<NodeId> targets, SimTime extra);
  // A different jitter distribution for messages sent by or to a target (no targets: all).
  FaultHandle add_jitter_burst(std::vector<NodeId> targets, Distribution jitter);
  // Multiplies the bandwidth of these links by `factor` (0 < factor).
  FaultHandle add_link_slowdown(std::vector<LinkId> links, double factor);
  void remove(FaultHandle handle);

  bool any_cut() const { return cut_count_ > 0; }
  bool is_cut(NodeId from, NodeId to) const;
  SimTime extra_latency(NodeId from, NodeId to) const;
  // The jitter of the most recent burst covering this pair, or nullptr.
  const Distribution* jitter_override(NodeId from, NodeId to) const;
  std::size_t active() const { return effects_.size(); }

 private:
  enum class Kind { Cut, LatencySpike, JitterBurst, LinkSlowdown };
  struct Effect {
    Kind kind;
    std::vector<NodeId> side_a{};  // sorted; for spikes and bursts, the targets
    std::vector<NodeId> side_b{};  // sorted; cuts only
    bool one_way = false;
    SimTime extra = 0;
    Distribution jitter{};
    std::vector<LinkId> links{};
    double factor = 1.0;
  };
  static bool contains(const std::vector<NodeId>& sorted, NodeId node);
  static bool covers(const Effect& e, NodeId from, NodeId to);
  FaultHandle add(Effect effect);
  void recompute_link_factors(const std::vector<LinkId>& links);

  Topology& topology_;
  std::map<FaultHandle, Effect> effects_;  // ordered by handle: deterministic iteration
  FaultHandle next_handle_ = 1;
  int cut_count_ = 0;
  int spike_count_ = 0;
  int burst_count_ = 0;
};

}  // namespace ksim
