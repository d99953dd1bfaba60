#include "models/check/cluster_readiness.hpp"

#include "models/broker/broker.hpp"
#include "models/controller/controller_quorum.hpp"

namespace ksim::models {

namespace {

std::string partition_name(TopicPartition tp) { return std::to_string(tp.topic) + "-" + std::to_string(tp.partition); }

}  // namespace

std::optional<std::string> cluster_not_ready(const ClusterView& cluster) {
  for (const auto& [tp, state] : cluster.controller.partitions()) {
    if (state.leader == kNoBroker) return "partition " + partition_name(tp) + " has no leader";
    const Partition* leader = cluster.brokers[static_cast<std::size_t>(state.leader)]->partition(tp);
    if (!leader || !leader->is_leader() || leader->leader_epoch() != state.leader_epoch) {
      return "broker " + std::to_string(state.leader) + " does not lead partition " + partition_name(tp) + " yet";
    }
    for (const BrokerId b : state.isr) {
      if (b == state.leader) continue;
      const FollowerState* follower = leader->follower(b);
      if (!follower || follower->log_end_offset < 0) {
        return "broker " + std::to_string(b) + " has not fetched partition " + partition_name(tp) + " yet";
      }
    }
  }
  return std::nullopt;
}

}  // namespace ksim::models
