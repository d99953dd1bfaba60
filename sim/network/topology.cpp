#include "sim/network/topology.hpp"

#include <cassert>
#include <cmath>
#include <map>
#include <stdexcept>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>

namespace ksim {

SimTime Link::transmission_time(std::uint64_t bytes) const {
  const double bytes_per_ns = spec.bandwidth_bytes_per_s * bandwidth_factor / 1e9;
  return static_cast<SimTime>(std::ceil(static_cast<double>(bytes) / bytes_per_ns));
}

VertexId Topology::add_host(std::string name, std::string rack) {
  if (find(name)) throw std::invalid_argument("duplicate network vertex '" + name + "'");
  vertices_.push_back({std::move(name), std::move(rack), true});
  routes_.clear();
  return static_cast<VertexId>(vertices_.size() - 1);
}

VertexId Topology::add_switch(std::string name) {
  if (find(name)) throw std::invalid_argument("duplicate network vertex '" + name + "'");
  vertices_.push_back({std::move(name), "", false});
  routes_.clear();
  return static_cast<VertexId>(vertices_.size() - 1);
}

void Topology::add_link(VertexId a, VertexId b, LinkSpec spec) {
  assert(a < vertices_.size() && b < vertices_.size() && a != b);
  assert(spec.bandwidth_bytes_per_s > 0 && spec.latency >= 0);
  links_.push_back(Link{a, b, spec});
  links_.push_back(Link{b, a, spec});
  routes_.clear();  // the topology changed: every cached route is recomputed on demand
}

std::optional<VertexId> Topology::find(std::string_view name) const {
  for (VertexId v = 0; v < vertices_.size(); ++v) {
    if (vertices_[v].name == name) return v;
  }
  return std::nullopt;
}

std::vector<VertexId> Topology::hosts() const {
  std::vector<VertexId> result;
  for (VertexId v = 0; v < vertices_.size(); ++v) {
    if (vertices_[v].is_host) result.push_back(v);
  }
  return result;
}

std::vector<LinkId> Topology::links_touching(VertexId v) const {
  std::vector<LinkId> result;
  for (LinkId l = 0; l < links_.size(); ++l) {
    if (links_[l].from == v || links_[l].to == v) result.push_back(l);
  }
  return result;
}

const std::vector<LinkId>& Topology::route(VertexId from, VertexId to) {
  if (routes_.size() != vertices_.size()) routes_.assign(vertices_.size(), {});
  if (routes_[from].empty()) compute_routes_from(from);
  return routes_[from][to];
}

SimTime Topology::propagation_latency(VertexId from, VertexId to) {
  SimTime total = 0;
  for (const LinkId l : route(from, to)) total += links_[l].spec.latency;
  return total;
}

void Topology::compute_routes_from(VertexId source) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                      boost::property<boost::edge_weight_t, std::int64_t>>;
  Graph graph(vertices_.size());
  std::map<std::pair<VertexId, VertexId>, LinkId> link_of;
  for (LinkId l = 0; l < links_.size(); ++l) {
    // One hop costs at least 1ns so that zero-latency links still prefer fewer hops.
    boost::add_edge(links_[l].from, links_[l].to, std::max<std::int64_t>(1, links_[l].spec.latency), graph);
    link_of.emplace(std::pair{links_[l].from, links_[l].to}, l);
  }
  std::vector<VertexId> predecessor(vertices_.size());
  std::vector<std::int64_t> distance(vertices_.size());
  boost::dijkstra_shortest_paths(
      graph, source,
      boost::predecessor_map(predecessor.data()).distance_map(distance.data()));

  auto& row = routes_[source];
  row.assign(vertices_.size(), {});
  for (VertexId target = 0; target < vertices_.size(); ++target) {
    if (target == source) continue;
    if (predecessor[target] == target) {
      throw std::runtime_error("no network route from " + vertices_[source].name + " to " +
                               vertices_[target].name);
    }
    std::vector<LinkId> path;
    for (VertexId v = target; v != source; v = predecessor[v]) {
      path.push_back(link_of.at({predecessor[v], v}));
    }
    row[target].assign(path.rbegin(), path.rend());
  }
}

Topology build_rack_topology(const RackLayout& layout) {
  Topology topology;
  std::map<std::string, VertexId> rack_switch;
  for (const auto& host : layout.hosts) {
    if (!rack_switch.contains(host.rack)) rack_switch[host.rack] = VertexId{};
  }
  for (auto& [rack, vertex] : rack_switch) vertex = topology.add_switch("rack:" + rack);
  if (rack_switch.size() > 1) {
    const VertexId spine = topology.add_switch("spine");
    for (const auto& [rack, vertex] : rack_switch) topology.add_link(vertex, spine, layout.spine_link);
  }
  for (const auto& host : layout.hosts) {
    const VertexId h = topology.add_host(host.name, host.rack);
    topology.add_link(h, rack_switch.at(host.rack), layout.host_link);
  }
  return topology;
}

}  // namespace ksim
