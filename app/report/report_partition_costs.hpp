#pragma once
// What the partitions cost beside the records, against partitions: each
// broker's segment files and memory maps (models/broker/broker_footprint.hpp,
// read against Kafka's docs/ops.html limits), its fetchers' and producer
// state's entries, and the clients' buffers (the producer's buffer.memory in
// use, the consumer's fetched records waiting for poll()). The busiest broker
// and client of each.
#include <ostream>

#include <nlohmann/json.hpp>

#include "app/harness/cluster.hpp"
#include "app/report/figure_table.hpp"

namespace ksim::app {

struct PartitionCosts {
  std::uint64_t replicas = 0;  // on the broker with the most
  std::uint64_t segments = 0;
  std::uint64_t segment_files = 0;
  std::uint64_t memory_maps = 0;
  std::uint64_t index_mapped_bytes = 0;
  std::uint64_t fetcher_partitions = 0;
  std::uint64_t producer_state_entries = 0;
  std::uint64_t consumer_fetch_buffer_peak_bytes = 0;  // the consumer that held the most
  std::uint64_t broker_heap_bytes = 0;      // that broker's live JVM heap, as measured on Kafka 4.4.0
  std::uint64_t controller_heap_bytes = 0;  // the controller's, for the cluster's partitions
  double memory_maps_of_limit = 0;       // memory_maps over vm.max_map_count's default
  double segment_files_of_recommended = 0;  // segment_files over the 100,000 descriptors Kafka recommends
};

const Section<PartitionCosts>& partition_costs_section();
PartitionCosts partition_costs(const Cluster& cluster);
void print_partition_costs(const PartitionCosts& c, std::ostream& out);

}  // namespace ksim::app
