#pragma once
// KIP-455 partition reassignment as the KRaft controller computes it
// (PartitionReassignmentReplicas, PartitionReassignmentRevert): pure
// functions of a partition's state, so each rule is tested alone.
#include <optional>
#include <vector>

#include "models/protocol/kafka_messages.hpp"

namespace ksim::models {

// The replica lists of a reassignment from `current` to `target`
// (PartitionReassignmentReplicas(currentAssignment, targetAssignment)):
// replicas = target, then the current ones being removed; adding and
// removing in broker id order.
struct ReassignmentReplicas {
  std::vector<BrokerId> replicas;
  std::vector<BrokerId> adding;
  std::vector<BrokerId> removing;
};
ReassignmentReplicas reassignment_replicas(const std::vector<BrokerId>& current, const std::vector<BrokerId>& target);

// PartitionReassignmentReplicas.maybeCompleteReassignment: once every
// replica that stays is in `isr` (and something stays), the replicas and
// ISR without the removed ones; nullopt while the reassignment cannot end.
struct CompletedReassignment {
  std::vector<BrokerId> replicas;
  std::vector<BrokerId> isr;
};
std::optional<CompletedReassignment> maybe_complete_reassignment(const PartitionState& state,
                                                                 const std::vector<BrokerId>& isr);

// PartitionReassignmentRevert: cancelling puts back the original replicas
// (those not being added) and takes the added ones out of the ISR; if that
// empties the ISR, the first original replica is put in it alone, which
// Kafka treats as an unclean election (refused unless the topic allows one).
struct ReassignmentRevert {
  std::vector<BrokerId> replicas;
  std::vector<BrokerId> isr;
  bool unclean = false;
};
ReassignmentRevert revert_reassignment(const PartitionState& state);

}  // namespace ksim::models
