#include "app/report/report.hpp"

#include "app/report/fault_schedule.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace ksim::app {

namespace {

using RunRow = RunReport;
using N = NetworkStats;
using U = FigureUnit;

constexpr Figure<RunRow> kRun[] = {
    {.name = "scenario", .value = of<&RunRow::scenario>, .unit = U::Text},
    {.name = "file", .value = of<&RunRow::file>, .unit = U::Text},
    {.name = "seed", .value = of<&RunRow::seed>, .label = "seed"},
    {.name = "trace_hash", .value = [](const RunRow& r) { return figure_value(format_hash(r.trace_hash)); }, .unit = U::Text,
     .label = "trace hash"},
    {.name = "trace_records", .value = of<&RunRow::trace_records>, .label = "trace records"},
    {.name = "sim_time_s", .value = of<&RunRow::sim_time_s>, .unit = U::Seconds, .label = "simulated", .new_line = true},
    {.name = "events", .value = of<&RunRow::events>, .label = "events"},
    {.name = "wall_s", .value = of<&RunRow::wall_s>, .unit = U::Seconds, .label = "wall time"},
    {.name = "events_per_wall_s", .value = of<&RunRow::events_per_wall_s>, .unit = U::PerSecond, .label = "events per wall second"},
    // Not on the run's line: the text report says it under "faults fired" when above 0.
    {.name = "faults_missed", .value = of<&RunRow::faults_missed>, .expect = ExpectAs::Count,
     .description = "faults whose targets stood for nobody when they were due (`leader:TOPIC-P` of a partition without "
                    "a leader or of a topic not created yet): they did not fire"},
};

constexpr Figure<N> kNetwork[] = {
    {.name = "messages_sent", .value = of<&N::messages_sent>, .label = "messages sent"},
    {.name = "messages_delivered", .value = of<&N::messages_delivered>, .label = "delivered"},
    {.name = "messages_dropped", .value = of<&N::messages_dropped>, .label = "dropped"},
    {.name = "messages_in_flight", .value = of<&N::messages_in_flight>, .label = "in flight at the end"},
    {.name = "messages_held", .value = of<&N::messages_held>, .label = "holds behind cuts"},
    {.name = "bytes_sent", .value = of<&N::bytes_sent>, .unit = U::Bytes},
    {.name = "connections_opened", .value = of<&N::connections_opened>, .label = "connections opened", .new_line = true},
    {.name = "connections_refused", .value = of<&N::connections_refused>, .label = "refused"},
    {.name = "connections_reset", .value = of<&N::connections_reset>, .label = "reset"},
};

constexpr Section<RunRow> kRunSection{"run", SectionScope::Run, "", kRun};
constexpr Section<N> kNetworkSection{"network", SectionScope::Run, "network", kNetwork};

}  // namespace

const Section<RunReport>& run_section() { return kRunSection; }
const Section<NetworkStats>& network_section() { return kNetworkSection; }

bool RunReport::expectations_held() const {
  for (const auto& e : expectations) {
    if (!e.held) return false;
  }
  return true;
}

RunReport make_report(const Cluster& cluster, double wall_s) {
  const Simulation& sim = cluster.sim();
  const Scenario& scenario = cluster.scenario();
  RunReport r;
  r.scenario = scenario.name;
  r.file = scenario.file;
  r.seed = scenario.seed;
  r.trace_hash = sim.trace().hash();
  r.trace_records = sim.trace().records();
  r.sim_time_s = to_seconds(sim.now());
  r.events = sim.events().events_executed();
  r.wall_s = wall_s;
  if (scenario.rpc) r.rpc = rpc_figures(cluster, to_seconds(scenario.duration));
  if (scenario.kafka) {
    r.release = release_figures(*scenario.kafka);
    r.kafka = kafka_figures(cluster);
  }
  if (scenario.kafka) {
    r.sample_interval = scenario.report.sample_interval;
    r.timeseries = cluster.time_series();
  }
  r.network = sim.network().stats();
  r.faults_fired = cluster.faults().coverage();
  r.faults_missed = cluster.faults().missed();
  r.fault_paths = cluster.fault_paths();
  r.protocol_states = cluster.protocol_states();
  r.fault_schedule = fault_schedule(cluster);
  r.expectations = check_expectations(scenario.expect, r);
  for (const auto& w : scenario.warnings) r.warnings.push_back(w.text());
  for (const auto& k : scenario.ignored_configs) {
    r.ignored_configs.push_back(config::ConfigError(k.location, k.key_path, "not modelled, ignored").what());
  }
  return r;
}

nlohmann::ordered_json to_json(const RunReport& r) {
  nlohmann::ordered_json j;
  if (r.release) j["release"] = release_json(*r.release);
  add_json(kRunSection, r, j);
  j["warnings"] = r.warnings;
  j["ignored_configs"] = r.ignored_configs;
  if (r.kafka) add_kafka_json(*r.kafka, j);
  if (r.rpc) add_rpc_json(*r.rpc, j);
  add_json(kNetworkSection, r.network, j);
  j["faults_fired"] = r.faults_fired;
  j["fault_paths"] = r.fault_paths;
  if (r.kafka) j["protocol_states"] = r.protocol_states;
  j["fault_schedule"] = r.fault_schedule;
  j["expectations"] = expectations_json(r.expectations);
  j["expectations_held"] = r.expectations_held();
  if (r.kafka) j["timeseries"] = timeseries_json(r.sample_interval, r.timeseries);
  return j;
}

void print_report(const RunReport& r, std::ostream& out) {
  fmt::print(out, "ksim run: {} ({})\n", r.scenario.empty() ? r.file : r.scenario, r.file);
  if (r.release) print_release(*r.release, out);
  for (const auto& w : r.warnings) fmt::print(out, "warning: {}\n", w);
  for (const auto& k : r.ignored_configs) fmt::print(out, "ignored: {}\n", k);
  print_figures(kRunSection, r, out);
  fmt::print(out, "\n");
  if (r.kafka) print_kafka(*r.kafka, out);
  if (r.rpc) print_rpc(*r.rpc, out);
  fmt::print(out, "\nnetwork\n");
  print_figures(kNetworkSection, r.network, out);
  fmt::print(out, "\nfaults fired\n ");
  for (const auto& [kind, count] : r.faults_fired) fmt::print(out, " {} {}", kind, count);
  fmt::print(out, "\n");
  if (r.faults_missed > 0) {
    fmt::print(out, "  missed {}: their targets stood for nobody when due (a partition without a leader)\n", r.faults_missed);
  }
  for (const auto& [kind, paths] : r.fault_paths) {
    for (const auto& [path, count] : paths) fmt::print(out, "  {} {}: {}\n", kind, path, count);
  }
  bool any_state = false;
  for (const auto& [state, count] : r.protocol_states) {
    if (count == 0) continue;
    if (!any_state) fmt::print(out, "protocol states\n");
    any_state = true;
    fmt::print(out, "  {}: {}\n", state, count);
  }
  print_expectations(r.expectations, out);
}

}  // namespace ksim::app
