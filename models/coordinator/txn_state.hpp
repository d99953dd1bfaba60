#pragma once
// The state of a transactional.id's transaction at its coordinator, as
// written to __transaction_state, and which state may follow which: Kafka's
// TransactionState and its validPreviousStates
// (core/src/main/scala/kafka/coordinator/transaction/TransactionMetadata.scala;
// TransactionState.java of the transaction-coordinator module from 4.0 on).
//
// Two of Kafka's states are not modelled: Dead (a transactional.id expired
// after transactional.id.expiration.ms; ids here never expire) and
// PrepareEpochFence (the step, in memory only, of a fencing abort between
// Ongoing and PrepareAbort: here the fencing abort writes PrepareAbort with
// the bumped epoch directly, which Kafka's table allows from Ongoing too).
#include <string_view>

namespace ksim::models {

enum class TxnState { Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort };
std::string_view to_string(TxnState state);

// May a transaction in state `from` go to `to`? (`from` is one of `to`'s valid previous states.)
bool legal(TxnState from, TxnState to);

}  // namespace ksim::models
