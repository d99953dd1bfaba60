#pragma once
// Runs a scenario of scenarios/ the way `ksim run --json` does, for tests.
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/harness/cluster.hpp"
#include "app/commands/commands.hpp"
#include "app/report/report.hpp"
#include "app/scenario/config_reader.hpp"

namespace ksim::testing {

struct ScenarioRun {
  int status = 0;
  nlohmann::json report;
};

inline ScenarioRun run_scenario(const std::string& name, std::uint64_t seed, std::vector<std::string> overrides = {}) {
  app::RunArgs args;
  args.scenario = std::string(KSIM_SOURCE_DIR) + "/scenarios/" + name + ".yaml";
  args.seed = seed;
  args.json = true;
  args.overrides = std::move(overrides);
  std::ostringstream out, err;
  ScenarioRun run;
  run.status = app::run_command(args, out, err);
  run.report = nlohmann::json::parse(out.str());
  return run;
}

// Runs a scenario given as text (with `seed` and `overrides` applied) and returns its report.
inline app::RunReport run_inline(const std::string& yaml, std::uint64_t seed = 1,
                                 const std::vector<std::string>& overrides = {}) {
  config::Document document = config::Document::from_string(yaml, "inline.yaml");
  document.apply_override("seed=" + std::to_string(seed));
  for (const auto& o : overrides) document.apply_override(o);
  const app::Scenario scenario = app::read_scenario(document, app::expectation_catalogue());
  app::Cluster cluster(scenario, app::RunOptions{});
  cluster.run();
  return app::make_report(cluster, 0);
}

// Reads a scenario given as text, as if from `file` (profiles are looked up beside it).
inline app::Scenario parse_scenario(const std::string& yaml, const std::string& file = "test.yaml") {
  return app::read_scenario(config::Document::from_string(yaml, file), app::expectation_catalogue());
}

// The error reading a scenario gives, or "no error".
inline std::string scenario_error(const std::string& yaml, const std::string& file = "test.yaml") {
  try {
    parse_scenario(yaml, file);
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "no error";
}

inline std::uint64_t delivery(const ScenarioRun& run, const char* field) {
  return run.report["delivery"][field].get<std::uint64_t>();
}

}  // namespace ksim::testing
