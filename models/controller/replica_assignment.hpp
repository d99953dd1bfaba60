#pragma once
// Where a new topic's replicas go, as Kafka assigns them
// (AdminUtils.assignReplicasToBrokers / StripedReplicaPlacer): without racks,
// the first replica of partition p goes to broker (start + p) % n and the
// others follow at a shift that grows every n partitions; with racks, brokers
// are interleaved rack by rack first, and each partition's replicas go to
// distinct racks as far as there are racks. `start` and the initial shift
// are random in Kafka; here they come from a seeded stream.
#include <cstdint>
#include <string>
#include <vector>

#include "models/protocol/kafka_types.hpp"
#include "sim/random/random.hpp"

namespace ksim::models {

struct BrokerPlacement {
  BrokerId id;
  std::string rack;  // empty: no rack information
};

// replicas[p] lists partition p's replicas, preferred leader first.
// Precondition: 1 <= replication_factor <= brokers.size().
std::vector<std::vector<BrokerId>> assign_replicas(const std::vector<BrokerPlacement>& brokers, std::int32_t partitions,
                                                   std::int32_t replication_factor, RandomStream& rng);

namespace detail {
// The same, with Kafka's two random draws given: `start_index` into the
// (sorted or rack-alternated) broker list and the initial replica shift.
// AdminUtils' fixedStartIndex sets both to the same value; Kafka's own tests
// use it, and so do ours.
std::vector<std::vector<BrokerId>> assign_replicas(const std::vector<BrokerPlacement>& brokers, std::int32_t partitions,
                                                   std::int32_t replication_factor, std::int32_t start_index,
                                                   std::int32_t replica_shift);
}  // namespace detail

}  // namespace ksim::models
