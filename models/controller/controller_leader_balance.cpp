// Preferred leader election (auto.leader.rebalance.enable): a partition whose
// leader is not its preferred replica (the first assigned) gets it back as
// leader once the preferred replica is in the ISR and can lead. As Kafka's
// KRaft controller (QuorumController.maybeScheduleNextBalancePartitionLeaders,
// ReplicationControlManager.maybeBalancePartitionLeaders): the first
// imbalance schedules a balance leader.imbalance.check.interval.seconds
// (300 s) later; each balance elects at most 1,000 preferred leaders
// (maxElectionsPerImbalance) and, if it reached that, runs again 10 ms later.
// ZooKeeper-era controllers (leader.imbalance.per.broker.percentage) do not
// balance in ksim.
#include "models/controller/controller.hpp"
#include "models/protocol/replica_list.hpp"

namespace ksim::models {

namespace {
constexpr std::size_t kMaxElectionsPerImbalance = 1000;  // QuorumController's maxElectionsPerImbalance
constexpr SimTime kImmediately = milliseconds(10);
}  // namespace

void Controller::track_imbalance(const PartitionState& state) {
  if (state.replicas.empty() || state.leader == state.replicas.front()) {
    imbalanced_.erase(state.partition);
  } else {
    imbalanced_.insert(state.partition);
  }
}

void Controller::rebuild_imbalance() {
  imbalanced_.clear();
  balance_scheduled_ = false;
  balance_immediately_ = false;
  for (const auto& [tp, state] : partitions_) track_imbalance(state);
  maybe_schedule_leader_balance();
}

void Controller::maybe_schedule_leader_balance() {
  if (!config_.auto_leader_rebalance || balance_scheduled_ || imbalanced_.empty() || !is_active()) return;
  balance_scheduled_ = true;
  set_timer(balance_immediately_ ? kImmediately : config_.leader_imbalance_check_interval, [this] {
    balance_scheduled_ = false;
    balance_partition_leaders();
  });
}

// electPreferredLeader: the preferred replica if it is in the ISR and can
// lead; otherwise the leader stays (and the partition stays imbalanced).
void Controller::balance_partition_leaders() {
  if (!is_active()) return;
  std::vector<PartitionState> changed;
  for (const TopicPartition tp : imbalanced_) {
    if (changed.size() >= kMaxElectionsPerImbalance) break;
    PartitionState& state = partitions_.at(tp);
    const BrokerId preferred = state.replicas.front();
    if (!contains(state.isr, preferred) || !is_usable(preferred, tp)) continue;
    state.leader = preferred;
    ++state.leader_epoch;
    ++state.partition_epoch;
    ++stats_.elections;
    ++stats_.preferred_elections;
    publish(LeaderElected{tp, preferred, state.leader_epoch, false, state.isr.size()});
    changed.push_back(state);
  }
  balance_immediately_ = changed.size() >= kMaxElectionsPerImbalance;
  if (changed.empty()) return maybe_schedule_leader_balance();  // imbalanced still: look again later
  push(changed);
}

}  // namespace ksim::models
