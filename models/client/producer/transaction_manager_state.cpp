#include "models/client/producer/transaction_manager_state.hpp"

namespace ksim::models {

std::string_view to_string(TransactionManagerState state) {
  switch (state) {
    case TransactionManagerState::Uninitialized: return "Uninitialized";
    case TransactionManagerState::Initializing: return "Initializing";
    case TransactionManagerState::Ready: return "Ready";
    case TransactionManagerState::InTransaction: return "InTransaction";
    case TransactionManagerState::CommittingTransaction: return "CommittingTransaction";
    case TransactionManagerState::AbortingTransaction: return "AbortingTransaction";
    case TransactionManagerState::AbortableError: return "AbortableError";
    case TransactionManagerState::FatalError: return "FatalError";
  }
  return "?";
}

// TransactionManager.State.isTransitionValid, case by case.
bool legal(TransactionManagerState from, TransactionManagerState to) {
  using enum TransactionManagerState;
  switch (to) {
    case Uninitialized: return from == Ready || from == AbortableError;
    case Initializing: return from == Uninitialized || from == AbortingTransaction;
    case Ready: return from == Initializing || from == CommittingTransaction || from == AbortingTransaction;
    case InTransaction: return from == Ready;
    case CommittingTransaction: return from == InTransaction;
    case AbortingTransaction: return from == InTransaction || from == AbortableError;
    case AbortableError:
      return from == InTransaction || from == CommittingTransaction || from == AbortableError || from == Initializing;
    case FatalError: return true;  // from any state
  }
  return false;
}

}  // namespace ksim::models
