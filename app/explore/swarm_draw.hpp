#pragma once
// What one run of `ksim explore` draws (swarm testing, docs/explore.md):
// from the exploration's root seed and the run's index, the run's own seed,
// a nemesis (each kind of the scenario's `explore.nemesis.kinds` on or off,
// with a rate, durations and kind-specific values drawn within its ranges),
// and one value for each `explore.vary` key. The draw is a list of --set
// overrides, so a run, and its replay, is `ksim run SCENARIO --seed S
// --set ...`.
#include <cstdint>
#include <string>
#include <vector>

#include "app/scenario/explore_spec.hpp"

namespace ksim::app {

struct SwarmDraw {
  std::size_t index = 0;
  std::uint64_t seed = 0;
  std::vector<std::string> sets;  // "path=value", for --set
  std::vector<std::string> kinds;  // the nemesis kinds drawn on
};

// Deterministic in (spec, duration, root_seed, index) alone.
SwarmDraw draw_run(const ExploreSpec& spec, SimTime duration, std::uint64_t root_seed, std::size_t index);

// The one command that replays a draw: "ksim run SCENARIO --seed S --set '...' ...".
std::string replay_command(const std::string& scenario, const SwarmDraw& draw);

}  // namespace ksim::app
