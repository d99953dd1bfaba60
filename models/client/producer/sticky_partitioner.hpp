#pragma once
// Kafka's built-in partitioner for keyless records (KIP-794, 3.3+:
// clients/.../producer/internals/BuiltInPartitioner.java), decided when a
// record is appended, from the accumulator and the metadata as they are then
// (RecordAccumulator.append). Records stick to one partition until
// batch.size bytes went to it and its last batch is full, or twice
// batch.size went to it (updatePartitionInfo, enableSwitch = allBatchesFull);
// the next partition is drawn among those with a leader
// (Cluster.availablePartitionsForTopic), and with adaptive partitioning
// (partitioner.adaptive.partitioning.enable, on by default) weighted by how
// few batches wait in each one's queue: partition i weighs
// max + 1 - queue_i (updatePartitionLoadStats), uniform when all queues are
// equal. The producer tells it what it needs through PartitionLoad.
#include <cstdint>
#include <vector>

#include "sim/random/random.hpp"

namespace ksim::models {

// What the accumulator and the metadata say when a partition is drawn.
class PartitionLoad {
 public:
  virtual ~PartitionLoad() = default;
  // The partitions with a leader, ascending.
  virtual const std::vector<std::int32_t>& available_partitions() = 0;
  // Batches in a partition's queue not yet sent (RecordAccumulator's deque size).
  virtual std::size_t queued_batches(std::int32_t partition) = 0;
};

class StickyPartitioner {
 public:
  StickyPartitioner(std::int32_t partitions, std::uint64_t batch_size_bytes, RandomStream rng, bool adaptive);

  // peekCurrentPartitionInfo: the partition keyless records go to now, drawn when there is none.
  std::int32_t current(PartitionLoad& load);
  // Before an append (RecordAccumulator.partitionChanged): a partition whose
  // batches are all full (none open) may switch now.
  void before_append(bool all_batches_full, PartitionLoad& load);
  // After an append of `appended` bytes (a new batch's header included):
  // updatePartitionInfo, `all_batches_full` once the append is done.
  void after_append(std::uint64_t appended, bool all_batches_full, PartitionLoad& load);

  void reset() { current_ = -1, produced_ = 0; }  // a new producer process
  bool has_current() const { return current_ >= 0; }
  std::int32_t current_or_none() const { return current_; }
  std::uint64_t produced() const { return produced_; }  // bytes to the current partition
  std::uint64_t batch_size() const { return batch_size_; }

 private:
  void update(std::uint64_t appended, bool enable_switch, PartitionLoad& load);
  std::int32_t next_partition(PartitionLoad& load);  // nextPartition

  std::int32_t partitions_;
  std::uint64_t batch_size_;
  RandomStream rng_;
  bool adaptive_;
  std::int32_t current_ = -1;
  std::uint64_t produced_ = 0;
  std::vector<std::uint64_t> weights_;  // next_partition's scratch space
};

}  // namespace ksim::models
