#include "models/client/exponential_backoff.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace ksim::models {

// ExponentialBackoff.backoff: the exponent capped where the interval reaches
// the maximum, the jitter, then the cap.
SimTime exponential_backoff(SimTime initial, SimTime max, int attempts, RandomStream& rng) {
  const std::int64_t max_ms = max / milliseconds(1);
  const std::int64_t initial_ms = std::min(max_ms, initial / milliseconds(1));
  if (max_ms <= initial_ms) return milliseconds(initial_ms);
  const double exp_max = std::log2(static_cast<double>(max_ms) / static_cast<double>(std::max<std::int64_t>(initial_ms, 1)));
  const double exp = std::min(static_cast<double>(std::max(0, attempts)), exp_max);
  const double term = static_cast<double>(initial_ms) * std::pow(2.0, exp);
  const auto value_ms = static_cast<std::int64_t>(rng.uniform(0.8, 1.2) * term);
  return milliseconds(std::min(value_ms, max_ms));
}

}  // namespace ksim::models
