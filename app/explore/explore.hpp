#pragma once
// `ksim explore SCENARIO --runs N`: swarm testing of a scenario. Each run
// draws its own seed, nemesis and varied configs (app/explore/swarm_draw.hpp)
// and runs in a worker process (as a sweep's runs do); a run that fails a
// check, crashes the simulator or does not finish within its bound of events
// is a finding, printed with what it drew and the command that replays it.
// The same root seed gives the same runs and findings with any -j. Coverage:
// how often each fault kind was drawn and fired, and what the faults hit.
// See docs/explore.md.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ksim::app {

struct ExploreArgs {
  std::string scenario;
  std::vector<std::string> overrides;  // --set, applied before each run's draw
  std::size_t runs = 100;
  std::size_t jobs = 1;                 // worker processes; 0: one per CPU
  std::optional<std::uint64_t> seed;    // the root seed; default: the scenario's
  std::size_t max_failures = 1;         // stop once this many runs failed (the first ones by index)
  std::uint64_t max_events = 0;         // a run's bound of events; 0: 50 million
  std::string shard;                    // "K/N": the runs whose index % N == K-1
  std::string out;                      // write the findings and coverage as JSON (for --merge)
  std::string junit;                    // write the findings as JUnit XML
  std::vector<std::string> merge;       // merge these --out files instead of running
  bool quiet = false;
  std::string worker_binary = "/proc/self/exe";
};

// 0: nothing found; 1: findings; 2: a usage or scenario error.
int explore_command(const ExploreArgs& args, std::ostream& out, std::ostream& err);

}  // namespace ksim::app
