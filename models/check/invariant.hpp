#pragma once
// A named invariant of a run, and a violation of one: which invariant, when
// (simulated time), in which run (seed), on which partition and broker, and
// what was seen. A run reports every violation by name; any violation fails
// the run unless its scenario expects it (expect: invariant_violations).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "models/protocol/kafka_types.hpp"

namespace ksim::models {

struct Invariant {
  std::string_view name;         // snake_case, as reports and expectations name it
  std::string_view description;  // what holds, in one sentence
};

struct InvariantViolation {
  std::string_view invariant;  // Invariant::name
  SimTime at = 0;
  std::uint64_t seed = 0;
  TopicPartition partition;     // {-1, -1}: not a partition's (the controller quorum's; the detail says whose)
  BrokerId broker = kNoBroker;  // the broker whose state breaks it
  std::string detail;
};

std::string to_string(const InvariantViolation& violation);

}  // namespace ksim::models
