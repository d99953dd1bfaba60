#include "models/coordinator/txn_state.hpp"

namespace ksim::models {

std::string_view to_string(TxnState state) {
  switch (state) {
    case TxnState::Empty: return "Empty";
    case TxnState::Ongoing: return "Ongoing";
    case TxnState::PrepareCommit: return "PrepareCommit";
    case TxnState::PrepareAbort: return "PrepareAbort";
    case TxnState::CompleteCommit: return "CompleteCommit";
    case TxnState::CompleteAbort: return "CompleteAbort";
    case TxnState::Dead: return "Dead";
  }
  return "?";
}

// TransactionMetadata.scala: each state's validPreviousStates.
bool legal(TxnState from, TxnState to) {
  using enum TxnState;
  switch (to) {
    case Empty: return from == Empty || from == CompleteCommit || from == CompleteAbort;
    case Ongoing: return from == Ongoing || from == Empty || from == CompleteCommit || from == CompleteAbort;
    case PrepareCommit: return from == Ongoing;
    // and PrepareEpochFence, not modelled; from Empty and Complete*: a transactions-v2
    // abort of a transaction no partition was added to (KIP-890 part 2, 4.0).
    case PrepareAbort: return from == Ongoing || from == Empty || from == CompleteCommit || from == CompleteAbort;
    case CompleteCommit: return from == PrepareCommit;
    case CompleteAbort: return from == PrepareAbort;
    case Dead: return from == Empty || from == CompleteCommit || from == CompleteAbort;  // isExpirationAllowed
  }
  return false;
}

}  // namespace ksim::models
