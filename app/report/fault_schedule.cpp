#include "app/report/fault_schedule.hpp"

#include <algorithm>

#include <yaml-cpp/yaml.h>

#include "app/scenario/units.hpp"

namespace ksim::app {

namespace {

std::vector<std::string> fault_node_names(const Simulation& sim, const std::vector<NodeId>& nodes) {
  std::vector<std::string> out;
  for (const NodeId n : nodes) out.push_back(sim.node(n).name());
  return out;
}

// What `links:` names for a slowed link: its host, or the rack whose uplink to the spine it is
// (Cluster::resolve_links); otherwise the vertex it leaves from.
std::vector<std::string> fault_link_names(const Simulation& sim, const std::vector<LinkId>& links) {
  std::vector<std::string> out;
  const Topology& topology = sim.topology();
  for (const LinkId l : links) {
    const Link& link = topology.link(l);
    std::string name = topology.is_host(link.to) ? topology.name(link.to) : topology.name(link.from);
    for (const VertexId v : {link.from, link.to}) {
      if (topology.name(v).starts_with("rack:")) name = topology.name(v).substr(5);
    }
    if (topology.is_host(link.from)) name = topology.name(link.from);
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

// A distribution as its scenario mapping: {"distribution": "pareto", "scale": "100000ns", "shape": "1.2"}.
nlohmann::ordered_json fault_jitter_json(const Distribution& d) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& entry : YAML::Load(d.as_yaml())) j[entry.first.as<std::string>()] = entry.second.as<std::string>();
  return j;
}

nlohmann::ordered_json fault_entry(const Cluster::FiredFault& fired, const Simulation& sim) {
  const Fault& f = fired.fault;
  nlohmann::ordered_json j;
  j["kind"] = fired.kind;
  j["at"] = units::format_exact_duration(fired.at);
  if (f.duration > 0) j["duration"] = units::format_exact_duration(f.duration);
  if (f.kind == FaultKind::LinkSlowdown) {
    j["links"] = fault_link_names(sim, f.links);
  } else if (!f.nodes.empty()) {
    j["nodes"] = fault_node_names(sim, f.nodes);
  }
  switch (f.kind) {
    case FaultKind::Partition:
      if (!f.other_nodes.empty()) j["other_nodes"] = fault_node_names(sim, f.other_nodes);
      if (f.one_way) j["one_way"] = true;
      break;
    case FaultKind::JitterBurst: j["jitter"] = fault_jitter_json(f.jitter); break;
    case FaultKind::LatencySpike: j["extra"] = units::format_exact_duration(f.extra_latency); break;
    case FaultKind::LinkSlowdown: j["factor"] = f.bandwidth_factor; break;
    case FaultKind::NodeCrash:
      if (f.crash_kind == CrashKind::Machine) j["power_loss"] = true;
      break;
    case FaultKind::NodePause:
    case FaultKind::NodeShutdown: break;
    case FaultKind::Extension:
      j["log_dir"] = f.target;
      if (fired.kind == "disk_slow") j["factor"] = f.bandwidth_factor;
      break;
  }
  return j;
}

}  // namespace

nlohmann::ordered_json fault_schedule(const Cluster& cluster) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& fired : cluster.fired_faults()) list.push_back(fault_entry(fired, cluster.sim()));
  return list;
}

}  // namespace ksim::app
