#pragma once
// A fault: what goes wrong, when, for how long and to whom. Targets are
// already resolved to node and link ids (the scenario loader does that).
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/random/distribution.hpp"
#include "sim/network/message.hpp"
#include "sim/network/network_faults.hpp"
#include "sim/core/node.hpp"
#include "sim/network/topology.hpp"

namespace ksim {

enum class FaultKind {
  Partition,     // cut traffic between `nodes` and `other_nodes` (everyone else when empty)
  JitterBurst,   // `jitter` replaces the network's jitter for traffic of `nodes` (all when empty)
  LatencySpike,  // `extra_latency` added to traffic of `nodes` (all when empty)
  LinkSlowdown,  // `links` run at `bandwidth_factor` of their bandwidth
  NodePause,     // `nodes` stall (GC-like) for the duration
  NodeCrash,     // `nodes` crash, and restart after the duration (never when it is 0)
  NodeShutdown,  // `nodes` shut down cleanly, and restart after the duration (never when it is 0)
  Extension,     // a fault of the models (a disk fault, say), applied by a handler they register
};
constexpr FaultKind kEngineFaultKinds[] = {FaultKind::Partition, FaultKind::JitterBurst,  FaultKind::LatencySpike,
                                           FaultKind::LinkSlowdown, FaultKind::NodePause, FaultKind::NodeCrash,
                                           FaultKind::NodeShutdown};

std::string_view to_string(FaultKind kind);

struct Fault {
  FaultKind kind = FaultKind::NodeCrash;
  SimTime at = 0;
  SimTime duration = 0;
  std::vector<NodeId> nodes{};
  std::vector<NodeId> other_nodes{};  // partition only
  bool one_way = false;             // partition only: cut `nodes` -> `other_nodes` but not back
  SimTime extra_latency = 0;        // latency spike
  Distribution jitter{};            // jitter burst
  double bandwidth_factor = 1.0;    // link slowdown
  std::vector<LinkId> links{};      // link slowdown
  CrashKind crash_kind = CrashKind::Process;
  std::string extension{};          // extension faults: the handler's name
  std::string target{};             // extension faults: what inside the nodes (a log dir, say)
  // Targets known only when the fault starts (a role a model assigns at run
  // time, such as the active controller): when set, called just before the
  // fault is applied, to fill in `nodes` and `other_nodes`. False when a
  // target stands for nobody then (a partition without a leader): the fault
  // does not fire, and counts as missed.
  std::function<bool(Fault&)> resolve_at_start{};
};

}  // namespace ksim
