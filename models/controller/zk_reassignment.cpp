// KIP-455 partition reassignment on the ZooKeeper-era controller (2.4+:
// KafkaController.onPartitionReassignment, processApiPartitionReassignment).
// RS is the replica set, ORS the original, TRS the target, AR the replicas
// added and RR those removed.
//
// U. The topic znode is written with RS = TRS + ORS, AR and RR (ZooKeeper
//    first, so a new controller resumes it); replicas an earlier
//    reassignment was adding and this one drops are removed at once.
// A. While TRS is not within the ISR (read from the partition's state
//    znode): the leader epoch is bumped and every broker told (LeaderAndIsr
//    to ORS and AR: the added brokers create the replica and fetch from the
//    leader like any follower, which adds them to the ISR once caught up).
// B. Once it is (checked after each ISR change the controller makes, or,
//    before KIP-497, when the state znode it watches changes): RS = TRS in
//    memory; a new leader from TRS if the current one is not in it or not
//    online (ReassignPartitionLeaderElectionStrategy), else a leader epoch
//    bump; each removed replica leaves the ISR (OfflineReplica, a write each)
//    and deletes its log (StopReplica); the topic znode gets RS = TRS;
//    every broker is told.
// Kafka's controller does each phase within one event, its ZooKeeper calls
// blocking; here they are sent in turn, each state write at the version the
// last one returned (a write that meets a newer version reads the znode
// again and reapplies its change).
#include "models/controller/zk_controller.hpp"
#include "models/protocol/replica_list.hpp"

namespace ksim::models {

Error ZkController::alter_partition_reassignment(TopicPartition tp, const std::optional<std::vector<BrokerId>>& target) {
  if (!is_active()) return Error::NotController;
  if (!partitions_.contains(tp) || assignment_of(tp).replicas.empty()) return Error::UnknownTopicOrPartition;
  const zk_data::PartitionAssignment& current = assignment_of(tp);
  if (target) {  // validateReplicas
    std::set<BrokerId> seen(target->begin(), target->end());
    if (target->empty() || seen.size() != target->size() || *seen.begin() < 0) return Error::InvalidReplicaAssignment;
    for (const BrokerId b : reassign_to(current, *target).adding) {
      if (!live(b)) return Error::InvalidReplicaAssignment;  // "Replica assignment has brokers that are not alive"
    }
  }
  // maybeBuildReassignment: a cancellation goes back to the original replicas.
  if (!target && !current.reassigning()) return Error::NoReassignmentInProgress;
  const std::vector<BrokerId> goal = target ? *target : origin_replicas(current);
  const zk_data::PartitionAssignment reassignment = reassign_to(current, goal);
  if (target) {
    publish(ReassignmentChanged{tp, ReassignmentPhase::Started, goal.size(), reassignment.adding.size(),
                                reassignment.removing.size()});
    cancelled_.erase(tp);
  } else {
    publish(ReassignmentChanged{tp, ReassignmentPhase::Cancelled, goal.size(), 0, 0});
    cancelled_.insert(tp);
  }
  on_partition_reassignment(tp, reassignment);
  return Error::None;
}

void ZkController::on_partition_reassignment(TopicPartition tp, zk_data::PartitionAssignment reassignment) {
  zk_data::PartitionAssignment& current = assignment_of(tp);
  std::vector<BrokerId> unneeded;
  if (current != reassignment) {  // updateCurrentReassignment
    for (const BrokerId b : current.replicas) {
      if (!contains(reassignment.replicas, b)) unneeded.push_back(b);
    }
    current = reassignment;
    write_assignment(tp.topic);
  }
  if (!config_.alter_isr) {  // PartitionReassignmentIsrChangeHandler: armed by the read below
    zk_.on_data_change(zk_data::partition_state_path(tp), [this, tp](ZkEventType) {
      if (role_ == ZkControllerRole::Active && reassigning_.contains(tp)) check_reassignment(tp, false);
    });
  }
  reassigning_.insert(tp);
  remove_from_isr(tp, unneeded, [this, tp] { check_reassignment(tp, true); });
}

// isReassignmentComplete: TRS within the ISR as ZooKeeper has it; then phase
// B, else (when the reassignment `begins`, not at an ISR change) phase A.
void ZkController::check_reassignment(TopicPartition tp, bool begins) {
  zk_.get_data(zk_data::partition_state_path(tp), !config_.alter_isr, [this, tp, begins, g = generation_](const ZkResponse& r) {
    if (g != generation_ || !reassigning_.contains(tp)) return;
    const auto state = zk_data::decode_leader_and_isr(r.data);
    const zk_data::PartitionAssignment& assignment = assignment_of(tp);
    bool complete = !assignment.reassigning();
    if (!complete && state) {
      complete = true;
      for (const BrokerId b : target_replicas(assignment)) complete = complete && contains(state->isr, b);
    }
    if (complete) return complete_reassignment(tp);
    if (!begins) return;
    change_state(tp, [this](PartitionState& s) {  // updateLeaderEpochAndSendRequest
      assign(s);
      ++s.leader_epoch;
      return true;
    }, nullptr);
  });
}

void ZkController::complete_reassignment(TopicPartition tp) {
  zk_data::PartitionAssignment& assignment = assignment_of(tp);
  const std::vector<BrokerId> removing = assignment.removing;
  const std::vector<BrokerId> target = target_replicas(assignment);
  assignment = {target, {}, {}};  // B2, in memory only: ZooKeeper keeps ORS until B6
  // B3 moveReassignedPartitionLeaderIfRequired.
  change_state(tp, [this, target](PartitionState& s) {
    assign(s);
    if (contains(target, s.leader) && usable(s.leader, s.partition)) {
      ++s.leader_epoch;
      return true;
    }
    for (const BrokerId b : target) {  // ReassignPartitionLeaderElectionStrategy
      if (usable(b, s.partition) && contains(s.isr, b)) {
        s.leader = b;
        ++s.leader_epoch;
        return true;
      }
    }
    return false;  // no replica of TRS can lead: the election fails, the reassignment goes on
  }, [this, tp, removing] {
    // B4, B5: the removed replicas leave the ISR and delete their logs (told with the state below).
    remove_from_isr(tp, removing, [this, tp] {
      write_assignment(tp.topic);  // B6
      reassigning_.erase(tp);      // B7
      if (!config_.alter_isr) zk_.forget_data_change(zk_data::partition_state_path(tp));
      PartitionState& state = partitions_.at(tp);
      assign(state);
      if (!cancelled_.erase(tp)) {
        publish(ReassignmentChanged{tp, ReassignmentPhase::Completed, state.replicas.size(), 0, 0});
      }
      pending_push_.push_back(state);  // B8 UpdateMetadata, and StopReplica to RR
    });
  });
}

// ZkReplicaStateMachine's OfflineReplica, one replica at a time
// (doRemoveReplicasFromIsr): out of the ISR unless it is the last one, no
// longer leader, a new leader epoch.
void ZkController::remove_from_isr(TopicPartition tp, std::vector<BrokerId> removed, std::function<void()> then) {
  if (removed.empty()) return then();
  const BrokerId replica = removed.front();
  removed.erase(removed.begin());
  auto next = [this, tp, removed, then = std::move(then)]() mutable { remove_from_isr(tp, std::move(removed), std::move(then)); };
  change_state(tp, [this, replica](PartitionState& s) {
    assign(s);
    if (!contains(s.isr, replica)) return false;
    if (s.isr.size() > 1) std::erase(s.isr, replica);
    if (s.leader == replica) s.leader = kNoBroker;
    ++s.leader_epoch;
    return true;
  }, std::move(next));
}

// A state write from the controller's state as it is now; one that meets a
// newer znode version reads it and applies the change again.
void ZkController::change_state(TopicPartition tp, Mutation mutate, std::function<void()> then) {
  PartitionState proposed = partitions_.at(tp);
  if (!mutate(proposed)) {
    if (then) then();
    return;
  }
  write_state(std::move(proposed), [this, tp, mutate, then, g = generation_](bool written) {
    if (g != generation_) return;
    if (written) {
      if (then) then();
      return;
    }
    zk_.get_data(zk_data::partition_state_path(tp), false, [this, tp, mutate, then, g](const ZkResponse& r) {
      const auto state = zk_data::decode_leader_and_isr(r.data);
      if (g != generation_ || !state || !r.stat) return;
      PartitionState& s = partitions_.at(tp);
      s.leader = state->leader;
      s.leader_epoch = state->leader_epoch;
      s.isr = state->isr;
      s.partition_epoch = r.stat->version;
      change_state(tp, mutate, then);
    });
  });
}

void ZkController::write_assignment(std::int32_t topic) {
  zk_.set_data(zk_data::topic_path(topic), zk_data::encode_assignment(assignment_.at(topic)), kAnyZkVersion, nullptr);
}

zk_data::PartitionAssignment& ZkController::assignment_of(TopicPartition tp) {
  auto& partitions = assignment_[tp.topic];
  if (partitions.size() <= static_cast<std::size_t>(tp.partition)) partitions.resize(static_cast<std::size_t>(tp.partition) + 1);
  return partitions[static_cast<std::size_t>(tp.partition)];
}

// maybeResumeReassignments: at failover, and for brokers that start, the
// reassignments the topic znodes hold go on from where they are.
void ZkController::resume_reassignments(const std::function<bool(const zk_data::PartitionAssignment&)>& which) {
  for (const auto& [topic, partitions] : assignment_) {
    for (std::size_t p = 0; p < partitions.size(); ++p) {
      const TopicPartition tp{topic, static_cast<std::int32_t>(p)};
      if (!partitions[p].reassigning() || !partitions_.contains(tp) || !which(partitions[p])) continue;
      on_partition_reassignment(tp, partitions[p]);
    }
  }
}

}  // namespace ksim::models
