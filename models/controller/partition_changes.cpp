// What the active controller decides about partitions (ReplicationControlManager,
// PartitionChangeBuilder): a fenced or departing broker's leaderships and ISR
// memberships, elections (in batches, each taking election_time_per_partition
// per partition), AlterPartition requests, and the checks on every partition
// state it commits.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "models/controller/controller.hpp"
#include "models/protocol/replica_list.hpp"

namespace ksim::models {

// A fenced broker leaves every ISR (but without KIP-966 the last member stays,
// as in KRaft, so the partition can come back when it does) and loses its
// leaderships: deposed now, its partitions reach the brokers with their new
// leaders, in one batch (ReplicationControlManager.generateLeaderAndIsrUpdates).
void Controller::remove_replica_from_partitions(BrokerId broker) {
  std::vector<PartitionState> changed;
  for (auto& [tp, state] : partitions_) {
    if (state.leader == broker) {
      depose(state);
      queue_election(tp, broker);
    } else if (leave_isr(state, broker)) {
      ++state.partition_epoch;
      ++stats_.isr_changes;
      changed.push_back(state);
    }
  }
  push(changed);
}

// The leader is gone (fenced, shutting down, its log dir offline): the
// partition has none until the queued election picks one, and the old
// leader leaves the ISR unless it is its last member. No broker may act on
// the old leadership meanwhile, not even the old leader restarted.
void Controller::depose(PartitionState& state) {
  const BrokerId old_leader = state.leader;
  state.leader = kNoBroker;
  ++state.leader_epoch;
  ++state.partition_epoch;
  leave_isr(state, old_leader);
  update_last_known_leader(state, old_leader);
}

void Controller::queue_election(TopicPartition tp, BrokerId replacing) {
  if (!queued_.insert(tp).second) return;
  leaderless_since_.try_emplace(tp, now());
  election_queue_.emplace_back(tp, replacing);
  if (electing_) return;
  // The batch starts once the event that queued it is done, with all it queued.
  electing_ = true;
  election_timer_ = set_timer(0, [this] { run_next_election(); });
}

// The elections queued so far as one batch: they take
// election_time_per_partition each, then every new leader reaches the brokers
// in one metadata update, as the records of one controller event do (Kafka's
// generateLeaderAndIsrUpdates builds a PartitionChangeRecord per partition of
// a fenced, shutting-down or unfenced broker in the same event). Elections
// queued meanwhile form the next batch, as the next event would.
void Controller::run_next_election() {
  if (election_queue_.empty()) {
    electing_ = false;
    return;
  }
  electing_ = true;
  const std::size_t batch = election_queue_.size();
  election_timer_ = set_timer(config_.election_time_per_partition * static_cast<std::int64_t>(batch), [this, batch] {
    std::vector<PartitionState> changed;
    for (std::size_t i = 0; i < batch && !election_queue_.empty(); ++i) {
      const auto [tp, replacing] = election_queue_.front();
      election_queue_.pop_front();
      queued_.erase(tp);
      if (elect(tp, replacing)) changed.push_back(partitions_.at(tp));
    }
    push(changed);
    run_next_election();
  });
}

// ReplicationControlManager's LeaderAcceptor: an active broker whose log dir
// for the replica is online; a replica with no directory recorded (UNASSIGNED)
// counts as online (DirectoryId.isOnline), KIP-858.
bool Controller::is_usable(BrokerId broker, TopicPartition tp) const {
  const Registration& r = brokers_[static_cast<std::size_t>(broker)];
  if (r.fenced || r.shutting_down) return false;
  if (r.offline_dirs.empty()) return true;
  const auto state = partitions_.find(tp);
  const auto dir = state == partitions_.end() ? std::nullopt : state->second.directory_of(broker);
  return !dir || !r.offline_dirs.contains(*dir);
}

// Replaces the leader `replacing` (fenced or offline when queued; it may be
// back by now, a new incarnation that must not simply keep its old epoch).
std::string_view to_string(ElectedFrom from) {
  switch (from) {
    case ElectedFrom::Isr: return "the ISR";
    case ElectedFrom::EligibleLeaderReplicas: return "the eligible leader replicas (KIP-966)";
    case ElectedFrom::LastKnownLeader: return "the last known leader, unclean (KIP-966)";
    case ElectedFrom::OutOfSyncReplica: return "an out-of-sync replica, unclean";
  }
  return "?";
}

bool Controller::elect(TopicPartition tp, BrokerId replacing) {
  PartitionState& state = partitions_.at(tp);
  if (state.leader != kNoBroker && is_usable(state.leader, tp)) return false;
  const PartitionState previous = state;
  const TopicSpec& topic = directory_->topics[static_cast<std::size_t>(tp.topic)];
  BrokerId leader = kNoBroker;
  bool unclean = false;
  // Assignment order, as Kafka's PartitionLeaderElectionAlgorithms; the replaced leader last.
  for (const bool allow_replaced : {false, true}) {
    for (const BrokerId b : state.replicas) {
      if (leader == kNoBroker && contains(state.isr, b) && is_usable(b, tp) && (allow_replaced || b != replacing)) {
        leader = b;
      }
    }
  }
  const EligibleLeader eligible = leader == kNoBroker ? elect_from_elr(state) : EligibleLeader{};
  const bool from_elr = eligible.broker != kNoBroker && !eligible.last_known;
  if (eligible.broker != kNoBroker) {
    leader = eligible.broker;
    unclean = eligible.last_known;  // PartitionChangeBuilder.electAnyLeader marks it so
  }
  if (leader == kNoBroker && topic.unclean_leader_election_enable) {
    for (const BrokerId b : state.replicas) {
      if (is_usable(b, tp)) {
        leader = b;
        unclean = true;
        break;
      }
    }
  }
  const BrokerId old_leader = state.leader;
  ++state.leader_epoch;
  ++state.partition_epoch;
  state.leader = leader;
  if (unclean) {
    state.isr = {leader};
    state.elr.clear();  // maybeUpdateRecordElr: an unclean election clears the ELR
    state.last_known_elr.clear();
    ++stats_.unclean_elections;
  } else if (from_elr) {
    state.isr = {leader};
    std::erase(state.elr, leader);
    ++stats_.elr_elections;
  } else if (leader != kNoBroker) {
    const std::vector<BrokerId> before = state.isr;
    std::erase_if(state.isr, [&](BrokerId b) { return !is_usable(b, tp); });
    update_elr(state, before);
  } else if (old_leader != kNoBroker) {
    ++stats_.offline_transitions;
  }
  update_last_known_leader(state, old_leader);
  if (leader != kNoBroker) {
    ++stats_.elections;
    if (stats_.first_elections.size() < ControllerStats::kElectionsKept) {
      const ElectedFrom from = !unclean                 ? (from_elr ? ElectedFrom::EligibleLeaderReplicas : ElectedFrom::Isr)
                               : eligible.last_known    ? ElectedFrom::LastKnownLeader
                                                        : ElectedFrom::OutOfSyncReplica;
      stats_.first_elections.push_back({now(), tp, leader, state.leader_epoch, from});
    }
    const auto since = leaderless_since_.find(tp);
    if (since != leaderless_since_.end()) {
      stats_.max_leaderless = std::max(stats_.max_leaderless, now() - since->second);
      leaderless_since_.erase(since);
    }
  }
  publish(LeaderElected{tp, leader, state.leader_epoch, unclean, state.isr.size()});
  if (state.reassigning() && leader != kNoBroker) settle_reassignment(state, previous);
  return true;
}

// ReplicationControlManager.validateAlterPartitionData: the request must come
// from the current leader in its leader epoch (FENCED_LEADER_EPOCH), be based
// on the current partition epoch (INVALID_UPDATE_VERSION), and, KIP-841, add
// only brokers that are neither fenced nor shutting down (INELIGIBLE_REPLICA).
void Controller::handle_alter_partition(ConnectionId connection, const AlterPartitionRequest& request) {
  auto response = std::make_unique<AlterPartitionResponse>();
  response->proposed_leader_epoch = request.leader_epoch;
  response->proposed_partition_epoch = request.partition_epoch;
  response->proposed_isr = request.new_isr;
  PartitionState& state = partitions_.at(request.partition);
  const bool eligible = std::all_of(request.new_isr.begin(), request.new_isr.end(), [&](BrokerId b) {
    return contains(state.isr, b) || is_usable(b, request.partition);
  });
  if (request.leader != state.leader || request.leader_epoch != state.leader_epoch) {
    response->error = Error::FencedLeaderEpoch;
  } else if (request.partition_epoch != state.partition_epoch) {
    response->error = Error::InvalidUpdateVersion;
  } else if (!eligible || request.new_isr.empty()) {
    response->error = Error::IneligibleReplica;
  }
  if (response->error != Error::None) {
    response->state = state;
    respond_when_committed(connection, std::move(response));
    return;
  }
  const PartitionState previous = state;
  state.isr = request.new_isr;
  update_elr(state, previous.isr);
  if (state.reassigning()) settle_reassignment(state, previous);  // KIP-455: the ISR may end it
  ++state.partition_epoch;
  ++stats_.isr_changes;
  publish(IsrCommitted{state.partition, state.isr.size(), state.partition_epoch});
  response->state = state;
  respond_when_committed(connection, std::move(response));  // alone at once; in a quorum once committed
  push({state});
}

// What the controller commits (ReplicationControlManager's checks): an ISR
// of assigned replicas, never empty (with KIP-966, empty only without a
// leader), a leader that is in it, and an ELR of assigned replicas outside it.
void Controller::check_partition_state(const PartitionState& state) const {
  const auto require = [&](bool holds, const char* invariant) {
    if (holds) return;
    std::fprintf(stderr, "ksim: controller: partition %d-%d (leader %d, epoch %d): invariant '%s' broken\n",
                 state.partition.topic, state.partition.partition, state.leader, state.leader_epoch, invariant);
    std::abort();
  };
  require(!state.isr.empty() || (config_.eligible_leader_replicas && state.leader == kNoBroker),
          "an ISR is never empty (with KIP-966: only without a leader)");
  require(std::none_of(state.elr.begin(), state.elr.end(), [&](BrokerId b) { return contains(state.isr, b); }),
          "no ISR member is also an eligible leader replica");
  require(std::all_of(state.elr.begin(), state.elr.end(), [&](BrokerId b) { return contains(state.replicas, b); }),
          "the ELR holds only assigned replicas");
  require(std::all_of(state.isr.begin(), state.isr.end(), [&](BrokerId b) { return contains(state.replicas, b); }),
          "the ISR holds only assigned replicas");
  require(state.leader == kNoBroker || contains(state.isr, state.leader), "the leader is in the ISR");
  const auto assigned = [&](const std::vector<BrokerId>& brokers) {
    return std::all_of(brokers.begin(), brokers.end(), [&](BrokerId b) { return contains(state.replicas, b); });
  };
  require(assigned(state.adding) && assigned(state.removing),
          "KIP-455: replicas being added or removed are in the replica list");
  require(std::none_of(state.adding.begin(), state.adding.end(), [&](BrokerId b) { return contains(state.removing, b); }),
          "KIP-455: no replica is both added and removed");
}

}  // namespace ksim::models
