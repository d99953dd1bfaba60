#pragma once
// The report of `ksim check HISTORY`: the checkers of `ksim run` (delivery,
// consumption per group, a transform's output, transactions as far as a
// history shows them) on a recorded history, with the same sections as the
// run's report, in text and with the same JSON keys; with a scenario, its
// `expect:` entries checked on the figures the history gives.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/history/history_reader.hpp"
#include "app/report/report.hpp"

namespace ksim::app {

struct CheckReport {
  std::string file;
  std::string source;
  std::string scenario;
  std::optional<std::uint64_t> seed;
  KafkaFigures kafka;  // its delivery, groups and transactions
  std::vector<ExpectationResult> expectations;
  bool expectations_held() const;
};

// `scenario`: the scenario that was run, or null. Its faults say whether a
// run without a fault fired tested anything; its expectations are checked.
// Throws config::ConfigError for an expectation on a figure a history cannot give.
CheckReport make_check_report(const RecordedHistory& history, const Scenario* scenario);
nlohmann::ordered_json to_json(const CheckReport& report);
void print_check_report(const CheckReport& report, std::ostream& out);

}  // namespace ksim::app
