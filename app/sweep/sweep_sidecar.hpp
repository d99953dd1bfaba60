#pragma once
// The sidecar of a sweep's CSV (`<out>.json`): what was swept, which slice
// of it the CSV holds, and how long each run took. Wall-clock figures live
// here and only here, so the CSV stays byte-identical from one sweep to the
// next while the timing is still recorded. `ksim merge` reads the sidecars
// to check that the shards belong to one sweep and that none is missing.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/sweep/csv.hpp"
#include "app/sweep/sweep_plan.hpp"

namespace ksim::app::sweep {

// Keep in step with the project() version in CMakeLists.txt and `ksim --version`.
inline constexpr std::string_view kKsimVersion = "0.1.0";

struct RunTiming {
  std::size_t run = 0;
  double wall_s = 0;             // the simulation's, as its report gives it
  double events_per_wall_s = 0;  // likewise
  double process_wall_s = 0;     // the whole `ksim run` process, start-up included
};

struct Sidecar {
  std::string ksim_version{kKsimVersion};
  std::string scenario;
  std::vector<Parameter> parameters;
  std::vector<std::uint64_t> seeds;
  std::optional<Shard> shard;  // none: the whole sweep (or a merge of its shards)
  std::optional<std::size_t> total_runs;  // in the whole sweep; none when merged without sidecars
  std::size_t runs_in_file = 0;
  csv::Row columns;
  std::size_t jobs = 0;  // worker processes; 0 for a merge
  double wall_s = 0;     // the sweep's; for a merge, the sum over its shards
  std::vector<RunTiming> runs;
  std::vector<std::string> merged_from;

  // Same version, scenario, lists, seeds and columns: rows of the two can be merged.
  bool same_sweep(const Sidecar& other) const;
};

nlohmann::ordered_json to_json(const Sidecar& sidecar);

// Writes `<csv_path>.json`.
void write_sidecar(const std::string& csv_path, const Sidecar& sidecar);

// Reads `<csv_path>.json`; none when there is no such file. Throws SweepError
// when the file is there but is not a sidecar.
std::optional<Sidecar> read_sidecar(const std::string& csv_path);

}  // namespace ksim::app::sweep
