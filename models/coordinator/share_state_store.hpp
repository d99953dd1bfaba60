#pragma once
// The share-partitions' persisted state (KIP-932's __share_group_state, which
// Kafka's share coordinator keeps with ShareSnapshot and ShareUpdate records):
// for each (group, topic-partition), the share-partition start offset and the
// state batches beyond it: AVAILABLE records with their delivery counts,
// ACKNOWLEDGED and ARCHIVED ones. A share-partition leader writes after every
// change and a new leader reads it back (SharePartition.maybeInitialize).
//
// Simplification: the store is one object shared by the brokers (durable, as
// a replicated internal topic would be) and a write takes effect at once; no
// share coordinator node, no records on __share_group_state's log, no write
// latency and no write failures (docs/kafka-model.md, "Share groups").
#include <map>
#include <string>
#include <utility>

#include "models/protocol/kafka_types.hpp"

namespace ksim::models {

// SharePartition.RecordState (the persisted ids: AVAILABLE 0, ACQUIRED 1, ACKNOWLEDGED 2, ARCHIVED 4).
enum class ShareRecordState : std::uint8_t { Available = 0, Acquired = 1, Acknowledged = 2, Archived = 4 };
std::string_view to_string(ShareRecordState state);
// RecordState.validateTransition: AVAILABLE -> ACQUIRED; ACQUIRED -> AVAILABLE,
// ACKNOWLEDGED or ARCHIVED; nothing leaves ACKNOWLEDGED or ARCHIVED.
bool legal(ShareRecordState from, ShareRecordState to);

struct PersistedShareRecord {
  ShareRecordState state = ShareRecordState::Available;  // never Acquired: a lock is not persisted
  std::int16_t delivery_count = 0;
};

struct PersistedSharePartition {
  Offset start_offset = -1;  // -1: never initialised (share.auto.offset.reset applies)
  std::map<Offset, PersistedShareRecord> records;  // in-flight records from start_offset
};

class ShareStateStore {
 public:
  using Key = std::pair<std::string, TopicPartition>;  // group, partition
  const PersistedSharePartition* read(const Key& key) const {
    const auto it = partitions_.find(key);
    return it == partitions_.end() ? nullptr : &it->second;
  }
  void write(const Key& key, PersistedSharePartition state) {
    partitions_[key] = std::move(state);
    ++writes_;
  }
  std::uint64_t writes() const { return writes_; }
  const std::map<Key, PersistedSharePartition>& partitions() const { return partitions_; }

 private:
  std::map<Key, PersistedSharePartition> partitions_;
  std::uint64_t writes_ = 0;
};

}  // namespace ksim::models
