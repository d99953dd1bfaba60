#include "models/log/log_divergence.hpp"

#include <algorithm>

namespace ksim::models {

Offset agreed_end(const PartitionLog& copy, const PartitionLog& source) {
  Offset end = std::min(copy.log_end_offset(), source.log_end_offset());
  const auto& epochs = copy.epoch_cache();
  for (auto it = epochs.rbegin(); it != epochs.rend(); ++it) {
    const auto [epoch, start] = *it;
    if (start >= end) continue;  // this epoch's batches are all past the end already
    const auto theirs = source.end_offset_for_epoch(epoch);
    if (theirs && theirs->epoch == epoch) return std::min(end, theirs->end_offset);
    end = start;
  }
  return end;
}

}  // namespace ksim::models
