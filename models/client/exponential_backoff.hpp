#pragma once
// Kafka's ExponentialBackoff(initial, 2, max, 0.2) (KIP-580), as the clients
// use it for retries and metadata refreshes: initial x 2^attempts with 20%
// jitter, then capped at max, in whole milliseconds; a constant `initial`,
// without jitter, when initial is not below max (Kafka's expMax == 0, and
// what clients before 3.7 did with retry.backoff.ms alone).
#include "sim/events/time.hpp"
#include "sim/random/random.hpp"

namespace ksim::models {

SimTime exponential_backoff(SimTime initial, SimTime max, int attempts, RandomStream& rng);

}  // namespace ksim::models
