#include "models/client/producer/partitioner.hpp"

#include <cassert>
#include <limits>

namespace ksim::models {

// org.apache.kafka.common.utils.Utils.murmur2. Java's int arithmetic wraps
// modulo 2^32 and `>>>` is a logical shift, which is exactly std::uint32_t.
std::int32_t murmur2(std::span<const std::uint8_t> data) {
  assert(data.size() <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()));
  constexpr std::uint32_t seed = 0x9747b28c;
  constexpr std::uint32_t m = 0x5bd1e995;
  constexpr int r = 24;
  const auto length = static_cast<std::uint32_t>(data.size());

  std::uint32_t h = seed ^ length;
  const std::uint32_t length4 = length / 4;
  for (std::uint32_t i = 0; i < length4; ++i) {
    const std::uint32_t i4 = i * 4;
    std::uint32_t k = std::uint32_t{data[i4]} | (std::uint32_t{data[i4 + 1]} << 8) |
                      (std::uint32_t{data[i4 + 2]} << 16) | (std::uint32_t{data[i4 + 3]} << 24);
    k *= m;
    k ^= k >> r;
    k *= m;
    h *= m;
    h ^= k;
  }

  const std::uint32_t tail = length & ~3u;
  switch (length % 4) {
    case 3: h ^= std::uint32_t{data[tail + 2]} << 16; [[fallthrough]];
    case 2: h ^= std::uint32_t{data[tail + 1]} << 8; [[fallthrough]];
    case 1:
      h ^= std::uint32_t{data[tail]};
      h *= m;
  }

  h ^= h >> 13;
  h *= m;
  h ^= h >> 15;
  return static_cast<std::int32_t>(h);  // two's complement, as Java's int
}

std::int32_t murmur2(std::string_view data) {
  return murmur2(std::span(reinterpret_cast<const std::uint8_t*>(data.data()), data.size()));
}

Partitioner::Partitioner(std::int32_t partitions, std::uint64_t batch_size_bytes, RandomStream rng,
                         std::uint64_t batch_header_bytes, SimTime linger, PartitionerClass kind)
    : kind_(kind), partitions_(partitions), batch_size_bytes_(batch_size_bytes), batch_header_bytes_(batch_header_bytes), rng_(rng),
      linger_(linger) {
  assert(partitions_ >= 1);
  assert(batch_size_bytes_ >= 1);  // KafkaProducer passes max(1, batch.size)
}

// Keyed: BuiltInPartitioner.partitionForKey; keyed records leave the sticky
// state alone, as in Kafka. Keyless: the sticky partition (KIP-794
// BuiltInPartitioner.updatePartitionInfo). It switches once batch.size
// bytes went to it and its last batch is full, or at twice batch.size
// (RecordAccumulator.append's enableSwitch = allBatchesFull): a record that
// does not fit opens a batch, which must fill, or linger out, before the
// switch. The batch is mirrored here as the accumulator fills it, and taken
// as sent once linger.ms has passed since its first record (the sender may
// take it earlier, with another partition's ready batch, or later, short of
// in-flight room: not seen here).
std::int32_t Partitioner::partition(std::optional<std::string_view> key, std::uint64_t record_bytes, SimTime at) {
  if (kind_ == PartitionerClass::RoundRobin || (kind_ == PartitionerClass::HashOrRoundRobin && !key)) {
    // RoundRobinPartitioner: toPositive(counter++) % partitions. Not modelled:
    // it picks among partitions with a leader only, and KafkaProducer asks it
    // again when the record needs a new batch (KAFKA-9965), which skips partitions.
    const std::int32_t chosen = round_robin_next_ % partitions_;
    round_robin_next_ = (round_robin_next_ + 1) & 0x7fffffff;
    return chosen;
  }
  if (key) return to_positive(murmur2(*key)) % partitions_;
  if (kind_ == PartitionerClass::StickyOnNewBatch) return sticky_on_new_batch(record_bytes, at);
  if (sticky_ < 0) sticky_ = static_cast<std::int32_t>(rng_.below(static_cast<std::uint64_t>(partitions_)));
  if (batch_records_ > 0 && linger_ != kNever && at - batch_started_ >= linger_) {
    // Sent: no batch left open. RecordAccumulator.partitionChanged switches now if enough went to this partition.
    batch_records_ = 0;
    batch_bytes_ = 0;
    if (sticky_bytes_ >= batch_size_bytes_) switch_sticky();
  }
  const std::int32_t chosen = sticky_;
  // The accumulator's batch, mirrored: MemoryRecordsBuilder.hasRoomFor, and the
  // bytes the append adds (a new batch's estimated size, header included).
  if (batch_records_ > 0 && batch_bytes_ + record_bytes <= batch_size_bytes_) {
    batch_bytes_ += record_bytes;
    sticky_bytes_ += record_bytes;
  } else {
    batch_bytes_ = batch_header_bytes_ + record_bytes;
    batch_records_ = 0;
    batch_started_ = at;
    sticky_bytes_ += batch_bytes_;
  }
  ++batch_records_;
  const bool last_batch_full = batch_bytes_ >= batch_size_bytes_;  // MemoryRecordsBuilder.isFull
  if ((sticky_bytes_ >= batch_size_bytes_ && last_batch_full) || sticky_bytes_ >= 2 * batch_size_bytes_) switch_sticky();
  return chosen;
}

// The next sticky partition, uniform among the others when there are any (as
// KIP-480's StickyPartitionCache did; KIP-794 without load statistics may
// re-draw the same one).
// KIP-480 (DefaultPartitioner's StickyPartitionCache, 2.4-3.2): a keyless
// record goes to the sticky partition; when the accumulator would open a new
// batch there (the open one is full, or sent), KafkaProducer calls
// onNewBatch, which draws another partition, and the record opens its batch
// there. Each partition's open batch is mirrored, and taken as sent
// linger.ms after its first record (an earlier or later drain is not seen).
std::int32_t Partitioner::sticky_on_new_batch(std::uint64_t record_bytes, SimTime at) {
  if (open_batches_.empty()) open_batches_.resize(static_cast<std::size_t>(partitions_));
  if (sticky_ < 0) sticky_ = static_cast<std::int32_t>(rng_.below(static_cast<std::uint64_t>(partitions_)));
  const auto has_room = [&](std::int32_t p) {
    const OpenBatch& b = open_batches_[static_cast<std::size_t>(p)];
    const bool sent = linger_ != kNever && at - b.started >= linger_;
    return b.bytes > 0 && !sent && b.bytes + record_bytes <= batch_size_bytes_;  // MemoryRecordsBuilder.hasRoomFor
  };
  if (!has_room(sticky_)) {
    if (partitions_ > 1) {  // StickyPartitionCache.nextPartition: a different one
      const auto draw = static_cast<std::int32_t>(rng_.below(static_cast<std::uint64_t>(partitions_ - 1)));
      sticky_ = draw >= sticky_ ? draw + 1 : draw;
    }
    if (!has_room(sticky_)) open_batches_[static_cast<std::size_t>(sticky_)] = {batch_header_bytes_, at};
  }
  open_batches_[static_cast<std::size_t>(sticky_)].bytes += record_bytes;
  return sticky_;
}

void Partitioner::switch_sticky() {
  sticky_bytes_ = 0;
  batch_bytes_ = 0;
  batch_records_ = 0;
  if (partitions_ < 2) return;
  const auto draw = static_cast<std::int32_t>(rng_.below(static_cast<std::uint64_t>(partitions_ - 1)));
  sticky_ = draw >= sticky_ ? draw + 1 : draw;
}

}  // namespace ksim::models
