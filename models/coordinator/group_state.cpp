#include "models/coordinator/group_state.hpp"

namespace ksim::models {

std::string_view to_string(GroupState state) {
  switch (state) {
    case GroupState::Empty: return "Empty";
    case GroupState::PreparingRebalance: return "PreparingRebalance";
    case GroupState::CompletingRebalance: return "CompletingRebalance";
    case GroupState::Stable: return "Stable";
  }
  return "?";
}

// GroupMetadata.scala (and ClassicGroupState.java): each state's validPreviousStates.
bool legal(GroupState from, GroupState to) {
  using enum GroupState;
  switch (to) {
    case Empty: return from == PreparingRebalance;
    case PreparingRebalance: return from == Stable || from == CompletingRebalance || from == Empty;
    case CompletingRebalance: return from == PreparingRebalance;
    case Stable: return from == CompletingRebalance;
  }
  return false;
}

}  // namespace ksim::models
