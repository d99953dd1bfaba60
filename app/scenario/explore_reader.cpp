#include <algorithm>
#include <cmath>

#include "app/scenario/explore_spec.hpp"
#include "app/scenario/name_reader.hpp"
#include "app/scenario/units.hpp"

namespace ksim::app {

using config::Duration;
using config::Fraction;
using config::MapReader;
using config::Rate;

namespace {

constexpr std::string_view kKinds[] = {"crash",        "pause",    "partition", "latency_spike", "jitter_burst",
                                       "shutdown",     "disk_slow", "disk_full", "disk_failure"};
constexpr std::string_view kExploredDiskKinds[] = {"disk_slow", "disk_full", "disk_failure"};

// key: {min: A, max: B}, each read as a T (Duration, Fraction) within [low, high].
template <class T>
void read_range(MapReader& in, std::string_view key, config::Value<T>& min, config::Value<T>& max, config::Value<T> low,
                config::Value<T> high) {
  if (!in.has(key)) {
    in.ignore(key);
    return;
  }
  MapReader range = in.map(key);
  min = range.get<T>("min", min, {low, high});
  max = range.get<T>("max", max, {low, high});
  if (max < min) range.reject("max", "must not be less than min");
  range.finish_keys();
}

bool is_disk_kind(const std::string& kind) {
  return std::find(std::begin(kExploredDiskKinds), std::end(kExploredDiskKinds), kind) != std::end(kExploredDiskKinds);
}

ExploreNemesis read_nemesis_ranges(MapReader in, const ExploreScope& scope) {
  ExploreNemesis n;
  const std::vector<std::string> kinds(std::begin(kKinds), std::end(kKinds));
  if (scope.disks_given) n.kinds.insert(n.kinds.end(), std::begin(kExploredDiskKinds), std::end(kExploredDiskKinds));
  n.kinds = read_names(in, "kinds", n.kinds, &kinds);
  if (scope.log_dirs.empty() && std::any_of(n.kinds.begin(), n.kinds.end(), is_disk_kind)) {
    in.reject("kinds", "names a disk fault, which needs a 'brokers' section (a disk fault hits a broker's log dir)");
  }
  n.targets = read_names(in, "targets", n.targets, &scope.targets);
  if (scope.log_dirs.empty()) {
    if (in.has("log_dirs")) in.reject("log_dirs", "needs a 'brokers' section");
  } else {
    n.log_dirs = read_names(in, "log_dirs", scope.log_dirs, &scope.log_dirs);
  }
  read_range<Fraction>(in, "factor", n.factor_min, n.factor_max, 1e-6, 1.0);
  MapReader rate = in.map("rate");
  n.rate_min_per_s = rate.get<Rate>("min", n.rate_min_per_s, {1e-6, 1e6});
  n.rate_max_per_s = rate.get<Rate>("max", n.rate_max_per_s, {1e-6, 1e6});
  if (n.rate_max_per_s < n.rate_min_per_s) rate.reject("max", "must not be less than min");
  read_range<Duration>(in, "duration", n.duration_min, n.duration_max, 1, kNever / 4);
  read_range<Duration>(in, "extra", n.extra_min, n.extra_max, 0, kNever / 4);
  n.power_loss = in.get<bool>("power_loss", n.power_loss);
  n.start = in.get<Duration>("start", n.start, {0, scope.duration});
  n.end = in.optional<Duration>("end");
  if (n.end && *n.end <= n.start) in.reject("end", "must be after start (" + units::format_duration(n.start) + ")");
  return n;
}

// vary: {PATH: [v1, v2, ...]} or {PATH: {min: A, max: B}} (integers).
std::vector<ExploreVary> read_vary(MapReader in) {
  std::vector<ExploreVary> vary;
  for (const std::string& path : in.keys()) {
    ExploreVary v;
    v.path = path;
    v.location = in.error(path, "").location();
    if (in.has_list(path)) {
      config::ListReader list = in.list(path);
      if (list.empty()) throw in.error(path, "must list at least one value");
      v.choices = list.values<std::string>();
    } else if (in.has_map(path)) {
      MapReader range = in.map(path);
      v.min = range.required<std::int64_t>("min");
      v.max = range.required<std::int64_t>("max");
      if (v.max < v.min) range.reject("max", "must not be less than min");
    } else {
      throw in.error(path, "must be a list of values or a {min, max} range of integers");
    }
    vary.push_back(std::move(v));
  }
  return vary;
}

}  // namespace

ExploreSpec read_explore(MapReader in, const ExploreScope& scope) {
  ExploreSpec spec;
  spec.given = !in.keys().empty();
  spec.nemesis = read_nemesis_ranges(in.map("nemesis"), scope);
  spec.vary = read_vary(in.map("vary"));
  return spec;
}

}  // namespace ksim::app
