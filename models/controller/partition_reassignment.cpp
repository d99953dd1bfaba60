#include "models/controller/partition_reassignment.hpp"

#include <algorithm>
#include <set>

#include "models/protocol/replica_list.hpp"

namespace ksim::models {

namespace {

// Kafka's calculateDifference: a TreeSet, so in broker id order.
std::vector<BrokerId> sorted_difference(const std::vector<BrokerId>& a, const std::vector<BrokerId>& b) {
  std::set<BrokerId> result(a.begin(), a.end());
  for (const BrokerId x : b) result.erase(x);
  return {result.begin(), result.end()};
}

}  // namespace

ReassignmentReplicas reassignment_replicas(const std::vector<BrokerId>& current, const std::vector<BrokerId>& target) {
  ReassignmentReplicas r;
  r.removing = sorted_difference(current, target);
  r.adding = sorted_difference(target, current);
  r.replicas = target;
  r.replicas.insert(r.replicas.end(), r.removing.begin(), r.removing.end());
  return r;
}

std::optional<CompletedReassignment> maybe_complete_reassignment(const PartitionState& state,
                                                                 const std::vector<BrokerId>& isr) {
  if (!state.reassigning()) return std::nullopt;
  CompletedReassignment done{state.replicas, isr};
  if (!state.removing.empty()) {
    std::erase_if(done.isr, [&](BrokerId b) { return contains(state.removing, b); });
    if (done.isr.empty()) return std::nullopt;
    std::erase_if(done.replicas, [&](BrokerId b) { return contains(state.removing, b); });
    if (done.replicas.empty()) return std::nullopt;
  }
  const bool all_in_isr =
      std::all_of(done.replicas.begin(), done.replicas.end(), [&](BrokerId b) { return contains(done.isr, b); });
  if (!all_in_isr) return std::nullopt;
  return done;
}

ReassignmentRevert revert_reassignment(const PartitionState& state) {
  ReassignmentRevert revert;
  revert.replicas = state.replicas;
  std::erase_if(revert.replicas, [&](BrokerId b) { return contains(state.adding, b); });
  revert.isr = state.isr;
  std::erase_if(revert.isr, [&](BrokerId b) { return contains(state.adding, b); });
  if (revert.isr.empty() && !revert.replicas.empty()) {
    revert.isr = {revert.replicas.front()};
    revert.unclean = true;
  }
  return revert;
}

}  // namespace ksim::models
