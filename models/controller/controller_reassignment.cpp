// KIP-455 partition reassignment on the KRaft controller
// (ReplicationControlManager.alterPartitionReassignment, PartitionChangeBuilder):
//
// 1. A request writes the target replicas followed by those being removed,
//    with addingReplicas and removingReplicas set. The brokers added create
//    the replica and fetch from the leader like any follower.
// 2. The leader adds each of them to the ISR once caught up (AlterPartition).
// 3. The change that leaves every target replica in the ISR also ends the
//    reassignment (completeReassignmentIfNeeded, in every partition change):
//    the removed replicas leave the replica list and the ISR; a leader that
//    is removed is replaced by the first target replica in the ISR; and
//    removing replicas bumps the leader epoch, so a removed broker's fetches
//    are fenced. The brokers removed delete their replica.
// A cancellation reverts to the original replicas (PartitionReassignmentRevert).
#include <set>

#include "models/controller/controller.hpp"
#include "models/controller/partition_reassignment.hpp"
#include "models/protocol/replica_list.hpp"

namespace ksim::models {

Error Controller::alter_partition_reassignment(TopicPartition tp, const std::optional<std::vector<BrokerId>>& target) {
  if (!is_active()) return Error::NotController;
  const auto it = partitions_.find(tp);
  if (it == partitions_.end()) return Error::UnknownTopicOrPartition;
  PartitionState& state = it->second;
  if (!target) return cancel_reassignment(state);
  // validateManualPartitionAssignment: not empty, no broker twice, every broker registered.
  std::set<BrokerId> seen;
  for (const BrokerId b : *target) {
    if (b < 0 || static_cast<std::size_t>(b) >= brokers_.size() || !seen.insert(b).second ||
        !brokers_[static_cast<std::size_t>(b)].ever_registered) {  // "... but no such broker is registered"
      return Error::InvalidReplicaAssignment;
    }
  }
  if (target->empty()) return Error::InvalidReplicaAssignment;
  // changePartitionReassignment: from the replica list as it is, adding ones included.
  const ReassignmentReplicas r = reassignment_replicas(state.replicas, *target);
  if (r.replicas == state.replicas && r.adding == state.adding && r.removing == state.removing) {
    return Error::None;  // changeRecordIsNoOp: the assignment it has already
  }
  const PartitionState before = state;
  state.replicas = r.replicas;
  state.adding = r.adding;
  state.removing = r.removing;
  publish(ReassignmentChanged{tp, ReassignmentPhase::Started, target->size(), r.adding.size(), r.removing.size()});
  if (!state.reassigning()) {  // a new order of the same replicas: done in this one change
    publish(ReassignmentChanged{tp, ReassignmentPhase::Completed, state.replicas.size(), 0, 0});
  }
  settle_reassignment(state, before);
  ++state.partition_epoch;
  push({state});
  return Error::None;
}

Error Controller::cancel_reassignment(PartitionState& state) {
  if (!state.reassigning()) return Error::NoReassignmentInProgress;
  const ReassignmentRevert revert = revert_reassignment(state);
  const TopicSpec& topic = directory_->topics[static_cast<std::size_t>(state.partition.topic)];
  // cancelPartitionReassignment: a revert that needs an unclean election only where the topic allows one.
  if (revert.unclean && !topic.unclean_leader_election_enable) return Error::InvalidReplicaAssignment;
  const PartitionState before = state;
  state.replicas = revert.replicas;
  state.isr = revert.isr;
  state.adding.clear();
  state.removing.clear();
  update_elr(state, before.isr);
  publish(ReassignmentChanged{state.partition, ReassignmentPhase::Cancelled, state.replicas.size(), 0, 0});
  settle_reassignment(state, before);
  ++state.partition_epoch;
  push({state});
  return Error::None;
}

// What every partition change does after its own (PartitionChangeBuilder.build):
// end the reassignment if the ISR allows, elect a leader if the current one
// left the ISR or the replicas, and bump the leader epoch when replicas were
// removed. The caller bumps the partition epoch.
void Controller::settle_reassignment(PartitionState& state, const PartitionState& before) {
  if (const auto done = maybe_complete_reassignment(state, state.isr)) {
    const std::vector<BrokerId> isr_before = state.isr;
    state.replicas = done->replicas;
    state.isr = done->isr;
    state.adding.clear();
    state.removing.clear();
    std::erase_if(state.elr, [&](BrokerId b) { return !contains(state.replicas, b); });
    std::erase_if(state.last_known_elr, [&](BrokerId b) { return !contains(state.replicas, b); });
    update_elr(state, isr_before);
    publish(ReassignmentChanged{state.partition, ReassignmentPhase::Completed, state.replicas.size(), 0, 0});
  }
  // KIP-858: a replica removed takes its directory with it (one added starts UNASSIGNED).
  std::erase_if(state.directories, [&](const auto& d) { return !contains(state.replicas, d.first); });
  // electAnyLeader (an ONLINE election): the leader stays while it is valid,
  // else the first replica in the ISR that can lead.
  const BrokerId leader = state.leader;
  const bool leader_valid = leader != kNoBroker && contains(state.isr, leader) &&
                            contains(state.replicas, leader) && is_usable(leader, state.partition);
  if (leader != kNoBroker && !leader_valid) {
    BrokerId next = kNoBroker;
    for (const BrokerId b : state.replicas) {
      if (next == kNoBroker && contains(state.isr, b) && is_usable(b, state.partition)) next = b;
    }
    if (next == kNoBroker) {
      depose(state);  // no replica that stays can lead now: elected when one can
      queue_election(state.partition, leader);
      return;
    }
    state.leader = next;
    ++state.leader_epoch;
    ++stats_.elections;
    publish(LeaderElected{state.partition, next, state.leader_epoch, false, state.isr.size()});
    return;
  }
  // triggerLeaderEpochBumpForReplicaReassignmentIfNeeded: a replica removed fences its fetches.
  const bool removed_some = std::any_of(before.replicas.begin(), before.replicas.end(),
                                        [&](BrokerId b) { return !contains(state.replicas, b); });
  if (removed_some && state.leader_epoch == before.leader_epoch && state.leader != kNoBroker) ++state.leader_epoch;
}

}  // namespace ksim::models
