#pragma once
// End to end for a consume-transform-produce application: every committed
// input record should appear exactly once among the committed output
// records (as a read_committed consumer of the output sees them), each
// output record knowing the input it was made from.
#include <cstdint>

#include "models/history/delivery_history.hpp"

namespace ksim::models {

struct TransformReport {
  std::uint64_t inputs = 0;      // committed input records
  std::uint64_t outputs = 0;     // committed output records made from them
  std::uint64_t missing = 0;     // inputs with no committed output
  std::uint64_t duplicates = 0;  // outputs beyond the first for an input
  bool exactly_once() const { return missing == 0 && duplicates == 0; }
};

TransformReport check_transform(const FinalLogs& logs, const DeliveryHistory& history, std::int32_t input_topic,
                                std::int32_t output_topic);

}  // namespace ksim::models
