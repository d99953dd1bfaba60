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

// Keyed: BuiltInPartitioner.partitionForKey (or DefaultPartitioner's, the
// same hash). Keyless: round robin (RoundRobinPartitioner; DefaultPartitioner
// before 2.4), or KIP-480's sticky-on-new-batch. The built-in partitioner's
// keyless records are not drawn here: the producer chooses them at append
// time (sticky_partitioner.hpp).
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
  assert(kind_ == PartitionerClass::StickyOnNewBatch && "the built-in partitioner's keyless records are chosen at append");
  return sticky_on_new_batch(record_bytes, at);
}

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

}  // namespace ksim::models
