#include "app/commands/commands.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "app/harness/cluster.hpp"
#include "app/report/report.hpp"
#include "app/scenario/config_reader.hpp"
#include "app/scenario/units.hpp"

#ifndef KSIM_SOURCE_DIR
#define KSIM_SOURCE_DIR "."
#endif

namespace ksim::app {

namespace {

config::Document load(const RunArgs& args) {
  const std::string path = args.scenario.empty() ? default_scenario_path() : args.scenario;
  config::Document document = config::Document::load_file(path);
  for (const auto& assignment : args.overrides) document.apply_override(assignment);
  if (args.seed) document.apply_override("seed=" + std::to_string(*args.seed));
  return document;
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

void print_error(std::ostream& err, const config::ConfigError& e) { fmt::print(err, "ksim: {}\n", e.what()); }

}  // namespace

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
    const config::Document document = load(args);
    const Scenario scenario = read_scenario(document, expectation_catalogue());
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
    Cluster cluster(scenario, options);
    // Wall-clock time is reported, never fed to the simulation.
    const auto start = std::chrono::steady_clock::now();
    cluster.run();
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const RunReport report = make_report(cluster, wall_s);
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
    const config::Document document = load(args);
    const Scenario scenario = read_scenario(document, expectation_catalogue());
    const auto nodes = node_placements(scenario);
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
