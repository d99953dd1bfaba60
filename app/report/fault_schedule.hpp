#pragma once
// The faults a run fired, each as an entry of a scenario's `faults:` list
// (docs/scenarios.md), so that a nemesis's random faults can be replayed as
// explicit ones (`ksim shrink`, docs/explore.md). Times in exact units.
#include <nlohmann/json.hpp>

#include "app/harness/cluster.hpp"

namespace ksim::app {

// `faults:` entries in the order the faults started: kind, at, duration, targets, kind-specific keys.
nlohmann::ordered_json fault_schedule(const Cluster& cluster);

}  // namespace ksim::app
