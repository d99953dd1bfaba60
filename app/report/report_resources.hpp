#pragma once
// The report's performance sections: consumed throughput and end-to-end
// latency, how busy each resource was (with a hardware profile), replication
// lag, and partition unavailability after failures; a figure table each,
// as JSON and text.
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/analysis/analytic_model.hpp"
#include "app/harness/cluster.hpp"
#include "app/report/figure_table.hpp"

namespace ksim::app {

struct PerformanceFigures {
  double consumed_records_per_s = 0;       // over the workload's duration, like the produced rate
  double consumer_read_records_per_s = 0;  // over the time the consumers were returning records (reading a backlog)
  double e2e_latency_p50_ms = 0, e2e_latency_p99_ms = 0, e2e_latency_p999_ms = 0;
  std::uint64_t e2e_samples = 0;
  std::string profile;                        // "" without one
  std::optional<Utilization> utilization;     // with a profile
  std::optional<AnalyticFigures> analytic;    // the analytic cross-check, with a profile
  std::int64_t max_replication_lag = 0;       // records
  models::FailoverFigures failover;
};

const Section<PerformanceFigures>& consumption_section();
const Section<PerformanceFigures>& end_to_end_latency_section();  // with samples
const Section<PerformanceFigures>& replication_section();
const Section<models::FailoverFigures>& failover_section();
const Section<PerformanceFigures>& profile_section();         // with a profile, as the two below
const Section<Utilization>& utilization_section();            // the busiest of each kind of resource
const Section<Utilization>& bottleneck_section();
const Section<AnalyticFigures>& analytic_section();           // and utilization_section() at analytic.utilization

PerformanceFigures performance_figures(const Cluster& cluster);
// Adds its sections to a run's JSON report.
void add_performance_json(const PerformanceFigures& f, nlohmann::ordered_json& j);
void print_performance(const PerformanceFigures& f, std::ostream& out);

}  // namespace ksim::app
