#pragma once
// The order a sweep starts its runs in: the longest expected first, so that
// with N workers the sweep does not end on one long run while the other
// workers idle (longest-processing-time-first scheduling). Only the start
// order changes: rows are still written in run order and each run is the same.
#include <cstddef>
#include <string>
#include <vector>

#include "app/sweep/sweep_plan.hpp"

namespace ksim::app::sweep {

// Positions into `runs`, in the order to start them. A run's expected cost is
// its simulated time (duration + drain) times its partition replicas plus one:
// the work of a Kafka scenario grows with both. Runs of equal cost keep run
// order. Sweeps of more than kMaxCombinationsToOrder parameter combinations
// keep run order: reading that many scenarios would cost more than it saves.
std::vector<std::size_t> dispatch_order(const std::string& scenario, const Plan& plan,
                                        const std::vector<RunSpec>& runs);

inline constexpr std::size_t kMaxCombinationsToOrder = 10'000;

}  // namespace ksim::app::sweep
