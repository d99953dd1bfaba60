// Each state machine's table of legal transitions against Kafka's own: the
// group coordinator's (GroupMetadata.scala, ClassicGroupState.java), the
// transaction coordinator's (TransactionMetadata.scala) and the producer's
// (TransactionManager.State.isTransitionValid). Kafka's tables are written
// out here as its source has them, state by state; `legal` must agree on
// every pair of the states ksim models.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "models/client/consumer/consumer.hpp"
#include "models/client/producer/transaction_manager_state.hpp"
#include "models/controller/controller_role.hpp"
#include "models/coordinator/group_state.hpp"
#include "models/coordinator/txn_state.hpp"

using namespace ksim::models;

namespace {

// Kafka's table: each target state with the states it may come from.
template <class State>
using ValidPrevious = std::map<State, std::set<State>>;

// Every (from, to) over `states`: legal exactly when Kafka's table lists `from` for `to`.
template <class State>
void check_against_kafka(const std::vector<State>& states, const ValidPrevious<State>& kafka) {
  REQUIRE(kafka.size() == states.size());
  for (const State to : states) {
    for (const State from : states) {
      INFO(std::string(to_string(from)) + " -> " + std::string(to_string(to)));
      CHECK(legal(from, to) == kafka.at(to).contains(from));
    }
  }
}

}  // namespace

TEST_CASE("group states: the transitions of Kafka's GroupMetadata, no others", "[state-machine]") {
  using enum GroupState;
  // GroupMetadata.scala / ClassicGroupState.java (Dead, not modelled, left out).
  const ValidPrevious<GroupState> kafka{
      {Empty, {PreparingRebalance}},
      {PreparingRebalance, {Stable, CompletingRebalance, Empty}},
      {CompletingRebalance, {PreparingRebalance}},
      {Stable, {CompletingRebalance}},
  };
  check_against_kafka({Empty, PreparingRebalance, CompletingRebalance, Stable}, kafka);
  CHECK(legal(Empty, PreparingRebalance));
  CHECK_FALSE(legal(Stable, Empty));                // every member leaving rebalances first
  CHECK_FALSE(legal(PreparingRebalance, Stable));   // the assignment is synced first
  CHECK_FALSE(legal(Stable, Stable));
  CHECK(to_string(CompletingRebalance) == "CompletingRebalance");
}

TEST_CASE("transaction states: the transitions of Kafka's TransactionMetadata, no others", "[state-machine]") {
  using enum TxnState;
  // TransactionState (4.0; Dead and PrepareEpochFence, not modelled, left out).
  // PrepareAbort from Empty and Complete*: a transactions-v2 abort with no partition added.
  const ValidPrevious<TxnState> kafka{
      {Empty, {Empty, CompleteCommit, CompleteAbort}},
      {Ongoing, {Ongoing, Empty, CompleteCommit, CompleteAbort}},
      {PrepareCommit, {Ongoing}},
      {PrepareAbort, {Ongoing, Empty, CompleteCommit, CompleteAbort}},
      {CompleteCommit, {PrepareCommit}},
      {CompleteAbort, {PrepareAbort}},
  };
  check_against_kafka({Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort}, kafka);
  CHECK(legal(Ongoing, PrepareAbort));               // EndTxn(abort), or fencing with a bumped epoch
  CHECK_FALSE(legal(CompleteCommit, CompleteAbort));  // a decided outcome never changes
  CHECK_FALSE(legal(PrepareCommit, Ongoing));        // no partitions join a transaction being ended
  CHECK_FALSE(legal(Empty, PrepareCommit));
  CHECK(to_string(PrepareCommit) == "PrepareCommit");
}

TEST_CASE("producer transaction states: the transitions of Kafka's TransactionManager, no others", "[state-machine]") {
  using enum TransactionManagerState;
  const std::vector<TransactionManagerState> all{
      Uninitialized, Initializing, Ready, InTransaction, CommittingTransaction, AbortingTransaction, AbortableError,
      FatalError};
  // TransactionManager.State.isTransitionValid: FatalError from anywhere.
  const ValidPrevious<TransactionManagerState> kafka{
      {Uninitialized, {Ready, AbortableError}},
      {Initializing, {Uninitialized, AbortingTransaction}},
      {Ready, {Initializing, CommittingTransaction, AbortingTransaction}},
      {InTransaction, {Ready}},
      {CommittingTransaction, {InTransaction}},
      {AbortingTransaction, {InTransaction, AbortableError}},
      {AbortableError, {InTransaction, CommittingTransaction, AbortableError, Initializing}},
      {FatalError, {all.begin(), all.end()}},
  };
  check_against_kafka(all, kafka);
  CHECK(legal(CommittingTransaction, AbortableError));
  CHECK_FALSE(legal(CommittingTransaction, AbortingTransaction));  // only through AbortableError
  CHECK_FALSE(legal(FatalError, Ready));                           // fenced for good
  CHECK_FALSE(legal(Ready, CommittingTransaction));                // nothing to commit
  CHECK(to_string(AbortableError) == "AbortableError");
}

TEST_CASE("controller roles: claim, renounce and a clean stop, no others", "[state-machine][quorum]") {
  using enum ControllerRole;
  // QuorumController has no state enum: claim() from standby, renounce() back,
  // and ksim's clean stop of the Raft leader (KafkaRaftClient.shutdown) after it renounced.
  const ValidPrevious<ControllerRole> expected{
      {Standby, {Active}},
      {Active, {Standby}},
      {Stopping, {Standby}},
  };
  check_against_kafka({Standby, Active, Stopping}, expected);
  CHECK_FALSE(legal(Stopping, Active));  // a stopping controller does not claim again
  CHECK(to_string(Stopping) == "Stopping");
}

TEST_CASE("KIP-848 consumer member states: MemberState.java's previous valid states", "[state-machine][kip848]") {
  using enum ConsumerMembership;
  // Kafka's table (clients/.../internals/MemberState.java), PREPARE_LEAVING folded into
  // Leaving (its previous states are Leaving's; LEAVING's only previous state is it) and
  // FATAL not a state (the consumer stops).
  const ValidPrevious<ConsumerMembership> kafka{
      {Stable, {Joining, Acknowledging, Reconciling}},
      {Reconciling, {Stable, Joining, Acknowledging, Reconciling}},
      {Acknowledging, {Reconciling}},
      {Fenced, {Joining, Stable, Reconciling, Acknowledging, Leaving}},
      {Joining, {Fenced, Unsubscribed, Stale}},
      {Leaving, {Joining, Stable, Reconciling, Acknowledging, Unsubscribed}},
      {Unsubscribed, {Leaving, Fenced}},
      {Stale, {Leaving}},
  };
  check_against_kafka({Unsubscribed, Joining, Reconciling, Acknowledging, Stable, Fenced, Leaving, Stale}, kafka);
  CHECK_FALSE(legal(Stable, Acknowledging));  // only a reconciliation acknowledges
  CHECK(to_string(Acknowledging) == "ACKNOWLEDGING");
}
