#pragma once
// A scenario's `explore:` section: what `ksim explore` draws for each run
// (docs/explore.md). Swarm testing: each run turns each nemesis kind on or
// off, draws its rate, durations and kind-specific values within these
// ranges, and draws one value for each `vary` key (a --set path). Without
// the section, the nemesis defaults below are explored (and the disk faults
// too where the scenario gives its brokers' log dirs) and nothing varied.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/scenario/config_reader.hpp"
#include "sim/events/time.hpp"

namespace ksim::app {

struct ExploreNemesis {
  std::vector<std::string> kinds{"crash", "pause", "partition", "latency_spike", "jitter_burst", "shutdown"};
  std::vector<std::string> targets{"brokers"};
  std::vector<std::string> log_dirs;  // disk faults hit one of these (default: every log dir of the brokers)
  double factor_min = 0.01, factor_max = 0.5;  // a disk_slow's bandwidth factor, drawn log-uniformly per run
  double rate_min_per_s = 0.02, rate_max_per_s = 0.2;  // drawn log-uniformly per kind
  SimTime duration_min = milliseconds(100), duration_max = seconds(8);  // each kind's faults last up to a drawn maximum
  SimTime extra_min = milliseconds(100), extra_max = seconds(5);        // a latency spike's extra latency
  bool power_loss = false;  // crashes may be power losses (half of them when on)
  SimTime start = seconds(1);
  std::optional<SimTime> end;  // default: the scenario's duration
};

// One `vary` key: a --set path, drawn from a list of values or an integer range.
struct ExploreVary {
  std::string path;
  std::vector<std::string> choices;  // empty: the range
  std::int64_t min = 0, max = 0;
  config::Location location;
};

struct ExploreSpec {
  bool given = false;  // the scenario has an explore: section
  ExploreNemesis nemesis;
  std::vector<ExploreVary> vary;
};

// What an explore: section is read against.
struct ExploreScope {
  std::vector<std::string> targets;   // the names faults may target (the scenario's groups and nodes)
  std::vector<std::string> log_dirs;  // the brokers' log dirs (none without brokers)
  bool disks_given = false;  // brokers.log_dirs, or a profile's disks: disk faults join the default kinds
  SimTime duration = 0;
};

ExploreSpec read_explore(config::MapReader in, const ExploreScope& scope);

}  // namespace ksim::app
