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
  // The JVM heap the broker holds live with nothing produced: its base and its
  // replicas' partition-level state (Partition, UnifiedLog and its segment,
  // indexes and producer state managers, the fetcher's and the leader's
  // follower state, the per-partition metrics, the metadata image's share).
  std::uint64_t heap_bytes = 0;

  // Measured on Kafka 4.4.0 (KRaft, one controller, JDK 17) by
  // `ground-truth/heap-per-partition --partitions 1000,3000,5000`: the live
  // heap after a full collection (jcmd GC.class_histogram), once every broker
  // has a log for each of its replicas. Linear in the partitions; per broker:
  //   1 broker, RF 1:  143.9 MB + 25.7 KB per replica
  //   3 brokers, RF 3: 142.4 MB + 33.2 KB per replica (30.5 KB from 1,000 to 3,000, 35.9 KB from 3,000 to 5,000)
  //   3 brokers, RF 1: 151.8 MB +  6.1 KB per partition of the cluster (2.0 KB per replica above what a replica
  //                    of RF 1 costs alone: the metadata image's share is small, per-broker noise is about 2 KB)
  // The base is mostly the log cleaner's dedupe buffer (log.cleaner.dedupe.buffer.size, 128 MiB, on the heap).
  // Records produced add producer state, index entries and segments, not counted here.
  static constexpr std::uint64_t kHeapBaseBytes = 143'000'000;
  static constexpr std::uint64_t kHeapPerReplicaAloneBytes = 25'700;  // a replica of an RF 1 partition
  static constexpr std::uint64_t kHeapPerReplicaBytes = 33'200;       // a replica of a replicated partition
  // The controller's live heap for the metadata of each partition
  // (PartitionRegistration in its image and timeline structures), measured
  // alike: 0.6-0.8 KB per partition on a 30 MB base.
  static constexpr std::uint64_t kControllerHeapBaseBytes = 30'000'000;
  static constexpr std::uint64_t kControllerHeapPerPartitionBytes = 700;
};

}  // namespace ksim::models
