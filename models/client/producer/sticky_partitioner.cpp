#include "models/client/producer/sticky_partitioner.hpp"

#include <algorithm>
#include <cassert>

namespace ksim::models {

StickyPartitioner::StickyPartitioner(std::int32_t partitions, std::uint64_t batch_size_bytes, RandomStream rng,
                                     bool adaptive)
    : partitions_(partitions), batch_size_(std::max<std::uint64_t>(1, batch_size_bytes)), rng_(rng), adaptive_(adaptive) {
  assert(partitions_ >= 1);
}

std::int32_t StickyPartitioner::current(PartitionLoad& load) {
  if (current_ < 0) current_ = next_partition(load);
  return current_;
}

void StickyPartitioner::before_append(bool all_batches_full, PartitionLoad& load) {
  if (current_ >= 0 && all_batches_full) update(0, true, load);
}

void StickyPartitioner::after_append(std::uint64_t appended, bool all_batches_full, PartitionLoad& load) {
  update(appended, all_batches_full, load);
}

// updatePartitionInfo: switch once batch.size went to the partition and its
// last batch is full, or twice batch.size went to it whatever its batches.
void StickyPartitioner::update(std::uint64_t appended, bool enable_switch, PartitionLoad& load) {
  produced_ += appended;
  if ((produced_ >= batch_size_ && enable_switch) || produced_ >= 2 * batch_size_) {
    current_ = next_partition(load);
    produced_ = 0;
  }
}

// nextPartition: uniform over the partitions with a leader (over all when
// none has one); with adaptive partitioning and queues that differ, weighted
// by max + 1 - queue (updatePartitionLoadStats's cumulative frequency table).
// It may draw the partition it leaves.
std::int32_t StickyPartitioner::next_partition(PartitionLoad& load) {
  const std::vector<std::int32_t>& available = load.available_partitions();
  if (available.empty()) return static_cast<std::int32_t>(rng_.below(static_cast<std::uint64_t>(partitions_)));
  if (adaptive_ && partitions_ >= 2) {
    weights_.resize(available.size());
    std::uint64_t max = 0;
    bool all_equal = true;
    for (std::size_t i = 0; i < available.size(); ++i) {
      weights_[i] = load.queued_batches(available[i]);
      all_equal &= weights_[i] == weights_[0];
      max = std::max(max, weights_[i]);
    }
    // Kafka skips the table when the queues are equal and no partition was left out.
    if (!all_equal || static_cast<std::int32_t>(available.size()) != partitions_) {
      std::uint64_t total = 0;
      for (std::uint64_t& w : weights_) total = (w = total + (max + 1 - w));
      const std::uint64_t draw = rng_.below(total);
      const auto it = std::upper_bound(weights_.begin(), weights_.end(), draw);
      return available[static_cast<std::size_t>(it - weights_.begin())];
    }
  }
  return available[rng_.below(available.size())];
}

}  // namespace ksim::models
