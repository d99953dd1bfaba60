// KIP-631: with a controller quorum, each broker replicates the metadata log
// as an observer of the quorum, from the bootstrap metadata, and the quorum's
// report hears when each broker applied each batch (its metadata lag).
#include "app/harness/cluster.hpp"

namespace ksim::app {

void Cluster::host_metadata_logs() {
  const KafkaSpec& kafka = *scenario_.kafka;
  const auto bootstrap = std::make_shared<const models::MetadataImage>(controllers_.front()->bootstrap());
  for (models::Broker* b : brokers_) b->host_metadata_log(kafka.quorum, bootstrap);
  events_->subscribe([q = quorum_.get()](SimTime now, const Node&, const models::ModelEvent& event) {
    if (const auto* applied = std::get_if<models::MetadataApplied>(&event)) q->metadata_applied(now, *applied);
  });
}

}  // namespace ksim::app
