// ksim check HISTORY [--scenario FILE] [--json]: ksim's checkers on a
// recorded history (docs/history.md), from ksim run --history or from the
// ground-truth harness's real cluster.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/commands/command_support.hpp"
#include "app/history/history_reader.hpp"
#include "app/report/report_check.hpp"

namespace ksim::app {

int check_command(const CheckArgs& args, std::ostream& out, std::ostream& err) {
  try {
    std::optional<Scenario> scenario;
    if (args.scenario.empty() && !args.overrides.empty()) {
      fmt::print(err, "ksim: check: --set needs --scenario\n");
      return kExitUsage;
    }
    if (!args.scenario.empty()) {
      RunArgs load_args;
      load_args.scenario = args.scenario;
      load_args.overrides = args.overrides;
      load_args.ignore_unmodelled = args.ignore_unmodelled;
      const config::Document document = load_document(load_args);
      scenario = read_scenario(document, expectation_catalogue());
      print_warnings(err, *scenario);
    }
    const RecordedHistory history = read_history(args.history);
    const CheckReport report = make_check_report(history, scenario ? &*scenario : nullptr);
    if (args.json) {
      out << to_json(report).dump() << '\n';
    } else {
      print_check_report(report, out);
    }
    return report.expectations_held() ? kExitOk : kExitExpectationFailed;
  } catch (const config::ConfigError& e) {
    print_error(err, e);
    return kExitUsage;
  }
}

}  // namespace ksim::app
