#include "sim/faults/nemesis.hpp"

#include <algorithm>
#include <cassert>

namespace ksim {

static std::vector<NodeId> draw_distinct(const std::vector<NodeId>& candidates, int count, RandomStream& rng) {
  std::vector<NodeId> pool = candidates;
  const auto n = std::min<std::size_t>(static_cast<std::size_t>(count), pool.size());
  for (std::size_t i = 0; i < n; ++i) {  // partial Fisher-Yates
    const std::size_t j = i + rng.below(pool.size() - i);
    std::swap(pool[i], pool[j]);
  }
  pool.resize(n);
  return pool;
}

std::vector<Fault> plan_rule(const NemesisRule& rule, SimTime start, SimTime end, RandomStream rng) {
  std::vector<Fault> faults;
  if (rule.rate_per_s <= 0) return faults;
  const double mean_gap_ns = 1e9 / rule.rate_per_s;
  SimTime at = start;
  while (true) {
    at += static_cast<SimTime>(rng.exponential(mean_gap_ns));
    if (at >= end) break;
    Fault fault = rule.shape;
    fault.at = at;
    fault.duration = rule.for_good ? 0 : rule.duration.sample(rng);
    // Always restart, always end: an extension fault of duration 0 would stay in force.
    const bool ends = fault.kind == FaultKind::NodeCrash || fault.kind == FaultKind::Extension;
    if (ends && !rule.for_good && fault.duration == 0) fault.duration = 1;
    fault.nodes = draw_distinct(rule.candidates, rule.targets_per_fault, rng);
    if (!rule.candidate_links.empty()) {
      const LinkId link = rule.candidate_links[rng.below(rule.candidate_links.size())];
      fault.links = {link, link ^ 1u};  // both directions of one physical link
    }
    if (!rule.candidate_targets.empty()) fault.target = rule.candidate_targets[rng.below(rule.candidate_targets.size())];
    faults.push_back(std::move(fault));
  }
  return faults;
}

}  // namespace ksim
