// KIP-455's replica lists as Kafka's controller computes them
// (PartitionReassignmentReplicas, PartitionReassignmentRevert; the cases of
// Kafka's PartitionReassignmentReplicasTest and PartitionReassignmentRevertTest).
#include <catch2/catch.hpp>

#include "models/controller/partition_reassignment.hpp"

using namespace ksim::models;

namespace {

PartitionState reassigning(std::vector<BrokerId> replicas, std::vector<BrokerId> isr, std::vector<BrokerId> adding,
                           std::vector<BrokerId> removing) {
  PartitionState s;
  s.replicas = std::move(replicas);
  s.isr = std::move(isr);
  s.adding = std::move(adding);
  s.removing = std::move(removing);
  s.leader = s.isr.empty() ? kNoBroker : s.isr.front();
  return s;
}

}  // namespace

TEST_CASE("a reassignment's replicas are the target then those removed", "[kip455]") {
  const ReassignmentReplicas r = reassignment_replicas({0, 1, 2}, {3, 1, 4});
  CHECK(r.replicas == std::vector<BrokerId>{3, 1, 4, 0, 2});
  CHECK(r.adding == std::vector<BrokerId>{3, 4});
  CHECK(r.removing == std::vector<BrokerId>{0, 2});
  // A reordering adds and removes nothing.
  const ReassignmentReplicas reorder = reassignment_replicas({0, 1, 2}, {2, 1, 0});
  CHECK(reorder.replicas == std::vector<BrokerId>{2, 1, 0});
  CHECK(reorder.adding.empty());
  CHECK(reorder.removing.empty());
}

TEST_CASE("a reassignment completes only once every replica that stays is in the ISR", "[kip455]") {
  const PartitionState s = reassigning({3, 1, 4, 0, 2}, {0, 1, 2}, {3, 4}, {0, 2});
  CHECK_FALSE(maybe_complete_reassignment(s, {0, 1, 2}));
  CHECK_FALSE(maybe_complete_reassignment(s, {0, 1, 2, 3}));  // 4 not caught up yet
  const auto done = maybe_complete_reassignment(s, {0, 1, 2, 3, 4});
  REQUIRE(done);
  CHECK(done->replicas == std::vector<BrokerId>{3, 1, 4});
  CHECK(done->isr == std::vector<BrokerId>{1, 3, 4});
  // Removing only: complete at once while a replica that stays is in the ISR.
  const PartitionState shrink = reassigning({0, 1, 2}, {0, 1, 2}, {}, {2});
  const auto shrunk = maybe_complete_reassignment(shrink, {0, 1, 2});
  REQUIRE(shrunk);
  CHECK(shrunk->replicas == std::vector<BrokerId>{0, 1});
  CHECK(shrunk->isr == std::vector<BrokerId>{0, 1});
  // Never to an empty ISR.
  CHECK_FALSE(maybe_complete_reassignment(reassigning({1, 0}, {0}, {1}, {0}), {0}));
  // Nothing to complete when not reassigning.
  CHECK_FALSE(maybe_complete_reassignment(reassigning({0, 1}, {0, 1}, {}, {}), {0, 1}));
}

TEST_CASE("cancelling a reassignment restores the original replicas", "[kip455]") {
  const ReassignmentRevert revert = revert_reassignment(reassigning({3, 1, 4, 0, 2}, {0, 1, 3}, {3, 4}, {0, 2}));
  CHECK(revert.replicas == std::vector<BrokerId>{1, 0, 2});
  CHECK(revert.isr == std::vector<BrokerId>{0, 1});
  CHECK_FALSE(revert.unclean);
  // Only added replicas in the ISR: the first original one alone, an unclean election.
  const ReassignmentRevert unclean = revert_reassignment(reassigning({3, 0}, {3}, {3}, {0}));
  CHECK(unclean.replicas == std::vector<BrokerId>{0});
  CHECK(unclean.isr == std::vector<BrokerId>{0});
  CHECK(unclean.unclean);
}
