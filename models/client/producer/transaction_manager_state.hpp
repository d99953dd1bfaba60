#pragma once
// The transactional producer's state, and which state may follow which:
// Kafka's TransactionManager.State and its isTransitionValid
// (clients/src/main/java/org/apache/kafka/clients/producer/internals/TransactionManager.java).
//
// Where ksim differs: a transaction that can only abort (one of its records
// failed) stays InTransaction, flagged, until the application ends it, and
// its commit becomes an abort; Kafka moves it to AbortableError at once, in
// which send() fails. ksim enters AbortableError only when a TxnOffsetCommit
// is rejected while committing, and the application's abortTransaction()
// follows at once (Kafka: CommittingTransaction -> AbortableError ->
// AbortingTransaction). Epoch bumps of a transactional producer after an
// abortable error (AbortingTransaction -> Initializing, KIP-360) are not
// modelled. A crash discards the TransactionManager: the new process starts
// Uninitialized, which is not a transition.
#include <string_view>

namespace ksim::models {

enum class TransactionManagerState {
  Uninitialized,
  Initializing,   // initTransactions(): finding the coordinator, InitProducerId
  Ready,
  InTransaction,  // the first record or sendOffsetsToTransaction() began it
  CommittingTransaction,
  AbortingTransaction,
  AbortableError,
  FatalError,     // fenced: nothing more is sent
};
std::string_view to_string(TransactionManagerState state);

// May the producer go from `from` to `to`? (Kafka's isTransitionValid(source, target).)
bool legal(TransactionManagerState from, TransactionManagerState to);

}  // namespace ksim::models
