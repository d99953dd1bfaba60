#pragma once
// A consumer group that changed protocol (KIP-848's online migration: an
// upgrade from classic to consumer, or a downgrade back), as a run's report
// lists it: from the coordinator's GroupConverted event.
#include <cstdint>
#include <string>

#include "sim/events/time.hpp"

namespace ksim::models {

struct GroupConversion {
  std::string group;
  bool to_consumer = true;  // an upgrade; false: a downgrade to a classic group
  SimTime at = 0;
  std::string trigger;      // the member joining or leaving that converted it
  std::int64_t members = 0;
};

}  // namespace ksim::models
