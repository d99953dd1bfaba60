#pragma once
// How a run began, beside the measured figures: when the cluster was ready
// for clients and when they started (app/harness/cluster.hpp's Startup), and
// the figures of the scenario's `warmup`, reported apart from the rest (as
// OpenMessaging Benchmark leaves its warm-up phase out of its results).
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/harness/cluster.hpp"

namespace ksim::app {

struct WarmupFigures {
  double seconds = 0;          // the scenario's warmup
  double records_per_s = 0;    // acknowledged in it, over the time producers were producing in it
  std::uint64_t latency_samples = 0;
  double latency_p50_ms = 0, latency_p99_ms = 0, latency_max_ms = 0;  // of records sent in it
  std::uint64_t e2e_samples = 0;
  double e2e_latency_p50_ms = 0, e2e_latency_p99_ms = 0;  // of records produced in it, to their poll()
};

struct StartupFigures {
  bool waited = false;                // some clients waited for the cluster to be ready
  std::optional<double> ready_ms;     // when it was, if it was
  double clients_started_ms = 0;
  std::string not_ready;              // what was missing when they started anyway
  std::optional<WarmupFigures> warmup;
};

StartupFigures startup_figures(const Cluster& cluster);
void add_startup_json(const StartupFigures& f, nlohmann::ordered_json& j);
void print_startup(const StartupFigures& f, std::ostream& out);

}  // namespace ksim::app
