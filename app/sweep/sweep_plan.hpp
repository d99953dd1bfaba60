#pragma once
// What a sweep runs: the cartesian product of the --set lists times the
// seeds, numbered. The first --set varies slowest and the last fastest, like
// nested loops written in the order of the options; the seed varies fastest
// of all, so the runs of one parameter combination sit next to each other.
// A run's index is its place in the full sweep, whichever shard runs it.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ksim::app::sweep {

class SweepError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One --set: a scenario key and the values it takes.
struct Parameter {
  std::string key;
  std::vector<std::string> values;

  bool operator==(const Parameter&) const = default;
};

// `--shard K/N`: the runs whose index % N == K - 1 (K is 1-based, as job arrays count).
struct Shard {
  std::size_t k = 1;
  std::size_t n = 1;
  bool holds(std::size_t run) const { return run % n == k - 1; }
};

// One run: its index and the value of each parameter and the seed.
struct RunSpec {
  std::size_t index = 0;
  std::vector<std::string> values;  // one per Parameter, in order
  std::uint64_t seed = 0;

  // "KEY=VALUE" for each parameter: the run's --set options.
  std::vector<std::string> overrides(const std::vector<Parameter>& parameters) const;
};

struct Plan {
  std::vector<Parameter> parameters;
  std::vector<std::uint64_t> seeds;

  std::size_t total_runs() const;
  RunSpec run(std::size_t index) const;
  std::vector<RunSpec> runs(const Shard& shard) const;
};

// "KEY=v1,v2" -> {KEY, [v1, v2]}; commas inside [], {} or quotes do not split,
// so `network.racks=[a,b]` is one value.
Parameter parse_parameter(const std::string& assignment);

// A whole number, or SweepError naming `what` (the option or file it came from).
std::uint64_t parse_whole_number(std::string_view text, std::string_view what);

// "1-5", "1,3,7", "7", or a mix: "1-3,10".
std::vector<std::uint64_t> parse_seeds(const std::string& text);

// "K/N" with 1 <= K <= N.
Shard parse_shard(const std::string& text);

// The parameters of every --set, refusing a key given twice and `seed` (that is --seeds).
std::vector<Parameter> parse_parameters(const std::vector<std::string>& assignments);

}  // namespace ksim::app::sweep
