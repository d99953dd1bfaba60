#include "app/report/report_junit.hpp"

#include <filesystem>

#include <fmt/format.h>

namespace ksim::app {

namespace {

constexpr std::size_t kViolationsListed = 20;

std::string run_line(const RunReport& r, const std::string& replay) {
  return fmt::format("scenario {}, seed {}, trace hash {}\nreplay: {}", r.file, r.seed, format_hash(r.trace_hash), replay);
}

// The invariants' case when the scenario's expect: names them (its own case says whether they held).
JUnitCase invariants_case(const RunReport& r, const std::string& classname) {
  JUnitCase t;
  t.name = "invariants";
  t.classname = classname;
  if (!r.kafka) {
    t.outcome = JUnitCase::Outcome::Skipped;
    t.message = "no Kafka cluster: no invariants to check";
    return t;
  }
  t.output = fmt::format("{} violation(s), as the scenario's expect: allows (its own test case checks them)",
                         r.kafka->invariants.size());
  return t;
}

}  // namespace

JUnitSuite run_junit_suite(const RunReport& r, const std::string& replay) {
  const std::string stem = std::filesystem::path(r.file).stem().string();
  const std::string classname = "ksim." + (r.scenario.empty() ? stem : r.scenario);
  JUnitSuite suite;
  suite.name = r.scenario.empty() ? r.file : r.scenario;
  suite.time_s = r.wall_s;
  suite.properties = {{"file", r.file},
                      {"seed", std::to_string(r.seed)},
                      {"trace_hash", format_hash(r.trace_hash)},
                      {"simulated_s", fmt::format("{}", r.sim_time_s)},
                      {"replay", replay}};
  if (r.release) suite.properties["kafka_version"] = r.release->kafka_version;
  bool invariants = false;
  for (const ExpectationResult& e : r.expectations) {
    JUnitCase t;
    t.name = e.name;
    t.classname = classname;
    invariants = invariants || e.name == "invariants";
    if (!e.held) {
      t.outcome = JUnitCase::Outcome::Failed;
      t.message = e.name + ": " + e.detail;
      t.details = t.message + "\n" + run_line(r, replay);
      if (e.name == "invariants" && r.kafka) {
        for (std::size_t i = 0; i < r.kafka->invariants.size() && i < kViolationsListed; ++i) {
          t.details += "\n" + models::to_string(r.kafka->invariants[i]);
        }
        if (r.kafka->invariants.size() > kViolationsListed) {
          t.details += fmt::format("\n... and {} more", r.kafka->invariants.size() - kViolationsListed);
        }
      }
    }
    suite.cases.push_back(std::move(t));
  }
  if (!invariants) suite.cases.push_back(invariants_case(r, classname));
  return suite;
}

}  // namespace ksim::app
