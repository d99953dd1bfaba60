#include "app/explore/swarm_draw.hpp"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/scenario/units.hpp"
#include "sim/random/random.hpp"

namespace ksim::app {

namespace {

std::string exact_time(SimTime t) { return units::format_exact_duration(t); }

SimTime draw_between(RandomStream& rng, SimTime min, SimTime max) {
  return min + static_cast<SimTime>(rng.below(static_cast<std::uint64_t>(max - min) + 1));
}

std::string flow_list(const std::vector<std::string>& names) {
  std::string out = "[";
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out + "]";
}

// Log-uniform: as many runs with rare values (faults, slow disks) as with frequent ones.
double draw_log_uniform(RandomStream& rng, double min, double max) {
  return std::exp(rng.uniform(std::log(min), std::log(max) + 1e-12));
}

// Log dirs as a flow list of quoted paths (a path may hold what YAML reads otherwise).
std::string quoted_list(const std::vector<std::string>& paths) {
  std::vector<std::string> quoted;
  for (const auto& p : paths) quoted.push_back(nlohmann::json(p).dump());
  return flow_list(quoted);
}

// One kind's nemesis rule, as a YAML flow mapping.
std::string draw_rule(const std::string& kind, const ExploreNemesis& n, RandomStream& rng) {
  const double rate = draw_log_uniform(rng, n.rate_min_per_s, n.rate_max_per_s);
  const SimTime longest = draw_between(rng, n.duration_min, n.duration_max);
  std::string rule = fmt::format("{{rate: {:.9f}/s", rate);
  // A failed disk stays failed (docs/scenarios.md): it has no duration.
  if (kind != "disk_failure") {
    rule += fmt::format(", duration: {{distribution: uniform, min: {}, max: {}}}", exact_time(n.duration_min),
                        exact_time(longest));
  }
  if (kind == "latency_spike") rule += ", extra: " + exact_time(draw_between(rng, n.extra_min, n.extra_max));
  if (kind == "jitter_burst") rule += ", jitter: {distribution: pareto, scale: 100us, shape: 1.2}";
  if (kind == "crash" && n.power_loss && rng.bernoulli(0.5)) rule += ", power_loss: true";
  if (kind == "disk_slow") rule += fmt::format(", factor: {:.9f}", draw_log_uniform(rng, n.factor_min, n.factor_max));
  if (kind != "jitter_burst" && kind != "latency_spike") rule += ", targets: " + flow_list(n.targets);
  if (kind.starts_with("disk_")) rule += ", log_dirs: " + quoted_list(n.log_dirs);
  return rule + "}";
}

}  // namespace

SwarmDraw draw_run(const ExploreSpec& spec, SimTime duration, std::uint64_t root_seed, std::size_t index) {
  RandomStream rng = RandomStream::derive(root_seed, "explore/run/" + std::to_string(index));
  SwarmDraw draw;
  draw.index = index;
  draw.seed = rng.next_u64();
  const ExploreNemesis& n = spec.nemesis;
  // Swarm testing: each kind on with probability 1/2, at least one.
  std::vector<bool> on(n.kinds.size());
  bool any = false;
  for (std::size_t k = 0; k < n.kinds.size(); ++k) any = (on[k] = rng.bernoulli(0.5)) || any;
  if (!any) on[rng.below(n.kinds.size())] = true;
  std::string nemesis = fmt::format("nemesis={{start: {}, end: {}", exact_time(n.start), exact_time(n.end.value_or(duration)));
  for (std::size_t k = 0; k < n.kinds.size(); ++k) {
    if (!on[k]) continue;
    nemesis += ", " + n.kinds[k] + ": " + draw_rule(n.kinds[k], n, rng);
    draw.kinds.push_back(n.kinds[k]);
  }
  draw.sets.push_back(nemesis + "}");
  for (const ExploreVary& v : spec.vary) {
    const std::string value = v.choices.empty()
                                  ? std::to_string(v.min + static_cast<std::int64_t>(rng.below(
                                                               static_cast<std::uint64_t>(v.max - v.min) + 1)))
                                  : v.choices[rng.below(v.choices.size())];
    draw.sets.push_back(v.path + "=" + value);
  }
  return draw;
}

std::string replay_command(const std::string& scenario, const SwarmDraw& draw) {
  std::string command = fmt::format("ksim run {} --seed {}", scenario, draw.seed);
  for (const auto& set : draw.sets) command += " --set '" + set + "'";
  return command;
}

}  // namespace ksim::app
