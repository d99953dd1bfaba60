#include "app/report/report_timeseries.hpp"

#include <array>

namespace ksim::app {

namespace {

using models::TimeSample;

std::optional<double> ms(const std::optional<SimTime>& t) {
  return t ? std::optional(static_cast<double>(*t) / 1e6) : std::nullopt;
}

constexpr auto kColumns = std::to_array<TimeSeriesColumn>({
    {"produced_records_per_s", "produced (acknowledged)", "records/s",
     [](const TimeSample& s) { return std::optional(s.produced_records_per_s); }},
    {"consumed_records_per_s", "consumed (processed)", "records/s",
     [](const TimeSample& s) { return std::optional(s.consumed_records_per_s); }},
    {"produce_latency_p50_ms", "produce p50", "ms", [](const TimeSample& s) { return ms(s.produce_latency_p50); }},
    {"produce_latency_p99_ms", "produce p99", "ms", [](const TimeSample& s) { return ms(s.produce_latency_p99); }},
    {"e2e_latency_p50_ms", "end-to-end p50", "ms", [](const TimeSample& s) { return ms(s.end_to_end_latency_p50); }},
    {"e2e_latency_p99_ms", "end-to-end p99", "ms", [](const TimeSample& s) { return ms(s.end_to_end_latency_p99); }},
    {"consumer_lag_records", "consumer lag", "records",
     [](const TimeSample& s) { return std::optional(static_cast<double>(s.consumer_lag_records)); }},
    {"unwritable_partitions", "unwritable", "partitions",
     [](const TimeSample& s) { return std::optional(static_cast<double>(s.unwritable_partitions)); }},
    {"unreadable_partitions", "unreadable", "partitions",
     [](const TimeSample& s) { return std::optional(static_cast<double>(s.unreadable_partitions)); }},
    {"offline_partitions", "offline (no leader)", "partitions",
     [](const TimeSample& s) { return std::optional(static_cast<double>(s.offline_partitions)); }},
    {"under_replicated_partitions", "under-replicated", "partitions",
     [](const TimeSample& s) { return std::optional(static_cast<double>(s.under_replicated_partitions)); }},
});

}  // namespace

std::span<const TimeSeriesColumn> timeseries_columns() { return kColumns; }

nlohmann::ordered_json timeseries_json(SimTime interval, const std::vector<TimeSample>& samples) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const TimeSample& s : samples) {
    nlohmann::ordered_json row;
    row["t_s"] = to_seconds(s.at);
    for (const TimeSeriesColumn& c : kColumns) {
      const std::optional<double> v = c.value(s);
      row[std::string(c.name)] = v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
    }
    rows.push_back(std::move(row));
  }
  nlohmann::ordered_json j;
  j["interval_s"] = to_seconds(interval);
  j["samples"] = std::move(rows);
  return j;
}

}  // namespace ksim::app
