#include "app/commands/commands.hpp"
#include "app/commands/run_progress.hpp"

#include <charconv>
#include <chrono>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "app/commands/command_support.hpp"
#include "app/commands/run_outputs.hpp"
#include "app/harness/cluster.hpp"
#include "app/history/history_writer.hpp"
#include "app/report/report.hpp"
#include "app/scenario/config_reader.hpp"
#include "app/scenario/resolved_scenario.hpp"
#include "app/scenario/units.hpp"

#ifndef KSIM_SOURCE_DIR
#define KSIM_SOURCE_DIR "."
#endif

namespace ksim::app {

namespace {

// --seed: a whole number 0 .. 2^64-1, as the scenario's seed: key (no wrap of -1 or 2^64).
std::uint64_t parse_seed(const std::string& text) {
  std::uint64_t seed = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (ec == std::errc{} && end == text.data() + text.size() && !text.empty()) return seed;
  throw config::ConfigError(config::Location{"--seed", 0, 0}, "",
                            "expected a seed from 0 to 18446744073709551615 (2^64-1), got '" + config::excerpt(text) + "'");
}

std::optional<spdlog::level::level_enum> parse_level(const std::string& name) {
  using spdlog::level::level_enum;
  const std::pair<std::string_view, level_enum> levels[] = {
      {"trace", level_enum::trace}, {"debug", level_enum::debug}, {"info", level_enum::info},
      {"warn", level_enum::warn},   {"error", level_enum::err},   {"off", level_enum::off}};
  for (const auto& [level_name, level] : levels) {
    if (name == level_name) return level;
  }
  return std::nullopt;
}

}  // namespace

config::Document load_document(const RunArgs& args) {
  const std::string path = args.scenario.empty() ? default_scenario_path() : args.scenario;
  const std::optional<std::uint64_t> seed = args.seed_text ? std::optional(parse_seed(*args.seed_text)) : args.seed;
  config::Document document = config::Document::load_file(path);
  document.accept_foreign_keys(args.ignore_unmodelled);
  for (const auto& assignment : args.overrides) document.apply_override(assignment);
  if (seed) document.apply_override("seed=" + std::to_string(*seed));
  if (!args.sample_interval.empty()) {
    const auto interval = units::parse_duration(args.sample_interval);
    if (!interval || interval.value() < milliseconds(1)) {
      throw config::ConfigError(config::Location{"--sample-interval", 0, 0}, "",
                                "expected a duration of at least 1ms such as 500ms, got '" +
                                    config::excerpt(args.sample_interval) + "'");
    }
    document.apply_override("report.sample_interval=" + args.sample_interval);
  }
  return document;
}

// One line per error ("ksim: file:line:column: key: message"), as ConfigErrors::what() has them.
void print_error(std::ostream& err, const config::ConfigError& e) {
  std::string_view text = e.what();
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    fmt::print(err, "ksim: {}\n", text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
  }
}

void print_warnings(std::ostream& err, const Scenario& scenario) {
  for (const auto& w : scenario.warnings) fmt::print(err, "ksim: warning: {}\n", w.text());
}

std::string default_scenario_path() {
  const std::string relative = "scenarios/quickstart.yaml";
  if (std::filesystem::exists(relative)) return relative;
  return std::string(KSIM_SOURCE_DIR) + "/" + relative;
}

int run_command(const RunArgs& args, std::ostream& out, std::ostream& err) {
  const auto level = parse_level(args.log_level);
  if (!level) {
    fmt::print(err, "ksim: unknown log level '{}' (trace, debug, info, warn, error, off)\n", args.log_level);
    return kExitUsage;
  }
  try {
    const config::Document document = load_document(args);
    const Scenario scenario = read_scenario(document, expectation_catalogue());
    check_something_to_simulate(document, scenario);
    print_warnings(err, scenario);
    std::ofstream trace;
    RunOptions options{*level, nullptr};
    if (args.check_every_partition) options.invariants = models::ClusterInvariants::Scope::Everything;
    if (!args.trace_file.empty()) {
      trace.open(args.trace_file);
      if (!trace) {
        fmt::print(err, "ksim: cannot write trace file '{}'\n", args.trace_file);
        return kExitUsage;
      }
      options.trace_out = &trace;
    }
    std::ofstream history;
    if (!args.history_file.empty()) {
      history.open(args.history_file);
      if (!history) {
        fmt::print(err, "ksim: cannot write history file '{}'\n", args.history_file);
        return kExitUsage;
      }
      if (!scenario.kafka) {
        fmt::print(err, "ksim: --history: the scenario has no Kafka cluster, so no history\n");
        return kExitUsage;
      }
      options.record_history = true;
    }
    RunOutputs outputs(args, scenario);  // checks --timeline, --perfetto, --junit and opens their files
    Cluster cluster(scenario, options);
    outputs.attach(cluster);
    // Wall-clock time is reported, never fed to the simulation.
    const auto start = std::chrono::steady_clock::now();
    RunProgress progress(err, cluster.end(), true);
    if (progress.enabled()) {
      cluster.on_step([&] { progress.update(cluster.now(), cluster.sim().events().events_executed()); });
    }
    struct EventBoundExceeded {};
    if (args.max_events > 0) {
      cluster.sim().add_after_event_hook([&] {
        if (cluster.sim().events().events_executed() > args.max_events) throw EventBoundExceeded{};
      });
    }
    try {
      cluster.run();
    } catch (const EventBoundExceeded&) {
      progress.finish();
      fmt::print(err, "ksim: the run did not finish within {} events (--max-events): simulated time {} of {}\n",
                 args.max_events, units::format_duration(cluster.sim().now()), units::format_duration(cluster.end()));
      return kExitEventBound;
    }
    progress.finish();
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (history.is_open()) write_history(cluster, history);
    const RunReport report = make_report(cluster, wall_s);
    outputs.write(cluster, report);
    if (args.json) {
      out << to_json(report).dump() << '\n';
    } else {
      print_report(report, out);
    }
    return report.expectations_held() ? kExitOk : kExitExpectationFailed;
  } catch (const config::ConfigError& e) {
    print_error(err, e);
    return kExitUsage;
  }
}

int validate_command(const RunArgs& args, std::ostream& out, std::ostream& err) {
  try {
    const config::Document document = load_document(args);
    const Scenario scenario = read_scenario(document, expectation_catalogue());
    check_something_to_simulate(document, scenario);
    const auto nodes = node_placements(scenario);
    print_warnings(err, scenario);
    if (args.resolved) {
      out << resolved_scenario(scenario).dump() << '\n';
      return kExitOk;
    }
    fmt::print(out, "{}: ok ({} nodes, {} faults, {} nemesis rules, {} simulated)\n", document.file_name(),
               nodes.size(), scenario.faults.size(), scenario.nemesis.rules.size(),
               units::format_duration(scenario.duration));
    return kExitOk;
  } catch (const config::ConfigError& e) {
    print_error(err, e);
    return kExitUsage;
  }
}

}  // namespace ksim::app
