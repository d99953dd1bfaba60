#include "models/broker/broker_footprint.hpp"

#include "models/broker/broker.hpp"
#include "models/broker/broker_fetcher.hpp"

namespace ksim::models {

BrokerFootprint Broker::footprint() const {
  BrokerFootprint f;
  for (const auto& [tp, r] : replicas_) {
    ++f.replicas;
    const std::uint64_t segments = 1 + r.log().size_bytes() / BrokerFootprint::kSegmentBytes;
    f.segments += segments;
    f.index_mapped_bytes += 2 * BrokerFootprint::kIndexBytes;  // the active segment's offset and time index
    f.producer_state_entries += r.producers.producers();
    f.heap_bytes += r.state().replicas.size() > 1 ? BrokerFootprint::kHeapPerReplicaBytes
                                                 : BrokerFootprint::kHeapPerReplicaAloneBytes;
  }
  f.heap_bytes += BrokerFootprint::kHeapBaseBytes;
  f.segment_files = f.segments;
  f.memory_maps = 2 * f.segments;
  for (const auto& fetcher : fetchers_) f.fetcher_partitions += fetcher->partitions.size();
  return f;
}

}  // namespace ksim::models
