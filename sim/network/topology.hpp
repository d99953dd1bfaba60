#pragma once
// The physical network: hosts and switches joined by full-duplex links, each
// direction with a bandwidth (shared by the flows crossing it) and a
// propagation latency. Routes
// are shortest paths by latency (Boost.Graph's Dijkstra), cached per source
// and recomputed whenever the topology changes.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/network/message.hpp"
#include "sim/events/time.hpp"

namespace ksim {

using VertexId = std::uint32_t;  // a host or a switch; a HostId is the VertexId of a host
using LinkId = std::uint32_t;    // one direction of a physical link

struct LinkSpec {
  double bandwidth_bytes_per_s = 1.25e9;  // 10 Gbps
  SimTime latency = microseconds(25);
};

struct Link {
  VertexId from;
  VertexId to;
  LinkSpec spec;
  double bandwidth_factor = 1.0;   // < 1 while a slowdown fault is active
  std::uint64_t bytes_carried = 0;
  SimTime busy_ns = 0;

  // Nanoseconds to put `bytes` on this link at its current speed.
  SimTime transmission_time(std::uint64_t bytes) const;
};

class Topology {
 public:
  VertexId add_host(std::string name, std::string rack = "");
  VertexId add_switch(std::string name);
  // Full duplex: two directed links, ids 2k (a to b) and 2k+1 (b to a).
  void add_link(VertexId a, VertexId b, LinkSpec spec);

  std::optional<VertexId> find(std::string_view name) const;
  const std::string& name(VertexId v) const { return vertices_[v].name; }
  const std::string& rack(VertexId v) const { return vertices_[v].rack; }
  bool is_host(VertexId v) const { return vertices_[v].is_host; }
  std::size_t vertex_count() const { return vertices_.size(); }
  std::vector<VertexId> hosts() const;

  Link& link(LinkId id) { return links_[id]; }
  const Link& link(LinkId id) const { return links_[id]; }
  std::size_t link_count() const { return links_.size(); }
  std::vector<LinkId> links_touching(VertexId v) const;  // both directions of every adjacent link

  // The directed links from one host to another, in order; empty on the same host.
  const std::vector<LinkId>& route(VertexId from, VertexId to);
  // Sum of propagation latencies along the route (no queueing, no transmission).
  SimTime propagation_latency(VertexId from, VertexId to);

 private:
  struct Vertex {
    std::string name;
    std::string rack;
    bool is_host;
  };
  void compute_routes_from(VertexId source);

  std::vector<Vertex> vertices_;
  std::vector<Link> links_;
  // routes_[source][destination]; a source's row is empty until first needed.
  std::vector<std::vector<std::vector<LinkId>>> routes_;
};

// Hosts in racks, one switch per rack, racks joined by a spine switch.
struct RackLayout {
  struct Host {
    std::string name;
    std::string rack;
  };
  std::vector<Host> hosts;
  LinkSpec host_link;                                               // host <-> rack switch
  LinkSpec spine_link{5e9, microseconds(50)};                       // rack switch <-> spine (40 Gbps)
};
Topology build_rack_topology(const RackLayout& layout);

}  // namespace ksim
