#pragma once
// The state of a classic consumer group at its coordinator, and which state
// may follow which: Kafka's GroupState and its validPreviousStates
// (core/src/main/scala/kafka/coordinator/group/GroupMetadata.scala; the same
// table as ClassicGroupState.java of the group-coordinator module in 3.7+).
//
// Kafka's fifth state, Dead (a group being removed: its last offsets
// expired, or its partition emigrated), is not modelled: an unloaded or
// deleted group is simply dropped (group_coordinator_expiry.cpp).
#include <string_view>

namespace ksim::models {

enum class GroupState { Empty, PreparingRebalance, CompletingRebalance, Stable };
std::string_view to_string(GroupState state);

// May a group in state `from` go to `to`? (`from` is one of `to`'s valid previous states.)
bool legal(GroupState from, GroupState to);

}  // namespace ksim::models
