#include "models/controller/metadata_records.hpp"

namespace ksim::models {

// The partition, its epochs and leader, and a broker id per replica, ISR and ELR member.
std::uint64_t PartitionChangeRecord::size_bytes() const {
  return 32 + 4 * (state.replicas.size() + state.isr.size() + state.elr.size() + state.last_known_elr.size() +
              state.adding.size() + state.removing.size()) +
         16 * state.directories.size();  // KIP-858: a Uuid per replica
}

void MetadataImage::replay(const RaftRecord& record) {
  if (record.is_control()) return;
  const auto& m = static_cast<const MetadataRecord&>(record);
  switch (m.kind()) {
    case MetadataRecord::Kind::PartitionChange: {
      const PartitionState& state = static_cast<const PartitionChangeRecord&>(m).state;
      partitions[state.partition] = state;
      return;
    }
    case MetadataRecord::Kind::BrokerRegistrationChange: {
      const auto& r = static_cast<const BrokerRegistrationRecord&>(m);
      brokers.at(static_cast<std::size_t>(r.broker)) = r.registration;
      return;
    }
  }
}

}  // namespace ksim::models
