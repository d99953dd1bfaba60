#pragma once
// The state of a transactional.id's transaction at its coordinator, as
// written to __transaction_state, and which state may follow which: Kafka's
// TransactionState and its validPreviousStates
// (core/src/main/scala/kafka/coordinator/transaction/TransactionMetadata.scala;
// TransactionState.java of the transaction-coordinator module from 4.0 on).
//
// Dead is a transactional.id's tombstone, written when it expired
// (transactional.id.expiration.ms): once written the id is forgotten. One of
// Kafka's states is not modelled: PrepareEpochFence (the step, in memory only, of a fencing abort between
// Ongoing and PrepareAbort: here the fencing abort writes PrepareAbort with
// the bumped epoch directly, which Kafka's table allows from Ongoing too).
#include <string_view>

namespace ksim::models {

enum class TxnState { Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, Dead };
std::string_view to_string(TxnState state);

// May a transaction in state `from` go to `to`? (`from` is one of `to`'s valid previous states.)
bool legal(TxnState from, TxnState to);

}  // namespace ksim::models
