#pragma once
// The nemesis: a random fault generator. Each rule is a Poisson process of
// one fault kind over [start, end), drawing its targets and durations from a
// random stream of its own, so the whole plan follows from the seed and
// adding a rule leaves the others' faults unchanged.
#include <string>
#include <vector>

#include "sim/faults/fault.hpp"
#include "sim/random/random.hpp"

namespace ksim {

struct NemesisRule {
  double rate_per_s = 0;            // mean faults per simulated second
  Distribution duration = Distribution::constant(seconds(1));
  std::vector<NodeId> candidates;   // targets are drawn from these
  int targets_per_fault = 1;        // distinct nodes per fault (capped at the candidates)
  std::vector<LinkId> candidate_links;  // link slowdowns: one link (both directions) drawn per fault
  std::vector<std::string> candidate_targets;  // extension faults: one `target` (a log dir) drawn per fault
  bool for_good = false;            // faults stay in force (duration 0: a failed disk), no duration drawn
  Fault shape;                      // kind and kind-specific values (extra latency, jitter, factor)
};

struct NemesisOptions {
  SimTime start = 0;
  SimTime end = 0;
  std::vector<NemesisRule> rules;
};

// The faults of one rule, in time order, from its own stream.
std::vector<Fault> plan_rule(const NemesisRule& rule, SimTime start, SimTime end, RandomStream rng);

}  // namespace ksim
