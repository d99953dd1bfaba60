#pragma once
// The metadata log's records (__cluster_metadata, KIP-631) as a controller
// quorum writes them, and the metadata image replaying them gives
// (MetadataImage). The active controller generates records for every change
// it decides, appends them to the Raft log, and acts on them outside (pushes
// them to brokers, answers requests) only once they are committed; every
// controller replays the committed records into its image, so a standby that
// takes over starts from exactly what was committed (QuorumController: a
// ControllerWriteEvent's records, replayed by QuorumMetaLogListener.handleCommit).
//
// Simplified: a partition's record carries its whole new state (Kafka's
// PartitionChangeRecord carries only what changed), and a broker's record its
// whole registration (Kafka has RegisterBrokerRecord, FenceBrokerRecord,
// UnfenceBrokerRecord and BrokerRegistrationChangeRecord). Topics exist from
// the start: they are the bootstrap image (as if created when the cluster was
// formatted), not TopicRecords.
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "models/protocol/kafka_messages.hpp"
#include "models/raft/raft_record.hpp"

namespace ksim::models {

// What the metadata log says of a broker (BrokerRegistration).
struct BrokerRegistration {
  bool fenced = true;
  bool ever_registered = false;
  std::uint32_t incarnation = 0;  // its process, as Kafka's broker epoch tells one from the next
  bool shutting_down = false;     // inControlledShutdown
  std::set<std::int32_t> offline_dirs;  // KIP-858: its failed log dirs (by index), as its heartbeats report them
  friend bool operator==(const BrokerRegistration&, const BrokerRegistration&) = default;
};

class MetadataRecord : public RaftRecord {
 public:
  enum class Kind : std::uint8_t { PartitionChange, BrokerRegistrationChange };
  virtual Kind kind() const = 0;
};

// A partition's new state (PartitionRecord, PartitionChangeRecord).
class PartitionChangeRecord final : public MetadataRecord {
 public:
  explicit PartitionChangeRecord(PartitionState s) : state(std::move(s)) {}
  Kind kind() const override { return Kind::PartitionChange; }
  std::uint64_t size_bytes() const override;
  PartitionState state;
};

// A broker's new registration (RegisterBrokerRecord, FenceBrokerRecord, UnfenceBrokerRecord,
// BrokerRegistrationChangeRecord).
class BrokerRegistrationRecord final : public MetadataRecord {
 public:
  BrokerRegistrationRecord(BrokerId b, BrokerRegistration r) : broker(b), registration(std::move(r)) {}
  Kind kind() const override { return Kind::BrokerRegistrationChange; }
  std::uint64_t size_bytes() const override { return 40 + 16 * registration.offline_dirs.size(); }
  BrokerId broker;
  BrokerRegistration registration;
};

// What replaying the committed metadata log gives (MetadataImage): every
// partition's state and every broker's registration, as of `end_offset`.
struct MetadataImage {
  std::map<TopicPartition, PartitionState> partitions;
  std::vector<BrokerRegistration> brokers;  // by broker id
  // By broker id: the end offset of the record that registered its current
  // process (BrokerRegistrationReply.epoch's offset; -1: none). A broker is
  // unfenced only once it reports metadata up to here (KIP-631).
  std::vector<Offset> registered_at;
  Offset end_offset = 0;  // the log's offsets below this are replayed

  // Applies one record (Raft's control records change nothing).
  void replay(const RaftRecord& record);
};

// A broker's replica of the metadata log (an observer, KIP-631). Kafka's node
// ids are unique across brokers and controllers; ksim numbers the controllers
// 0 to n-1 in the quorum, so a broker's replica takes 1000 + its broker id.
constexpr RaftNodeId broker_replica_id(BrokerId broker) { return 1000 + broker; }

// The unfenced brokers of `registrations` (BrokerRegistrations, by broker id).
template <class Registration>
std::vector<BrokerId> unfenced_brokers(const std::vector<Registration>& registrations) {
  std::vector<BrokerId> live;
  for (std::size_t b = 0; b < registrations.size(); ++b) {
    if (!registrations[b].fenced) live.push_back(static_cast<BrokerId>(b));
  }
  return live;
}

// The unfenced brokers of `registrations` in controlled shutdown.
template <class Registration>
std::vector<BrokerId> brokers_shutting_down(const std::vector<Registration>& registrations) {
  std::vector<BrokerId> leaving;
  for (std::size_t b = 0; b < registrations.size(); ++b) {
    if (!registrations[b].fenced && registrations[b].shutting_down) leaving.push_back(static_cast<BrokerId>(b));
  }
  return leaving;
}

}  // namespace ksim::models
