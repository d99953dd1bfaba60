#include "models/check/replication_lag_tracker.hpp"

#include <algorithm>

namespace ksim::models {

void ReplicationLagTracker::sample(const std::vector<Broker*>& brokers) {
  for (const Broker* leader : brokers) {
    for (const TopicPartition tp : leader->hosted_partitions()) {
      if (!leader->is_leader(tp)) continue;
      const Partition& p = *leader->partition(tp);
      const Offset end = p.log().log_end_offset();
      for (const BrokerId b : p.state().replicas) {
        const Broker* follower = brokers[static_cast<std::size_t>(b)];
        if (follower == leader || follower->state() != NodeState::Running || !follower->log(tp)) continue;
        max_lag_ = std::max(max_lag_, end - follower->log(tp)->log_end_offset());
      }
    }
  }
}

}  // namespace ksim::models
