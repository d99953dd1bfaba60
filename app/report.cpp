#include "app/report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "sim/units.hpp"

namespace ksim::app {

namespace {

ExpectationResult at_least(std::string name, double value, double bound) {
  return {std::move(name), value >= bound, fmt::format("{:.4g} >= {:.4g}", value, bound)};
}
ExpectationResult at_most(std::string name, double value, double bound) {
  return {std::move(name), value <= bound, fmt::format("{:.4g} <= {:.4g}", value, bound)};
}

std::vector<ExpectationResult> check_expectations(const ExpectSpec& expect, const RunReport& r, SimTime p99) {
  std::vector<ExpectationResult> results;
  const double completed_fraction = r.sent ? static_cast<double>(r.completed) / static_cast<double>(r.sent) : 0.0;
  if (expect.min_completed_fraction) {
    results.push_back(at_least("min_completed_fraction", completed_fraction, *expect.min_completed_fraction));
  }
  if (expect.max_completed_fraction) {
    results.push_back(at_most("max_completed_fraction", completed_fraction, *expect.max_completed_fraction));
  }
  if (expect.min_timeouts) {
    results.push_back(at_least("min_timeouts", static_cast<double>(r.timed_out), static_cast<double>(*expect.min_timeouts)));
  }
  if (expect.max_timeouts) {
    results.push_back(at_most("max_timeouts", static_cast<double>(r.timed_out), static_cast<double>(*expect.max_timeouts)));
  }
  if (expect.max_p99_latency) {
    results.push_back({"max_p99_latency", p99 <= *expect.max_p99_latency,
                       units::format_duration(p99) + " <= " + units::format_duration(*expect.max_p99_latency)});
  }
  return results;
}

}  // namespace

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

  Histogram latency;
  for (const auto* client : cluster.clients()) {
    const auto& s = client->stats();
    r.sent += s.sent;
    r.completed += s.completed;
    r.timed_out += s.timed_out;
    r.failed += s.failed;
    r.not_sent += s.not_sent;
    r.lost_in_crash += s.lost_in_crash;
    latency.merge(s.latency);
  }
  r.throughput_per_s = r.sim_time_s > 0 ? static_cast<double>(r.completed) / r.sim_time_s : 0;
  r.latency_p50_ms = to_milliseconds(latency.percentile(50));
  r.latency_p99_ms = to_milliseconds(latency.percentile(99));
  r.latency_p999_ms = to_milliseconds(latency.percentile(99.9));
  r.latency_max_ms = to_milliseconds(latency.max());
  r.network = sim.network().stats();
  r.faults_fired = cluster.faults().coverage();
  r.expectations = check_expectations(scenario.expect, r, latency.percentile(99));
  return r;
}

nlohmann::ordered_json to_json(const RunReport& r) {
  nlohmann::ordered_json j;
  j["scenario"] = r.scenario;
  j["file"] = r.file;
  j["seed"] = r.seed;
  j["trace_hash"] = format_hash(r.trace_hash);
  j["trace_records"] = r.trace_records;
  j["sim_time_s"] = r.sim_time_s;
  j["events"] = r.events;
  j["wall_s"] = r.wall_s;
  j["events_per_wall_s"] = r.wall_s > 0 ? static_cast<double>(r.events) / r.wall_s : 0.0;
  j["workload"] = {{"kind", "rpc"},
                   {"sent", r.sent},
                   {"completed", r.completed},
                   {"timed_out", r.timed_out},
                   {"failed", r.failed},
                   {"not_sent", r.not_sent},
                   {"lost_in_crash", r.lost_in_crash},
                   {"throughput_per_s", r.throughput_per_s},
                   {"latency_ms", {{"p50", r.latency_p50_ms}, {"p99", r.latency_p99_ms}, {"p999", r.latency_p999_ms},
                                   {"max", r.latency_max_ms}}}};
  j["network"] = {{"messages_sent", r.network.messages_sent},
                  {"messages_delivered", r.network.messages_delivered},
                  {"messages_dropped", r.network.messages_dropped},
                  {"messages_held", r.network.messages_held},
                  {"bytes_sent", r.network.bytes_sent},
                  {"connections_opened", r.network.connections_opened},
                  {"connections_reset", r.network.connections_reset}};
  j["faults_fired"] = r.faults_fired;
  nlohmann::ordered_json expectations = nlohmann::ordered_json::array();
  for (const auto& e : r.expectations) expectations.push_back({{"name", e.name}, {"held", e.held}, {"detail", e.detail}});
  j["expectations"] = expectations;
  j["expectations_held"] = r.expectations_held();
  return j;
}

void print_report(const RunReport& r, std::ostream& out) {
  fmt::print(out, "ksim run: {} ({})\n", r.scenario.empty() ? r.file : r.scenario, r.file);
  fmt::print(out, "  seed {}  trace hash {}  ({} trace records)\n", r.seed, format_hash(r.trace_hash), r.trace_records);
  fmt::print(out, "  simulated {:.3f}s in {:.3f}s of wall time, {} events\n\n", r.sim_time_s, r.wall_s, r.events);
  fmt::print(out, "requests\n");
  fmt::print(out, "  sent {}  completed {}  timed out {}  failed {}  not sent {}  lost in crashes {}\n", r.sent,
             r.completed, r.timed_out, r.failed, r.not_sent, r.lost_in_crash);
  fmt::print(out, "  throughput {:.1f}/s\n", r.throughput_per_s);
  fmt::print(out, "  latency p50 {:.3f}ms  p99 {:.3f}ms  p99.9 {:.3f}ms  max {:.3f}ms\n\n", r.latency_p50_ms,
             r.latency_p99_ms, r.latency_p999_ms, r.latency_max_ms);
  fmt::print(out, "network\n");
  fmt::print(out, "  messages sent {}  delivered {}  dropped {}  held by cuts {}\n", r.network.messages_sent,
             r.network.messages_delivered, r.network.messages_dropped, r.network.messages_held);
  fmt::print(out, "  connections opened {}  reset {}\n\n", r.network.connections_opened, r.network.connections_reset);
  fmt::print(out, "faults fired\n ");
  for (const auto& [kind, count] : r.faults_fired) fmt::print(out, " {} {}", kind, count);
  fmt::print(out, "\n");
  if (!r.expectations.empty()) {
    fmt::print(out, "\nexpectations\n");
    for (const auto& e : r.expectations) fmt::print(out, "  [{}] {}: {}\n", e.held ? "ok" : "FAILED", e.name, e.detail);
  }
}

}  // namespace ksim::app
