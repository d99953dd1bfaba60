#include "app/cluster.hpp"

#include <algorithm>
#include <set>

#include "sim/nemesis.hpp"

namespace ksim::app {

Cluster::Cluster(const Scenario& scenario, const RunOptions& options)
    : scenario_(scenario), placements_(node_placements(scenario)) {
  sim_ = std::make_unique<Simulation>(scenario.seed, build_topology(), scenario.network.options, options.log_level);
  sim_->trace().write_to(options.trace_out);
  faults_ = std::make_unique<FaultInjector>(*sim_);
  spawn_nodes();
  schedule_faults();
  plan_nemesis();
}

Topology Cluster::build_topology() const {
  const NetworkSpec& net = scenario_.network;
  if (net.links.empty()) {
    RackLayout layout;
    layout.host_link = net.host_link;
    layout.spine_link = net.spine_link;
    for (const auto& p : placements_) layout.hosts.push_back({p.name, p.rack});
    return build_rack_topology(layout);
  }
  Topology topology;
  for (const auto& name : net.switches) topology.add_switch(name);
  for (const auto& p : placements_) topology.add_host(p.name, p.rack);
  for (const auto& link : net.links) topology.add_link(*topology.find(link.from), *topology.find(link.to), link.spec);
  const std::vector<VertexId> hosts = topology.hosts();
  for (const VertexId host : hosts) {
    try {
      topology.route(hosts.front(), host);
    } catch (const std::runtime_error& e) {
      throw config::ConfigError(config::Location{scenario_.file, 0, 0}, "network.links", e.what());
    }
  }
  return topology;
}

void Cluster::spawn_nodes() {
  std::vector<NodeId> server_ids;
  for (const auto& p : placements_) {
    if (p.group != "servers") continue;
    auto& server = sim_->spawn<models::RpcServer>(p.name, *sim_->topology().find(p.name), scenario_.rpc.server);
    servers_.push_back(&server);
    server_ids.push_back(server.id());
  }
  for (const auto& p : placements_) {
    if (p.group != "clients") continue;
    models::RpcClientOptions options = scenario_.rpc.client;
    options.servers = server_ids;
    options.stop_at = scenario_.duration;
    clients_.push_back(&sim_->spawn<models::RpcClient>(p.name, *sim_->topology().find(p.name), options));
  }
  for (NodeId n = 0; n < sim_->node_count(); ++n) sim_->node(n).start();
}

std::vector<NodeId> Cluster::resolve_nodes(const std::vector<std::string>& names) const {
  std::set<NodeId> ids;  // ordered: the same set always yields the same vector
  for (const auto& name : names) {
    for (NodeId n = 0; n < placements_.size(); ++n) {
      const auto& p = placements_[n];
      if (name == "all" || name == p.group || name == p.name || name == "rack:" + p.rack) ids.insert(n);
    }
  }
  return {ids.begin(), ids.end()};
}

// A name stands for the uplink of a host (to its rack switch) or of a rack
// (its switch to the spine), both directions; with an explicit graph, for
// every link of that vertex.
std::vector<LinkId> Cluster::resolve_links(const std::vector<std::string>& names) const {
  const Topology& topology = sim_->topology();
  const bool explicit_graph = !scenario_.network.links.empty();
  std::set<LinkId> ids;
  for (const auto& name : names) {
    if (const auto vertex = topology.find(name)) {
      for (const LinkId l : topology.links_touching(*vertex)) ids.insert(l);
    } else if (const auto rack = topology.find("rack:" + name); rack && !explicit_graph) {
      for (const LinkId l : topology.links_touching(*rack)) {
        const Link& link = topology.link(l);
        if (topology.name(link.from) == "spine" || topology.name(link.to) == "spine") ids.insert(l);
      }
    }
  }
  return {ids.begin(), ids.end()};
}

void Cluster::schedule_faults() {
  for (const FaultSpec& spec : scenario_.faults) {
    Fault fault = spec.fault;
    fault.nodes = resolve_nodes(spec.nodes);
    fault.other_nodes = resolve_nodes(spec.other_nodes);
    fault.links = resolve_links(spec.links);
    faults_->schedule(std::move(fault));
  }
}

void Cluster::plan_nemesis() {
  const NemesisSpec& nemesis = scenario_.nemesis;
  const SimTime end = nemesis.end.value_or(scenario_.duration);
  for (const NemesisRuleSpec& spec : nemesis.rules) {
    NemesisRule rule;
    rule.rate_per_s = spec.rate_per_s;
    rule.duration = spec.duration;
    rule.candidates = resolve_nodes(spec.targets);
    rule.targets_per_fault = spec.count;
    rule.shape = spec.shape;
    // One link (both directions) per fault: keep the even ids, plan_rule adds the pair.
    for (const LinkId l : resolve_links(spec.links)) {
      if (l % 2 == 0) rule.candidate_links.push_back(l);
    }
    const std::string stream = "nemesis/" + std::string(to_string(spec.shape.kind));
    faults_->schedule_all(plan_rule(rule, nemesis.start, end, sim_->stream(stream)));
  }
}

void Cluster::run() { sim_->run_until(scenario_.duration); }

}  // namespace ksim::app
