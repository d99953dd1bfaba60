#include "app/sweep/sweep_plan.hpp"

#include <algorithm>
#include <charconv>
#include <set>

#include <fmt/format.h>

namespace ksim::app::sweep {

namespace {

// A typo such as 1-1000000000 should be an error, not hours of allocation.
constexpr std::uint64_t kMaxSeeds = 1'000'000;

// Splits at the commas that are not inside brackets, braces or quotes, so YAML
// flow values (`[a,b]`, `{distribution: uniform, min: 1s, max: 2s}`, `"a,b"`) stay whole.
std::vector<std::string> split_top_level(std::string_view text) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  char quote = 0;
  for (const char c : text) {
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      parts.push_back(std::move(current));
      current.clear();
      continue;
    }
    current += c;
  }
  parts.push_back(std::move(current));
  return parts;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

}  // namespace

std::uint64_t parse_whole_number(std::string_view text, std::string_view what) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) {
    throw SweepError(fmt::format("{}: '{}' is not a whole number", what, text));
  }
  return value;
}

std::vector<std::string> RunSpec::overrides(const std::vector<Parameter>& parameters) const {
  std::vector<std::string> result;
  for (std::size_t i = 0; i < parameters.size(); ++i) result.push_back(parameters[i].key + "=" + values[i]);
  return result;
}

std::size_t Plan::total_runs() const {
  std::size_t total = seeds.size();
  for (const auto& p : parameters) total *= p.values.size();
  return total;
}

// Mixed-radix decoding of the index: the seed is the lowest digit, the last parameter the next.
RunSpec Plan::run(std::size_t index) const {
  RunSpec spec;
  spec.index = index;
  std::size_t rest = index;
  spec.seed = seeds[rest % seeds.size()];
  rest /= seeds.size();
  spec.values.resize(parameters.size());
  for (std::size_t i = parameters.size(); i-- > 0;) {
    const auto& values = parameters[i].values;
    spec.values[i] = values[rest % values.size()];
    rest /= values.size();
  }
  return spec;
}

std::vector<RunSpec> Plan::runs(const Shard& shard) const {
  std::vector<RunSpec> result;
  for (std::size_t i = shard.k - 1; i < total_runs(); i += shard.n) result.push_back(run(i));
  return result;
}

Parameter parse_parameter(const std::string& assignment) {
  const std::size_t equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw SweepError(fmt::format("--set '{}': expected KEY=VALUE or KEY=v1,v2,...", assignment));
  }
  Parameter parameter{assignment.substr(0, equals), split_top_level(std::string_view(assignment).substr(equals + 1))};
  if (parameter.values.size() > 1 &&
      std::any_of(parameter.values.begin(), parameter.values.end(), [](const auto& v) { return v.empty(); })) {
    throw SweepError(fmt::format("--set '{}': an empty value in the list", assignment));
  }
  return parameter;
}

std::vector<Parameter> parse_parameters(const std::vector<std::string>& assignments) {
  std::vector<Parameter> parameters;
  std::set<std::string> keys;
  for (const auto& assignment : assignments) {
    Parameter parameter = parse_parameter(assignment);
    if (parameter.key == "seed") throw SweepError("--set seed=...: a sweep takes its seeds from --seeds");
    if (!keys.insert(parameter.key).second) {
      throw SweepError(fmt::format("--set {}: the key is given twice; list its values in one --set", parameter.key));
    }
    parameters.push_back(std::move(parameter));
  }
  return parameters;
}

std::vector<std::uint64_t> parse_seeds(const std::string& text) {
  std::vector<std::uint64_t> seeds;
  std::set<std::uint64_t> seen;
  for (const std::string_view item : split(text, ',')) {
    const auto bounds = split(item, '-');
    if (bounds.size() > 2) throw SweepError(fmt::format("--seeds: '{}' is not N or FIRST-LAST", item));
    const std::uint64_t first = parse_whole_number(bounds.front(), "--seeds");
    const std::uint64_t last = parse_whole_number(bounds.back(), "--seeds");
    if (last < first) throw SweepError(fmt::format("--seeds: the range '{}' runs backwards", item));
    if (last - first >= kMaxSeeds) throw SweepError(fmt::format("--seeds: '{}' is more than {} seeds", item, kMaxSeeds));
    for (std::uint64_t seed = first;; ++seed) {
      if (!seen.insert(seed).second) throw SweepError(fmt::format("--seeds: seed {} is given twice", seed));
      seeds.push_back(seed);
      if (seed == last) break;
    }
  }
  return seeds;
}

Shard parse_shard(const std::string& text) {
  const auto parts = split(text, '/');
  if (parts.size() != 2) throw SweepError(fmt::format("--shard '{}': expected K/N, e.g. 2/8", text));
  const Shard shard{parse_whole_number(parts[0], "--shard"), parse_whole_number(parts[1], "--shard")};
  if (shard.k < 1 || shard.k > shard.n) {
    throw SweepError(fmt::format("--shard {}: K must be between 1 and N", text));
  }
  return shard;
}

}  // namespace ksim::app::sweep
