#pragma once
// `ksim sweep` runs a scenario over the cartesian product of --set lists and
// seeds, one `ksim run --json` process per run, and writes one CSV row per
// run; `ksim merge` joins the CSVs of a sweep's shards into the CSV the
// whole sweep would have written. See docs/sweeps.md.
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace ksim::app {

struct SweepArgs {
  std::string scenario;              // empty: scenarios/quickstart.yaml
  std::vector<std::string> sets;     // "KEY=v1,v2,..."
  std::string seeds;                 // "1-5", "1,3,7", "7"; empty: the scenario's seed
  std::size_t jobs = 1;              // worker processes; 0: one per CPU
  std::string out;                   // empty: the CSV goes to stdout and no sidecar is written
  std::string shard;                 // "K/N"; empty: the whole sweep
  bool quiet = false;                // no progress bar even on a terminal
  std::string worker_binary = "/proc/self/exe";  // the ksim that runs each run
};

struct MergeArgs {
  std::string out;
  std::vector<std::string> shards;
};

// 0 when every run finished (whether or not its expectations held), 2 for a
// usage or scenario error or a run that failed.
int sweep_command(const SweepArgs& args, std::ostream& out, std::ostream& err);

// 0 when the shards were merged, 2 when they do not fit together.
int merge_command(const MergeArgs& args, std::ostream& err);

}  // namespace ksim::app
