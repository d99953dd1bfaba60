#include "app/sweep/sweep_columns.hpp"

#include <array>

namespace ksim::app::sweep {

namespace {

// Some of these are being added to the report as the throughput model grows;
// until a report has one, its cell is empty.
constexpr auto kMetricColumns = std::to_array<MetricColumn>({
    {"trace_hash", "/trace_hash"},
    {"sim_time_s", "/sim_time_s"},
    {"events", "/events"},
    {"produced", "/delivery/produced"},
    {"acknowledged", "/delivery/acknowledged"},
    {"lost", "/delivery/lost"},
    {"duplicated", "/delivery/duplicated"},
    {"reordered", "/delivery/reordered"},
    {"delivery_verdict", "/delivery/verdict"},
    {"records_per_s", "/throughput/records_per_s"},
    {"bytes_per_s", "/throughput/bytes_per_s"},
    {"consumed_records_per_s", "/throughput/consumed_records_per_s"},
    {"consumer_read_records_per_s", "/throughput/consumer_read_records_per_s"},
    {"latency_p50_ms", "/latency_ms/p50"},
    {"latency_p99_ms", "/latency_ms/p99"},
    {"latency_p999_ms", "/latency_ms/p999"},
    {"e2e_latency_p99_ms", "/end_to_end_latency_ms/p99"},
    {"producer_memory_peak_bytes", "/producer_memory_peak_bytes"},
    {"producer_requests", "/producer/requests"},
    {"broker_cpu_utilization", "/utilization/broker_cpu"},
    {"broker_network_threads_utilization", "/utilization/broker_network_threads"},
    {"broker_io_threads_utilization", "/utilization/broker_io_threads"},
    {"disk_utilization", "/utilization/disk"},
    {"nic_utilization", "/utilization/nic"},
    {"client_cpu_utilization", "/utilization/client_cpu"},
    {"bottleneck", "/utilization/bottleneck"},
    {"saturated", "/utilization/saturated"},
    {"analytic_records_per_s", "/analytic/records_per_s"},
    {"analytic_bottleneck", "/analytic/bottleneck"},
    {"replication_max_lag_records", "/replication/max_lag_records"},
    {"max_leaderless_ms", "/controller/max_leaderless_ms"},
    {"elections", "/controller/elections"},
    {"controller_failovers", "/controller/quorum/failovers"},
    {"controller_leaderless_ms", "/controller/quorum/leaderless_ms"},
    {"controller_longest_leaderless_ms", "/controller/quorum/longest_leaderless_ms"},
    {"failover_unavailability_ms", "/failover/unavailability_ms"},
    {"failover_unavailable_partition_s", "/failover/unavailable_partition_s"},
    {"first_failover_ms", "/failover/incidents/0/unavailability_ms"},
    {"second_failover_ms", "/failover/incidents/1/unavailability_ms"},
    {"replicas_per_broker", "/partition_costs/replicas_per_broker"},
    {"segment_files", "/partition_costs/segment_files"},
    {"memory_maps", "/partition_costs/memory_maps"},
    {"fetcher_partitions", "/partition_costs/fetcher_partitions"},
    {"producer_state_entries", "/partition_costs/producer_state_entries"},
    {"consumer_fetch_buffer_peak_bytes", "/partition_costs/consumer_fetch_buffer_peak_bytes"},
    {"broker_heap_bytes", "/partition_costs/broker_heap_bytes"},
    {"controller_heap_bytes", "/partition_costs/controller_heap_bytes"},
    {"expectations_held", "/expectations_held"},
});

// The value at the pointer, or null where the report has none (or has something
// else than an object on the way, which a report from another version might).
nlohmann::json lookup(const nlohmann::json& report, std::string_view pointer) {
  try {
    return report.at(nlohmann::json::json_pointer(std::string(pointer)));
  } catch (const nlohmann::json::exception&) {
    return nullptr;
  }
}

}  // namespace

std::span<const MetricColumn> metric_columns() { return kMetricColumns; }

csv::Row header(const std::vector<Parameter>& parameters) {
  csv::Row names{"run"};
  for (const auto& p : parameters) names.push_back(p.key);
  names.push_back("seed");
  for (const auto& column : kMetricColumns) names.emplace_back(column.name);
  return names;
}

std::string cell(const nlohmann::json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

csv::Row row(const RunSpec& run, const nlohmann::json& report) {
  csv::Row cells{std::to_string(run.index)};
  cells.insert(cells.end(), run.values.begin(), run.values.end());
  cells.push_back(std::to_string(run.seed));
  for (const auto& column : kMetricColumns) {
    cells.push_back(cell(lookup(report, column.pointer)));
  }
  return cells;
}

}  // namespace ksim::app::sweep
