#pragma once
// What a broker holds per partition replica, beyond the records, as the
// operating system and Kafka count it. Kafka's operations guide (docs/ops.html,
// "OS"): one file descriptor per log segment (LogSegment's FileRecords keeps
// its FileChannel open), and two memory map areas per segment (its offset and
// time indexes, mapped by AbstractIndex, which closes the file after mapping;
// the map keeps it referenced) against vm.max_map_count, about 65,530 by
// default: "creating 50000 partitions on a broker will result allocation of
// 100000 map areas and likely cause broker crash with OutOfMemoryError (Map
// failed)". It recommends at least 100,000 file descriptors.
#include <cstdint>

namespace ksim::models {

struct BrokerFootprint {
  // The OS limits the figures are read against (Kafka's docs/ops.html).
  static constexpr std::uint64_t kDefaultMaxMapCount = 65530;      // Linux's vm.max_map_count default
  static constexpr std::uint64_t kRecommendedFileDescriptors = 100000;
  static constexpr std::uint64_t kSegmentBytes = 1ULL << 30;       // log.segment.bytes default (1 GiB)
  static constexpr std::uint64_t kIndexBytes = 10ULL << 20;        // segment.index.bytes default (10 MiB)

  std::uint64_t replicas = 0;
  // Segments as Kafka would have rolled them by size (log.segment.bytes);
  // ksim keeps one log per replica, and its runs are too short for
  // log.roll.hours (168).
  std::uint64_t segments = 0;
  std::uint64_t segment_files = 0;   // open file descriptors for segments: one each
  std::uint64_t memory_maps = 0;     // two per segment: offset and time index
  // The active segments' two indexes, preallocated to segment.index.bytes
  // each (sparse files, mapped: address space, not heap).
  std::uint64_t index_mapped_bytes = 0;
  std::uint64_t fetcher_partitions = 0;      // entries in this broker's replica fetchers
  std::uint64_t producer_state_entries = 0;  // producer ids tracked, summed over replicas (ProducerStateManager)
};

}  // namespace ksim::models
