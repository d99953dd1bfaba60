#include "models/protocol/acks.hpp"

namespace ksim::models {

std::string_view to_string(Acks acks) {
  switch (acks) {
    case Acks::None: return "0";
    case Acks::Leader: return "1";
    case Acks::All: return "all";
  }
  return "?";
}

}  // namespace ksim::models
