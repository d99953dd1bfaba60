// Eligible leader replicas (KIP-966 part 1, Kafka 4.0; on by default for new
// clusters since 4.1: the cluster feature eligible.leader.replicas.version=1),
// as Kafka's PartitionChangeBuilder (maybePopulateTargetElr, electLeader,
// maybeUpdateLastKnownLeader) and ReplicationControlManager
// (handleBrokerUncleanShutdown).
//
// While a partition's ISR is below min.insync.replicas its high watermark
// cannot advance (KAFKA-15583), so a replica that leaves the ISR then still
// holds every committed record: it stays an eligible leader (ELR). The ISR
// may become empty; the controller elects from the ISR, else from the ELR,
// else the last known leader. A broker that comes back from an unclean
// shutdown (a crash: it may have lost what it had not flushed) leaves every
// ELR. Without the feature, the last ISR member stays in the ISR when it dies.
#include <algorithm>

#include "models/controller/controller.hpp"
#include "models/protocol/replica_list.hpp"

namespace ksim::models {

std::size_t Controller::effective_min_isr(const PartitionState& state) const {
  const TopicSpec& topic = directory_->topics[static_cast<std::size_t>(state.partition.topic)];
  return std::min(static_cast<std::size_t>(std::max(topic.min_insync_replicas, 1)), state.replicas.size());
}

// The broker leaves the ISR; without ELR the last member stays, as in KRaft before 4.0.
// The last member to leave is the last known leader: Kafka elects a new leader in the
// same step as it fences the old one, so the last ISR member led before it left; here
// elections are queued, and a second fence may empty the ISR before one runs.
bool Controller::leave_isr(PartitionState& state, BrokerId broker) {
  if (!contains(state.isr, broker) || (state.isr.size() == 1 && !config_.eligible_leader_replicas)) return false;
  const std::vector<BrokerId> before = state.isr;
  std::erase(state.isr, broker);
  update_elr(state, before);
  if (state.isr.empty()) state.last_known_elr = {broker};
  return true;
}

// maybePopulateTargetElr: at min ISR or above there are none; below it, the
// ELR gains the members the ISR lost.
void Controller::update_elr(PartitionState& state, const std::vector<BrokerId>& isr_before) {
  if (!config_.eligible_leader_replicas) return;
  if (state.isr.size() >= effective_min_isr(state)) {
    state.elr.clear();
    state.last_known_elr.clear();
    return;
  }
  for (const BrokerId b : isr_before) {
    if (!contains(state.elr, b)) state.elr.push_back(b);
  }
  std::erase_if(state.elr, [&](BrokerId b) { return contains(state.isr, b); });
  std::sort(state.elr.begin(), state.elr.end());
}

// maybeUpdateLastKnownLeader: a partition left with an empty ISR remembers its
// last leader; one with a leader forgets it.
void Controller::update_last_known_leader(PartitionState& state, BrokerId leader_before) {
  if (!config_.eligible_leader_replicas) return;
  if (state.isr.empty() && leader_before != kNoBroker) {
    state.last_known_elr = {leader_before};
  } else if (state.leader != kNoBroker) {
    state.last_known_elr.clear();
  }
}

// An eligible leader when no ISR member can lead: a live ELR member (in
// assignment order), else the last known leader if it is back (Kafka counts
// that one as an unclean election). kNoBroker when there is none.
Controller::EligibleLeader Controller::elect_from_elr(const PartitionState& state) const {
  if (!config_.eligible_leader_replicas || !state.isr.empty()) return {};
  const TopicPartition tp = state.partition;
  for (const BrokerId b : state.replicas) {
    if (contains(state.elr, b) && is_usable(b, tp)) return {b, false};
  }
  if (state.elr.empty() && state.last_known_elr.size() == 1 && is_usable(state.last_known_elr.front(), tp)) {
    return {state.last_known_elr.front(), true};
  }
  return {};
}

// handleBrokerUncleanShutdown: a broker registering after a crash may have lost
// records it had acknowledged as a follower; it is no longer an eligible leader.
void Controller::forget_unclean_replica(BrokerId broker) {
  if (!config_.eligible_leader_replicas) return;
  std::vector<PartitionState> changed;
  for (auto& [tp, state] : partitions_) {
    if (!contains(state.elr, broker)) continue;
    std::erase(state.elr, broker);
    ++state.partition_epoch;
    changed.push_back(state);
  }
  push(changed);
}

}  // namespace ksim::models
