#pragma once
// One scenario `ksim shrink` tries: the explicit faults, the run's duration,
// and the sizes it may lower (brokers, partitions, clients, rates), each as
// a --set path. smaller() lists the candidates one step smaller, in the
// order shrink tries them: fewer faults first (halves, then quarters, down
// to single faults), then shorter and earlier faults, smaller sizes, the
// user's --set overrides dropped one at a time (their paths back to the
// scenario's values), a shorter run.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/scenario/scenario.hpp"

namespace ksim::app {

struct Size {
  std::string path;  // "brokers.count", "topics.0.partitions", "producers.1.rate"
  double value = 0;
  double floor = 1;  // it goes no lower
  bool halve = true;  // halved, or lowered by one
};

struct ShrinkCandidate {
  nlohmann::json faults = nlohmann::json::array();  // `faults:` entries, as app/report/fault_schedule.hpp writes them
  SimTime duration = 0;
  std::vector<Size> sizes;
  std::vector<std::string> user_sets;  // the user's --set overrides still applied
  std::string step;  // what made it from its parent, for the log

  // The --set overrides that turn the scenario into this candidate: the user's kept, then its own.
  std::vector<std::string> overrides() const;
  std::vector<ShrinkCandidate> smaller() const;
  // When the last fault ends.
  SimTime faults_end() const;
};

// The candidate of a failing run: its fired faults, the scenario's duration and sizes, the user's overrides.
ShrinkCandidate initial_candidate(const Scenario& scenario, const nlohmann::json& fault_schedule,
                                  std::vector<std::string> user_sets);

}  // namespace ksim::app
