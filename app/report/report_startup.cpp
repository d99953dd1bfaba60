#include "app/report/report_startup.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/report/figure_table.hpp"

namespace ksim::app {

namespace {

WarmupFigures warmup_figures(const Cluster& cluster) {
  const Scenario& scenario = cluster.scenario();
  WarmupFigures w;
  w.seconds = to_seconds(scenario.warmup);
  Histogram latency, e2e;
  for (const auto* p : cluster.producers()) latency.merge(p->stats().warmup_latency);
  for (const auto* c : cluster.consumers()) e2e.merge(c->warmup_end_to_end_latency());
  const SimTime producing_from = cluster.producers_started();
  if (producing_from < scenario.warmup) {
    w.records_per_s = static_cast<double>(cluster.resources_at_end_of_warmup().records_acked) /
                      to_seconds(scenario.warmup - producing_from);
  }
  w.latency_samples = latency.count();
  w.latency_p50_ms = percentile_ms(latency, 50);
  w.latency_p99_ms = percentile_ms(latency, 99);
  w.latency_max_ms = percentile_ms(latency, 100);
  w.e2e_samples = e2e.count();
  w.e2e_latency_p50_ms = percentile_ms(e2e, 50);
  w.e2e_latency_p99_ms = percentile_ms(e2e, 99);
  return w;
}

}  // namespace

StartupFigures startup_figures(const Cluster& cluster) {
  const Cluster::Startup& s = cluster.startup();
  StartupFigures f;
  f.waited = s.waited;
  if (s.ready_at) f.ready_ms = to_milliseconds(*s.ready_at);
  f.clients_started_ms = to_milliseconds(s.clients_started);
  f.not_ready = s.not_ready;
  if (cluster.scenario().warmup > 0) f.warmup = warmup_figures(cluster);
  return f;
}

void add_startup_json(const StartupFigures& f, nlohmann::ordered_json& j) {
  j["startup"] = {{"clients_waited", f.waited},
                  {"cluster_ready_ms", f.ready_ms ? nlohmann::ordered_json(*f.ready_ms) : nlohmann::ordered_json()},
                  {"clients_started_ms", f.waited ? nlohmann::ordered_json(f.clients_started_ms) : nlohmann::ordered_json()},
                  {"not_ready", f.not_ready}};
  if (!f.warmup) {
    j["warmup"] = nullptr;
    return;
  }
  const WarmupFigures& w = *f.warmup;
  j["warmup"] = {{"s", w.seconds},
                 {"throughput", {{"records_per_s", w.records_per_s}}},
                 {"latency_ms", {{"samples", w.latency_samples}, {"p50", w.latency_p50_ms}, {"p99", w.latency_p99_ms},
                                 {"max", w.latency_max_ms}}},
                 {"end_to_end_latency_ms", {{"samples", w.e2e_samples}, {"p50", w.e2e_latency_p50_ms},
                                            {"p99", w.e2e_latency_p99_ms}}}};
}

void print_startup(const StartupFigures& f, std::ostream& out) {
  if (!f.waited) {
    fmt::print(out, "  start-up: every client started at its `start`\n");
  } else if (f.ready_ms) {
    fmt::print(out, "  start-up: the cluster was ready at {} (every partition led, each in-sync follower fetching); "
                    "clients without `start` started then\n",
               format_figure(figure_value(*f.ready_ms), FigureUnit::Milliseconds));
  } else {
    fmt::print(out, "  start-up: the cluster was NOT ready after {} ({}); clients without `start` started anyway\n",
               format_figure(figure_value(f.clients_started_ms), FigureUnit::Milliseconds), f.not_ready);
  }
  if (!f.warmup) return;
  const WarmupFigures& w = *f.warmup;
  const auto ms = [](double v) { return format_figure(figure_value(v), FigureUnit::Milliseconds); };
  fmt::print(out, "  warm-up (the first {:.3f}s, not in the figures above): throughput {:.0f} records/s", w.seconds,
             w.records_per_s);
  if (w.latency_samples > 0) {
    fmt::print(out, "  latency p50 {}  p99 {}  max {}", ms(w.latency_p50_ms), ms(w.latency_p99_ms), ms(w.latency_max_ms));
  }
  if (w.e2e_samples > 0) fmt::print(out, "  end-to-end p50 {}  p99 {}", ms(w.e2e_latency_p50_ms), ms(w.e2e_latency_p99_ms));
  fmt::print(out, "\n");
}

}  // namespace ksim::app
