#pragma once
// Runs a scenario of scenarios/ the way `ksim run --json` does, for tests.
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/driver.hpp"

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

inline std::uint64_t delivery(const ScenarioRun& run, const char* field) {
  return run.report["delivery"][field].get<std::uint64_t>();
}

}  // namespace ksim::testing
