#pragma once
// A list of brokers as a partition's metadata holds them (its replicas, its ISR).
#include <algorithm>
#include <vector>

#include "models/protocol/kafka_types.hpp"

namespace ksim::models {

inline bool contains(const std::vector<BrokerId>& brokers, BrokerId broker) {
  return std::ranges::find(brokers, broker) != brokers.end();
}

}  // namespace ksim::models
