#include "models/check/convergence.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ksim::models {

Convergence::Convergence(ClusterView cluster, const std::vector<Producer*>& producers,
                         const std::vector<Consumer*>& consumers, const ConsumptionHistory& history)
    : cluster_(std::move(cluster)), producers_(producers), consumers_(consumers), history_(history) {}

std::optional<std::string> Convergence::reason() {
  if (auto r = partitions_reason()) return r;
  if (auto r = producers_reason()) return r;
  return groups_reason();
}

std::optional<std::string> Convergence::partitions_reason() const {
  for (const auto& [tp, state] : cluster_.controller.partitions()) {
    if (state.leader == kNoBroker) return fmt::format("partition {}-{} has no leader", tp.topic, tp.partition);
    const Broker& leader = *cluster_.brokers[static_cast<std::size_t>(state.leader)];
    if (!leader.is_leader(tp)) {
      return fmt::format("partition {}-{}: broker {} does not lead it yet", tp.topic, tp.partition, state.leader);
    }
    const Partition& p = *leader.partition(tp);
    if (p.state().isr.size() < p.state().replicas.size()) {
      return fmt::format("partition {}-{} is under-replicated: ISR [{}] of replicas [{}]", tp.topic, tp.partition,
                         fmt::join(p.state().isr, ", "), fmt::join(p.state().replicas, ", "));
    }
    if (!cluster_.internal_topics.contains(tp.topic) && !leader.open_transactions(tp).empty()) {
      return fmt::format("partition {}-{} has an open transaction", tp.topic, tp.partition);
    }
  }
  return std::nullopt;
}

std::optional<std::string> Convergence::producers_reason() const {
  for (const Producer* p : producers_) {
    if (p->memory_in_use() > 0) {
      return fmt::format("producer {} holds {} bytes of records not yet acknowledged", p->name(), p->memory_in_use());
    }
  }
  return std::nullopt;
}

std::optional<std::string> Convergence::groups_reason() {
  for (; processed_seen_ < history_.processed.size(); ++processed_seen_) {
    const ProcessedRecord& r = history_.processed[processed_seen_];
    const std::string& group = consumers_[r.consumer]->config().group_id;
    Offset& end = processed_to_[{group, r.partition}];
    end = std::max(end, r.offset + static_cast<Offset>(r.count));
  }
  for (const RebalanceRecord& r : history_.rebalances) {
    if (r.completed == kNever) return fmt::format("group {} is rebalancing ({})", r.group, r.trigger);
  }
  for (const Consumer* c : consumers_) {
    const std::string& group = c->config().group_id;
    if (group.empty()) continue;
    const std::int32_t topic = c->workload().topic;
    const std::int32_t partitions = cluster_.controller.partition_count(topic);
    for (std::int32_t p = 0; p < partitions; ++p) {
      const TopicPartition tp{topic, p};
      const PartitionState& state = cluster_.controller.partitions().at(tp);
      const Offset stable = cluster_.brokers[static_cast<std::size_t>(state.leader)]->last_stable_offset(tp);
      const auto it = processed_to_.find({group, tp});
      const Offset processed = it == processed_to_.end() ? 0 : it->second;
      if (processed < stable) {
        return fmt::format("group {} processed partition {}-{} to offset {} of {}", group, tp.topic, tp.partition,
                           processed, stable);
      }
    }
  }
  return std::nullopt;
}

}  // namespace ksim::models
