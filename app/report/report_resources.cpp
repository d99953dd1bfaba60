#include "app/report/report_resources.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "sim/observe/histogram.hpp"

namespace ksim::app {

namespace {

using P = PerformanceFigures;
using F = models::FailoverFigures;
using AnalyticRow = AnalyticFigures;
using U = FigureUnit;

constexpr Figure<P> kConsumption[] = {
    {.name = "throughput.consumed_records_per_s", .value = of<&P::consumed_records_per_s>, .unit = U::RecordsPerSecond,
     .label = "consumed"},
    {.name = "throughput.consumer_read_records_per_s", .value = of<&P::consumer_read_records_per_s>,
     .unit = U::RecordsPerSecond, .label = "while reading"},
};

constexpr Figure<P> kEndToEndLatency[] = {
    {.name = "p50", .value = of<&P::e2e_latency_p50_ms>, .unit = U::Milliseconds, .label = "end-to-end latency p50",
     .expect = ExpectAs::Bound,
     .description = "the median time from send() to processing by a consumer (fails with no record processed)",
     .expect_key = "end_to_end_latency_p50", .significant = 3},
    {.name = "p99", .value = of<&P::e2e_latency_p99_ms>, .unit = U::Milliseconds, .label = "p99",
     .expect = ExpectAs::Bound, .description = "the 99th percentile of end-to-end latency",
     .expect_key = "end_to_end_latency_p99", .significant = 3},
    {.name = "p999", .value = of<&P::e2e_latency_p999_ms>, .unit = U::Milliseconds, .label = "p99.9",
     .expect = ExpectAs::Bound, .description = "the 99.9th percentile of end-to-end latency",
     .expect_key = "end_to_end_latency_p999", .significant = 3},
};

constexpr Figure<P> kReplication[] = {
    {.name = "max_lag_records", .value = of<&P::max_replication_lag>, .unit = U::Records, .label = "replication lag max"},
};

constexpr Figure<F> kFailover[] = {
    {.name = "unavailability_ms", .value = [](const F& f) { return figure_value(to_milliseconds(f.max_unavailability)); },
     .unit = U::Milliseconds, .label = "failover: longest without a leader"},
    {.name = "unavailable_partition_s", .value = of<&F::unavailable_partition_s>, .unit = U::PartitionSeconds,
     .label = "unavailable"},
};

constexpr Figure<P> kProfile[] = {
    {.name = "profile", .value = of<&P::profile>, .unit = U::Text},
};

// Their labels are the rows of the text report's table of simulated and analytic utilisation.
constexpr Figure<Utilization> kUtilization[] = {
    {.name = "broker_cpu", .value = of<&Utilization::broker_cpu>, .unit = U::Fraction, .label = "broker CPU"},
    {.name = "broker_network_threads", .value = of<&Utilization::broker_network_threads>, .unit = U::Fraction,
     .label = "broker network threads"},
    {.name = "broker_io_threads", .value = of<&Utilization::broker_io_threads>, .unit = U::Fraction,
     .label = "broker request handlers"},
    {.name = "disk", .value = of<&Utilization::disk>, .unit = U::Fraction, .label = "disk"},
    {.name = "nic", .value = of<&Utilization::nic>, .unit = U::Fraction, .label = "NIC"},
    {.name = "client_cpu", .value = of<&Utilization::client_cpu>, .unit = U::Fraction,
     .label = "client CPU (busiest thread)"},
};

constexpr Figure<Utilization> kBottleneck[] = {
    {.name = "bottleneck", .value = of<&Utilization::bottleneck>, .unit = U::Text},
    {.name = "bottleneck_at", .value = of<&Utilization::bottleneck_node>, .unit = U::Text},
    {.name = "saturated", .value = of<&Utilization::saturated>, .unit = U::Flag},
    {.name = "unacknowledged", .value = of<&Utilization::unacknowledged>, .unit = U::Fraction},
};

constexpr Figure<AnalyticRow> kAnalytic[] = {
    {.name = "records_per_s", .value = of<&AnalyticRow::records_per_s>, .unit = U::RecordsPerSecond,
     .label = "analytic throughput"},
    {.name = "max_records_per_s", .value = of<&AnalyticRow::max_records_per_s>, .unit = U::RecordsPerSecond,
     .label = "saturates at"},
    {.name = "offered_records_per_s", .value = of<&AnalyticRow::offered_records_per_s>, .unit = U::RecordsPerSecond,
     .label = "offered"},
    {.name = "bottleneck", .value = [](const AnalyticRow& a) { return figure_value(a.utilization.bottleneck); }, .unit = U::Text},
    {.name = "bottleneck_at", .value = [](const AnalyticRow& a) { return figure_value(a.utilization.bottleneck_node); },
     .unit = U::Text},
};

constexpr Section<P> kConsumptionSection{"consumption", SectionScope::Kafka, "", kConsumption};
constexpr Section<P> kEndToEndLatencySection{"end-to-end latency", SectionScope::Kafka, "end_to_end_latency_ms",
                                             kEndToEndLatency};
constexpr Section<P> kReplicationSection{"replication", SectionScope::Kafka, "replication", kReplication};
constexpr Section<F> kFailoverSection{"failover", SectionScope::Kafka, "failover", kFailover};
constexpr Section<P> kProfileSection{"profile", SectionScope::Kafka, "", kProfile};
constexpr Section<Utilization> kUtilizationSection{"utilization", SectionScope::Kafka, "utilization", kUtilization};
constexpr Section<Utilization> kBottleneckSection{"bottleneck", SectionScope::Kafka, "utilization", kBottleneck};
constexpr Section<AnalyticRow> kAnalyticSection{"analytic", SectionScope::Kafka, "analytic", kAnalytic};

}  // namespace

const Section<PerformanceFigures>& consumption_section() { return kConsumptionSection; }
const Section<PerformanceFigures>& end_to_end_latency_section() { return kEndToEndLatencySection; }
const Section<PerformanceFigures>& replication_section() { return kReplicationSection; }
const Section<models::FailoverFigures>& failover_section() { return kFailoverSection; }
const Section<PerformanceFigures>& profile_section() { return kProfileSection; }
const Section<Utilization>& utilization_section() { return kUtilizationSection; }
const Section<Utilization>& bottleneck_section() { return kBottleneckSection; }
const Section<AnalyticFigures>& analytic_section() { return kAnalyticSection; }

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
  f.e2e_latency_p50_ms = percentile_ms(e2e, 50);
  f.e2e_latency_p99_ms = percentile_ms(e2e, 99);
  f.e2e_latency_p999_ms = percentile_ms(e2e, 99.9);
  if (cluster.scenario().profile) {
    f.profile = cluster.scenario().profile->name;
    // Over the measured part: after the warm-up, if any.
    const Scenario& scenario = cluster.scenario();
    f.utilization = utilization(used_since(cluster.resources_at_end_of_workload(), cluster.resources_at_end_of_warmup()),
                                scenario.duration - scenario.warmup);
    f.analytic = analytic_figures(cluster);
  }
  f.max_replication_lag = cluster.max_replication_lag();
  f.failover = cluster.failover();
  return f;
}

void add_performance_json(const PerformanceFigures& f, nlohmann::ordered_json& j) {
  add_json(kConsumptionSection, f, j);
  add_json(kEndToEndLatencySection, f, j);  // null without samples
  if (f.utilization) {
    add_json(kProfileSection, f, j);
    add_json(kUtilizationSection, *f.utilization, j);
    add_json(kBottleneckSection, *f.utilization, j);
  }
  if (f.analytic) {
    add_json(kAnalyticSection, *f.analytic, j);
    add_json(kUtilizationSection, f.analytic->utilization, j, "analytic.utilization");
  }
  add_json(kReplicationSection, f, j);
  nlohmann::ordered_json incidents = nlohmann::ordered_json::array();
  for (const models::FailoverIncident& i : f.failover.incidents) {
    incidents.push_back({{"at_ms", to_milliseconds(i.at)},
                         {"nodes", i.nodes},
                         {"partitions", i.partitions},
                         {"unavailability_ms", to_milliseconds(i.max_unavailability)},
                         {"unavailable_partition_s", i.unavailable_partition_s},
                         {"still_unavailable", i.still_unavailable}});
  }
  add_json(kFailoverSection, f.failover, j);
  j["failover"]["incidents"] = incidents;
}

void print_performance(const PerformanceFigures& f, std::ostream& out) {
  for (const Section<P>* section : {&kConsumptionSection, &kEndToEndLatencySection, &kReplicationSection}) {
    if (section == &kEndToEndLatencySection && f.e2e_samples == 0) continue;
    print_figures(*section, f, out);
  }
  if (!f.failover.incidents.empty()) print_figures(kFailoverSection, f.failover, out);
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
  for (const Figure<Utilization>& row : kUtilization) {
    fmt::print(out, "  {:<40} {:>9}  {:>9}\n", row.label, format_figure(row.value(u), row.unit),
               format_figure(row.value(a), row.unit));
  }
  const std::string why =
      u.bottleneck == "round_trips"
          ? fmt::format(": its application thread is busiest, but {:.0f}% of the records sent wait for answers",
                        100 * u.unacknowledged)
      : u.saturated() ? ""
                      : ", not saturated: bound by round trips, the offered rate or buffer.memory";
  fmt::print(out, "  bottleneck: {} ({}){}; analytic: {} ({})\n", u.bottleneck, u.bottleneck_node, why, a.bottleneck,
             a.bottleneck_node);
  if (f.analytic) print_figures(kAnalyticSection, *f.analytic, out);
}

}  // namespace ksim::app
