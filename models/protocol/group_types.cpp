#include "models/protocol/group_types.hpp"

namespace ksim::models {

std::string_view to_string(RebalanceProtocol p) {
  switch (p) {
    case RebalanceProtocol::Eager: return "EAGER";
    case RebalanceProtocol::Cooperative: return "COOPERATIVE";
  }
  return "?";
}

}  // namespace ksim::models
