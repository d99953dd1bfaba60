#pragma once
// Kafka's producer partitioners, for the records whose partition is known
// when they are drawn: a keyed record goes to toPositive(murmur2(key bytes))
// % partitions (Utils.murmur2, the same hash as the Java client, so ksim
// places keys where Kafka would). Keyless: with `partitioner.class`
// RoundRobinPartitioner every record goes to the next partition in turn, its
// key ignored (the DefaultPartitioner of 0.8.2-2.3 did the same for keyless
// records); with DefaultPartitioner (2.4-3.2, KIP-480) a keyless record moves
// to another partition, drawn uniformly, whenever it would open a new batch.
// The built-in partitioner's keyless records (KIP-794, 3.3+) depend on the
// accumulator at their append: StickyPartitioner (sticky_partitioner.hpp).
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "models/protocol/kafka_config.hpp"
#include "sim/events/time.hpp"
#include "sim/random/random.hpp"

namespace ksim::models {

// Kafka's Utils.murmur2 (seed 0x9747b28c), bit-exact.
std::int32_t murmur2(std::span<const std::uint8_t> data);
std::int32_t murmur2(std::string_view data);
// Kafka's Utils.toPositive: hash & 0x7fffffff.
inline std::int32_t to_positive(std::int32_t hash) { return hash & 0x7fffffff; }

class Partitioner {
 public:
  // `batch_header_bytes`: what a batch holds before its first record (the
  // record format's); `linger`: linger.ms, after which the sender takes a batch.
  Partitioner(std::int32_t partitions, std::uint64_t batch_size_bytes, RandomStream rng,
              std::uint64_t batch_header_bytes = 0, SimTime linger = kNever,
              PartitionerClass kind = PartitionerClass::BuiltIn);

  // The partition of a record sent at `at`: by key hash when `key` is set, else the sticky partition.
  // `record_bytes` (its size in a batch) counts towards the sticky partition's batch.size budget.
  std::int32_t partition(std::optional<std::string_view> key, std::uint64_t record_bytes, SimTime at = 0);

 private:
  std::int32_t sticky_on_new_batch(std::uint64_t record_bytes, SimTime at);

  PartitionerClass kind_;
  std::int32_t partitions_;
  std::int32_t round_robin_next_ = 0;  // RoundRobinPartitioner's counter, from 0
  std::uint64_t batch_size_bytes_;
  std::uint64_t batch_header_bytes_;
  RandomStream rng_;
  std::int32_t sticky_ = -1;
  SimTime linger_;
  // KIP-480: each partition's open batch, as the accumulator fills it (bytes 0: none).
  struct OpenBatch {
    std::uint64_t bytes = 0;
    SimTime started = 0;
  };
  std::vector<OpenBatch> open_batches_;
};

}  // namespace ksim::models
