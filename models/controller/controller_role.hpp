#pragma once
// A controller's part in the controller quorum, and which may follow which
// (QuorumController: its curClaimEpoch, -1 when it is not active, and its
// shutdown). One controller without a quorum is always Active while it runs.
// A (re)start is Standby, not a transition.
#include <string_view>

namespace ksim::models {

enum class ControllerRole {
  Standby,   // replays the committed metadata log, answers brokers NOT_CONTROLLER
  Active,    // claimed the epoch its Raft replica leads: decides, writes records, acts on committed ones
  Stopping,  // a clean stop: resigned its Raft leadership, exits once another controller leads
};
std::string_view to_string(ControllerRole role);

// May a controller go from `from` to `to`?
bool legal(ControllerRole from, ControllerRole to);

}  // namespace ksim::models
