#include "models/controller/controller_role.hpp"

namespace ksim::models {

std::string_view to_string(ControllerRole role) {
  switch (role) {
    case ControllerRole::Standby: return "Standby";
    case ControllerRole::Active: return "Active";
    case ControllerRole::Stopping: return "Stopping";
  }
  return "?";
}

bool legal(ControllerRole from, ControllerRole to) {
  using enum ControllerRole;
  switch (to) {
    case Active: return from == Standby;    // claim: its replica leads, the log before its epoch replayed
    case Standby: return from == Active;    // renounce: its replica no longer leads that epoch
    case Stopping: return from == Standby;  // a clean stop of the Raft leader, once it renounced
  }
  return false;
}

}  // namespace ksim::models
