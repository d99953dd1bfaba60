// Where the built-in partitioner (KIP-794) sends a keyless record: chosen
// at its append, from the accumulator and the metadata as they are then
// (RecordAccumulator.append with RecordMetadata.UNKNOWN_PARTITION).
#include "models/client/producer/producer.hpp"

namespace ksim::models {

// RecordAccumulator.append: the current sticky partition; a partition whose
// batches are all full may switch first (partitionChanged); after the
// append, updatePartitionInfo with the bytes the batch grew by.
bool Producer::append_arrival(Arrival& arrival) {
  if (arrival.partition.partition != kStickyPartition) return append(arrival.partition, arrival.record, arrival.at);
  sticky_->current(*this);
  sticky_->before_append(all_batches_full(sticky_->current(*this)), *this);
  arrival.partition.partition = sticky_->current(*this);
  std::uint64_t appended = 0;
  if (!append(arrival.partition, arrival.record, arrival.at, &appended)) {
    blocked_sticky_ = true;  // KafkaProducer keeps the partition it chose while send() waits for memory
    return false;
  }
  sticky_->after_append(appended, all_batches_full(arrival.partition.partition), *this);
  return true;
}

// Only the last batch may be incomplete: it is the open one, if any.
bool Producer::all_batches_full(std::int32_t partition) const {
  return open_batches_[static_cast<std::size_t>(partition)].reserved_bytes == 0;
}

TopicPartition Producer::planned_partition(const Arrival& arrival) const {
  if (arrival.partition.partition != kStickyPartition) return arrival.partition;
  return {arrival.partition.topic, sticky_->current_or_none()};
}

// Cluster.availablePartitionsForTopic, from the producer's metadata.
const std::vector<std::int32_t>& Producer::available_partitions() {
  if (available_metadata_ == metadata_version()) return available_;
  available_metadata_ = metadata_version();
  available_.clear();
  for (std::size_t p = 0; p < queues_.size(); ++p) {
    if (leader_of({workload_.topic, static_cast<std::int32_t>(p)}) != kNoBroker) available_.push_back(static_cast<std::int32_t>(p));
  }
  return available_;
}

// The deque's size in Kafka: batches waiting, not those drained into requests.
std::size_t Producer::queued_batches(std::int32_t partition) {
  const auto& queue = queues_[static_cast<std::size_t>(partition)];
  return static_cast<std::size_t>(queue.end() - first_unsent(static_cast<std::size_t>(partition)));
}

}  // namespace ksim::models
