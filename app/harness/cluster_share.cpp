// KIP-932's share consumers in the cluster: spawned after every other Kafka
// node (a scenario without them keeps its node ids), and the brokers given
// the persisted share state and the share history.
#include "app/harness/cluster.hpp"

namespace ksim::app {

void Cluster::spawn_share_consumers(const std::shared_ptr<models::ClusterDirectory>& directory) {
  const KafkaSpec& kafka = *scenario_.kafka;
  if (kafka.share_consumers.empty()) return;
  for (models::Broker* b : brokers_) b->attach_share_groups(&share_store_, &share_history_);
  std::uint32_t index = 0;
  for (const auto& group : kafka.share_consumers) {
    for (const auto& p : placements_) {
      if (p.group != group.name) continue;
      share_history_.consumers.push_back({p.name, group.config.group_id, group.workload.topic});
      share_consumers_.push_back(&sim_->spawn<models::ShareConsumer>(p.name, *sim_->topology().find(p.name), index++,
                                                                     group.config, group.workload, directory, *events_,
                                                                     share_history_));
    }
  }
}

}  // namespace ksim::app
