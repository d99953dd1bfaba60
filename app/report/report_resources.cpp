#include "app/report/report_resources.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "sim/observe/histogram.hpp"

namespace ksim::app {

PerformanceFigures performance_figures(const Cluster& cluster) {
  PerformanceFigures f;
  const double seconds = to_seconds(cluster.scenario().duration);
  Histogram e2e;
  std::uint64_t consumed = 0;
  SimTime first = kNever, last = 0;
  for (const models::Consumer* c : cluster.consumers()) {
    consumed += c->records_processed();
    e2e.merge(c->end_to_end_latency());
    first = std::min(first, c->first_record_at());
    last = std::max(last, c->last_record_at());
  }
  // Over the time the consumers were reading (a backlog read from `start`, or the whole run).
  const double reading_s = last > first ? to_seconds(last - first) : seconds;
  f.consumer_read_records_per_s = static_cast<double>(consumed) / std::max(reading_s, 1e-3);
  f.consumed_records_per_s = static_cast<double>(consumed) / seconds;
  f.e2e_samples = e2e.count();
  f.e2e_latency_p50_ms = to_milliseconds(e2e.percentile(50));
  f.e2e_latency_p99_ms = to_milliseconds(e2e.percentile(99));
  f.e2e_latency_p999_ms = to_milliseconds(e2e.percentile(99.9));
  if (cluster.scenario().profile) {
    f.profile = cluster.scenario().profile->name;
    f.utilization = utilization(cluster.resources_at_end_of_workload(), cluster.scenario().duration);
    f.analytic = analytic_figures(cluster);
  }
  f.max_replication_lag = cluster.max_replication_lag();
  f.failover = cluster.failover();
  return f;
}

void add_performance_json(const PerformanceFigures& f, nlohmann::ordered_json& j) {
  j["throughput"]["consumed_records_per_s"] = f.consumed_records_per_s;
  j["throughput"]["consumer_read_records_per_s"] = f.consumer_read_records_per_s;
  if (f.e2e_samples > 0) {
    j["end_to_end_latency_ms"] = {{"p50", f.e2e_latency_p50_ms}, {"p99", f.e2e_latency_p99_ms}, {"p999", f.e2e_latency_p999_ms}};
  }
  if (f.utilization) {
    const Utilization& u = *f.utilization;
    j["profile"] = f.profile;
    j["utilization"] = {{"broker_cpu", u.broker_cpu},
                        {"broker_network_threads", u.broker_network_threads},
                        {"broker_io_threads", u.broker_io_threads},
                        {"disk", u.disk},
                        {"nic", u.nic},
                        {"client_cpu", u.client_cpu},
                        {"bottleneck", u.bottleneck},
                        {"bottleneck_at", u.bottleneck_node},
                        {"saturated", u.saturated()}};
  }
  if (f.analytic) {
    const Utilization& u = f.analytic->utilization;
    j["analytic"] = {{"records_per_s", f.analytic->records_per_s},
                     {"max_records_per_s", f.analytic->max_records_per_s},
                     {"offered_records_per_s", f.analytic->offered_records_per_s},
                     {"bottleneck", u.bottleneck},
                     {"bottleneck_at", u.bottleneck_node},
                     {"utilization", {{"broker_cpu", u.broker_cpu},
                                      {"broker_network_threads", u.broker_network_threads},
                                      {"broker_io_threads", u.broker_io_threads},
                                      {"disk", u.disk},
                                      {"nic", u.nic},
                                      {"client_cpu", u.client_cpu}}}};
  }
  j["replication"] = {{"max_lag_records", f.max_replication_lag}};
  nlohmann::ordered_json incidents = nlohmann::ordered_json::array();
  for (const models::FailoverIncident& i : f.failover.incidents) {
    incidents.push_back({{"at_ms", to_milliseconds(i.at)},
                         {"nodes", i.nodes},
                         {"partitions", i.partitions},
                         {"unavailability_ms", to_milliseconds(i.max_unavailability)},
                         {"unavailable_partition_s", i.unavailable_partition_s},
                         {"still_unavailable", i.still_unavailable}});
  }
  j["failover"] = {{"unavailability_ms", to_milliseconds(f.failover.max_unavailability)},
                   {"unavailable_partition_s", f.failover.unavailable_partition_s},
                   {"incidents", incidents}};
}

void print_performance(const PerformanceFigures& f, std::ostream& out) {
  fmt::print(out, "  consumed {:.0f} records/s ({:.0f} records/s while reading)", f.consumed_records_per_s,
             f.consumer_read_records_per_s);
  if (f.e2e_samples > 0) {
    fmt::print(out, "  end-to-end latency p50 {:.3f}ms  p99 {:.3f}ms  p99.9 {:.3f}ms", f.e2e_latency_p50_ms,
               f.e2e_latency_p99_ms, f.e2e_latency_p999_ms);
  }
  fmt::print(out, "\n  replication lag max {} records\n", f.max_replication_lag);
  for (const models::FailoverIncident& i : f.failover.incidents) {
    if (i.partitions == 0) continue;
    fmt::print(out, "  failover at {:.3f}s ({}): {} partitions, longest without a leader {:.1f}ms, {:.2f} partition-s{}\n",
               to_seconds(i.at), fmt::join(i.nodes, ", "), i.partitions, to_milliseconds(i.max_unavailability),
               i.unavailable_partition_s, i.still_unavailable ? fmt::format(", {} still without one", i.still_unavailable) : "");
  }
  if (!f.utilization) return;
  const Utilization& u = *f.utilization;
  const Utilization a = f.analytic ? f.analytic->utilization : Utilization{};
  fmt::print(out, "\nresources (profile {}), busiest of each kind   simulated   analytic\n", f.profile);
  const auto row = [&](const char* name, double sim, double model) {
    fmt::print(out, "  {:<40} {:>8.1f}%  {:>8.1f}%\n", name, 100 * sim, 100 * model);
  };
  row("broker CPU", u.broker_cpu, a.broker_cpu);
  row("broker network threads", u.broker_network_threads, a.broker_network_threads);
  row("broker request handlers", u.broker_io_threads, a.broker_io_threads);
  row("disk", u.disk, a.disk);
  row("NIC", u.nic, a.nic);
  row("client CPU (busiest thread)", u.client_cpu, a.client_cpu);
  fmt::print(out, "  bottleneck: {} ({}){}; analytic: {} ({})\n", u.bottleneck, u.bottleneck_node,
             u.saturated() ? "" : ", not saturated: bound by round trips, the offered rate or buffer.memory",
             a.bottleneck, a.bottleneck_node);
  if (f.analytic) {
    fmt::print(out, "  analytic throughput {:.0f} records/s (saturates at {:.0f})\n", f.analytic->records_per_s,
               f.analytic->max_records_per_s);
  }
}

}  // namespace ksim::app
