#include "app/harness/resource_usage.hpp"

#include <algorithm>
#include <cassert>

namespace ksim::app {

namespace {

double fraction(SimTime busy, SimTime capacity) {
  return capacity > 0 ? std::min(1.0, static_cast<double>(busy) / static_cast<double>(capacity)) : 0.0;
}

// The busiest of a list of (name, busy time): its utilisation and name.
std::pair<double, std::string> busiest(const std::vector<std::pair<std::string, SimTime>>& busy, SimTime duration) {
  std::pair<double, std::string> top{0.0, ""};
  for (const auto& [name, ns] : busy) {
    const double u = fraction(ns, duration);
    if (u > top.first) top = {u, name};
  }
  return top;
}

}  // namespace

bool Utilization::saturated() const {
  return std::max({broker_cpu, broker_network_threads, broker_io_threads, disk, nic, client_cpu}) >= 0.9;
}

ResourceSample sample_resources(const std::vector<models::Broker*>& brokers,
                                const std::vector<models::Producer*>& producers,
                                const std::vector<models::Consumer*>& consumers, const Topology& topology) {
  ResourceSample s;
  for (const models::Broker* b : brokers) {
    s.brokers.emplace_back(b->name(), b->cpu_usage());
    for (const auto& d : b->disk_busy()) s.disks.emplace_back(b->name() + ":" + d.first, d.second);
  }
  for (LinkId l = 0; l < topology.link_count(); ++l) {
    const Link& link = topology.link(l);
    const VertexId host = topology.is_host(link.from) ? link.from : link.to;
    s.links.emplace_back(topology.name(host), link.busy_ns);
  }
  for (const models::Producer* p : producers) {
    s.records_sent += p->stats().records_sent;
    s.records_acked += p->stats().records_acked;
    s.bytes_acked += p->stats().bytes_acked;
    s.batches_sent += p->stats().batches;
    s.produce_requests += p->stats().requests;
    s.client_threads.emplace_back(p->name() + ":application", p->stats().app_cpu_ns);
    s.client_threads.emplace_back(p->name() + ":sender", p->stats().sender_cpu_ns);
  }
  for (const models::Consumer* c : consumers) {
    s.client_threads.emplace_back(c->name(), c->cpu_ns());
    s.records_consumed += c->records_processed();
  }
  return s;
}

ResourceSample used_since(const ResourceSample& later, const ResourceSample& earlier) {
  if (earlier.brokers.empty() && earlier.client_threads.empty()) return later;
  ResourceSample s = later;
  const auto subtract = [](auto& busy, const auto& before) {
    assert(busy.size() == before.size() && "samples of the same cluster");
    for (std::size_t i = 0; i < busy.size(); ++i) busy[i].second -= before[i].second;
  };
  assert(s.brokers.size() == earlier.brokers.size());
  for (std::size_t i = 0; i < s.brokers.size(); ++i) {
    models::BrokerCpuUsage& b = s.brokers[i].second;
    const models::BrokerCpuUsage& e = earlier.brokers[i].second;
    b.busy_ns -= e.busy_ns;
    b.network_threads_busy_ns -= e.network_threads_busy_ns;
    b.io_threads_busy_ns -= e.io_threads_busy_ns;
    b.other_busy_ns -= e.other_busy_ns;
    b.follower_fetches -= e.follower_fetches;
    b.consumer_fetches -= e.consumer_fetches;
  }
  subtract(s.disks, earlier.disks);
  subtract(s.links, earlier.links);
  subtract(s.client_threads, earlier.client_threads);
  s.records_sent -= earlier.records_sent;
  s.records_acked -= earlier.records_acked;
  s.bytes_acked -= earlier.bytes_acked;
  s.batches_sent -= earlier.batches_sent;
  s.produce_requests -= earlier.produce_requests;
  s.records_consumed -= earlier.records_consumed;
  return s;
}

Utilization utilization(const ResourceSample& sample, SimTime duration) {
  Utilization u;
  std::string busiest_broker;
  double broker_top = 0;
  for (const auto& [name, b] : sample.brokers) {
    if (b.cores == 0) continue;
    u.broker_cpu = std::max(u.broker_cpu, fraction(b.busy_ns, duration * b.cores));
    u.broker_network_threads = std::max(u.broker_network_threads, fraction(b.network_threads_busy_ns, duration * b.network_threads));
    u.broker_io_threads = std::max(u.broker_io_threads, fraction(b.io_threads_busy_ns, duration * b.io_threads));
    const double top = std::max({fraction(b.busy_ns, duration * b.cores), fraction(b.network_threads_busy_ns, duration * b.network_threads),
                                 fraction(b.io_threads_busy_ns, duration * b.io_threads)});
    if (top > broker_top) std::tie(broker_top, busiest_broker) = std::tie(top, name);
  }
  const auto [disk, disk_name] = busiest(sample.disks, duration);
  const auto [nic, nic_name] = busiest(sample.links, duration);
  const auto [client, client_name] = busiest(sample.client_threads, duration);
  u.disk = disk;
  u.nic = nic;
  u.client_cpu = client;
  if (sample.brokers.empty() || sample.brokers.front().second.cores == 0) return u;
  const std::vector<std::tuple<double, std::string, std::string>> kinds{
      {broker_top, "broker_cpu", busiest_broker}, {disk, "disk", disk_name}, {nic, "nic", nic_name},
      {client, "client_cpu", client_name}};
  const auto top = std::max_element(kinds.begin(), kinds.end(),
                                    [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  u.bottleneck = std::get<1>(*top);
  u.bottleneck_node = std::get<2>(*top);
  if (sample.records_sent > 0) {
    u.unacknowledged = 1.0 - static_cast<double>(sample.records_acked) / static_cast<double>(sample.records_sent);
  }
  const bool application = u.bottleneck_node.ends_with(":application");
  if (u.bottleneck == "client_cpu" && application && u.unacknowledged > 0.05) u.bottleneck = "round_trips";
  return u;
}

}  // namespace ksim::app
