#pragma once
// The columns of a sweep's CSV: `run`, one per --set key, `seed`, then the
// metrics, each read from the run's JSON report by a JSON pointer. The
// metric table lives in sweep_columns.cpp: add a row there to add a column.
// Only simulated figures belong here: a wall-clock value would make the CSV
// differ between two runs of the same sweep (those go to the sidecar).
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/sweep/csv.hpp"
#include "app/sweep/sweep_plan.hpp"

namespace ksim::app::sweep {

struct MetricColumn {
  std::string_view name;
  std::string_view pointer;  // RFC 6901, into the report of `ksim run --json`
};

std::span<const MetricColumn> metric_columns();

csv::Row header(const std::vector<Parameter>& parameters);

// The row of one run; a metric the report lacks is an empty cell.
csv::Row row(const RunSpec& run, const nlohmann::json& report);

// A JSON value as CSV cell text: numbers as the JSON writes them (so they are
// exact and the same on every run), strings bare, null and missing empty.
std::string cell(const nlohmann::json& value);

}  // namespace ksim::app::sweep
