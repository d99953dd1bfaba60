#pragma once
// `ksim shrink SCENARIO --seed N [--set k=v]... --out FILE`: minimises a
// failing run (docs/explore.md). It replays the run with the faults it fired
// (its nemesis's random ones included) as an explicit `faults:` list, checks
// that this fails the same way, then, one step at a time and keeping a step
// only while the same check still fails: removes faults, shortens them,
// moves them earlier, lowers brokers, partitions, producers, consumers and
// rates, and shortens the run. It writes a standalone scenario with only
// explicit faults and a header saying what fails. Deterministic: each step
// is a run of its own, tried in a fixed order.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ksim::app {

struct ShrinkArgs {
  std::string scenario;
  std::vector<std::string> overrides;  // --set, as the failing run had them
  std::optional<std::uint64_t> seed;   // default: the scenario's
  std::string out;                     // the shrunk scenario
  std::size_t jobs = 1;                // candidate runs at once
  std::size_t max_runs = 400;          // candidate runs at most
  std::uint64_t max_events = 0;        // 0: 50 million per run
  std::string worker_binary = "/proc/self/exe";
};

// 0: written; 1: the run does not fail, nothing to shrink; 2: a usage or scenario error.
int shrink_command(const ShrinkArgs& args, std::ostream& out, std::ostream& err);

}  // namespace ksim::app
