#include "app/report/report_partition_costs.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace ksim::app {

namespace {

using PC = PartitionCosts;
using U = FigureUnit;
using models::BrokerFootprint;

constexpr Figure<PC> kCosts[] = {
    {.name = "replicas_per_broker", .value = of<&PC::replicas>, .label = "replicas on the busiest broker"},
    {.name = "segments", .value = of<&PC::segments>, .label = "segments"},
    {.name = "segment_files", .value = of<&PC::segment_files>, .label = "open segment files", .expect = ExpectAs::Bound,
     .description = "file descriptors the broker with the most replicas keeps for its log segments (one each; "
                    "Kafka recommends allowing at least 100,000)",
     .expect_key = "segment_files"},
    {.name = "memory_maps", .value = of<&PC::memory_maps>, .label = "memory maps", .expect = ExpectAs::Bound,
     .description = "memory map areas of that broker's segment indexes (two per segment), against vm.max_map_count "
                    "(65,530 by default)",
     .expect_key = "memory_maps"},
    {.name = "memory_maps_of_limit", .value = of<&PC::memory_maps_of_limit>, .unit = U::Fraction,
     .label = "of vm.max_map_count"},
    {.name = "index_mapped_bytes", .value = of<&PC::index_mapped_bytes>, .unit = U::Bytes, .label = "index address space",
     .new_line = true},
    {.name = "fetcher_partitions", .value = of<&PC::fetcher_partitions>, .label = "fetcher entries"},
    {.name = "producer_state_entries", .value = of<&PC::producer_state_entries>, .label = "producer state entries"},
    {.name = "consumer_fetch_buffer_peak_bytes", .value = of<&PC::consumer_fetch_buffer_peak_bytes>, .unit = U::Bytes,
     .label = "consumer fetch buffer peak"},
    // A base and a cost per replica measured on Kafka 4.4.0 (models/broker/broker_footprint.hpp).
    {.name = "broker_heap_bytes", .value = of<&PC::broker_heap_bytes>, .unit = U::Bytes, .label = "broker heap",
     .new_line = true},
    {.name = "controller_heap_bytes", .value = of<&PC::controller_heap_bytes>, .unit = U::Bytes,
     .label = "controller heap"},
};

constexpr Section<PC> kSection{"partition costs", SectionScope::Kafka, "partition_costs", kCosts};

}  // namespace

const Section<PartitionCosts>& partition_costs_section() { return kSection; }

PartitionCosts partition_costs(const Cluster& cluster) {
  PartitionCosts c;
  for (const models::Broker* b : cluster.brokers()) {
    const BrokerFootprint f = b->footprint();
    if (f.replicas < c.replicas) continue;
    c.replicas = f.replicas;
    c.segments = f.segments;
    c.segment_files = f.segment_files;
    c.memory_maps = f.memory_maps;
    c.index_mapped_bytes = f.index_mapped_bytes;
    c.fetcher_partitions = f.fetcher_partitions;
    c.producer_state_entries = f.producer_state_entries;
    c.broker_heap_bytes = f.heap_bytes;
  }
  if (const models::ControllerQuorum* controller = cluster.controller()) {
    c.controller_heap_bytes = BrokerFootprint::kControllerHeapBaseBytes +
                              controller->partitions().size() * BrokerFootprint::kControllerHeapPerPartitionBytes;
  }
  for (const models::Consumer* consumer : cluster.consumers()) {
    c.consumer_fetch_buffer_peak_bytes = std::max(c.consumer_fetch_buffer_peak_bytes, consumer->fetch_buffer_peak_bytes());
  }
  c.memory_maps_of_limit = static_cast<double>(c.memory_maps) / BrokerFootprint::kDefaultMaxMapCount;
  c.segment_files_of_recommended = static_cast<double>(c.segment_files) / BrokerFootprint::kRecommendedFileDescriptors;
  return c;
}

void print_partition_costs(const PartitionCosts& c, std::ostream& out) {
  fmt::print(out, "  partition costs, on the broker with the most replicas (limits: Kafka's docs/ops.html)\n");
  print_figures(kSection, c, out);
  if (c.memory_maps > BrokerFootprint::kDefaultMaxMapCount) {
    fmt::print(out, "  WARNING: {} memory maps exceed vm.max_map_count's default {}: Kafka fails with "
                    "OutOfMemoryError (Map failed) unless it is raised (docs/ops.html)\n",
               c.memory_maps, BrokerFootprint::kDefaultMaxMapCount);
  }
  if (c.segment_files > BrokerFootprint::kRecommendedFileDescriptors) {
    fmt::print(out, "  WARNING: {} open segment files exceed the 100,000 file descriptors Kafka recommends allowing\n",
               c.segment_files);
  }
}

}  // namespace ksim::app
