#pragma once
// A plan that evens out the bytes of one broker's log dirs by moving replicas
// between them (KIP-113), as an operator's tool makes it (Cruise Control's
// rebalance with rebalance_disk=true, IntraBrokerDiskUsageDistributionGoal):
// greedily, from the fullest dir to the emptiest, each time the replica whose
// size comes closest to half their difference, while a move narrows it.
#include <cstdint>
#include <vector>

#include "models/protocol/kafka_types.hpp"

namespace ksim::models {

struct ReplicaPlacement {
  TopicPartition partition;
  std::size_t log_dir = 0;  // index among the broker's log dirs
  std::uint64_t bytes = 0;
};

struct LogDirMove {
  TopicPartition partition;
  std::size_t to = 0;
};

// `replicas`: where each replica is and its size; `online`: the broker's log
// dirs, true where a replica may go. At most one move per replica.
std::vector<LogDirMove> plan_log_dir_balance(const std::vector<ReplicaPlacement>& replicas,
                                             const std::vector<bool>& online);

}  // namespace ksim::models
