#pragma once
// The report's time series (models/check/time_series_tracker.hpp): its
// columns, each with its unit and the chart it belongs to, so the JSON
// report, the timeline's charts and the Perfetto counters say the same; and
// the `timeseries` section of the JSON report.
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/check/time_series_tracker.hpp"

namespace ksim::app {

struct TimeSeriesColumn {
  std::string_view name;   // the JSON key: "produced_records_per_s"
  std::string_view label;  // for people: "produced"
  std::string_view chart;  // the chart it is drawn in, and its unit: "records/s", "ms", "records", "partitions"
  std::optional<double> (*value)(const models::TimeSample&);  // none: no value in that interval
};

std::span<const TimeSeriesColumn> timeseries_columns();

// {interval_s, samples: [{t_s, one key per column (null: no value)}]}.
nlohmann::ordered_json timeseries_json(SimTime interval, const std::vector<models::TimeSample>& samples);

}  // namespace ksim::app
