#pragma once
// What a group coordinator writes to __consumer_offsets: committed offsets
// (Kafka's OffsetCommitKey/OffsetCommitValue) and the group's metadata with
// its members and their assignment (GroupMetadataKey/GroupMetadataValue).
//
// A batch of that topic carries, in place of record bytes, the id of its
// content in the CoordinatorRecordStore. The store stands for the bytes of
// the batch: written once, never changed, so every replica that copies the
// batch reads the same content, and a new coordinator rebuilds the group from
// its own log, as Kafka's GroupMetadataManager.loadGroupsAndOffsets does.
// A KIP-848 consumer group is written whole (in place of Kafka's
// ConsumerGroupMetadata, ...MemberMetadata, ...PartitionMetadata,
// ...TargetAssignment* and ...CurrentMemberAssignment records).
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "models/coordinator/consumer_group_image.hpp"
#include "models/coordinator/txn_state.hpp"
#include "models/protocol/group_types.hpp"
#include "models/protocol/record_keys.hpp"

namespace ksim::models {

// The writer id of coordinator batches (user producers are numbered from 0).
constexpr std::uint32_t kCoordinatorWriter = 0xffffffffu;

struct GroupMemberRecord {
  std::string member_id;
  std::optional<std::string> instance_id;  // KIP-345
  std::string client_id;
  SimTime session_timeout = 0;
  SimTime rebalance_timeout = 0;
  std::vector<std::string> protocols;  // assignor names, in the member's order of preference
  MemberSubscription subscription;
  std::vector<TopicPartition> assignment;
};

struct GroupMetadataRecord {
  std::int32_t generation = 0;
  std::string protocol;  // the assignor the group uses
  std::string leader;
  std::vector<GroupMemberRecord> members;  // empty: the group is Empty
  SimTime current_state_timestamp = -1;    // GroupMetadataValue v2+ (2.1): since when the group is in its state
};

// Transaction metadata, as Kafka's TransactionLogValue: the state of a
// transactional.id's current transaction, written to __transaction_state.
struct TransactionRecord {
  ProducerId producer_id = kNoProducerId;
  ProducerEpoch producer_epoch = 0;
  SimTime timeout = 0;
  TxnState state = TxnState::Empty;
  std::vector<TopicPartition> partitions;
  SimTime started = 0;  // when the transaction became Ongoing
  SimTime updated = 0;  // txnLastUpdateTimestamp: when this state was written
  // TransactionMetadata.clientTransactionVersion: 2 when the producer runs
  // transactions v2 (KIP-890 part 2), whose every EndTxn bumps the epoch.
  bool transaction_v2 = false;
  // An epoch bump that exhausted the epochs (transactions v2): the producer id
  // the transaction continues with, at epoch 0, once complete (nextProducerId).
  ProducerId next_producer_id = kNoProducerId;
};

struct CoordinatorRecord {
  std::string group;                           // the key: a group.id, or a transactional.id
  std::vector<CommittedOffset> offsets;        // an offset commit
  std::optional<GroupMetadataRecord> metadata; // or the group's metadata
  std::optional<TransactionRecord> transaction;  // or a transaction's state
  std::shared_ptr<const ConsumerGroupImage> consumer_group;  // or a KIP-848 consumer group's state
  // With `consumer_group`: the members gone since the group's records last
  // named them, each written as its records' tombstones (GroupCoordinatorRecordHelpers:
  // ConsumerGroupMemberMetadata, CurrentMemberAssignment, TargetAssignmentMember).
  // With `metadata` and `consumer_group_tombstone`: the members of the consumer group it replaces.
  std::vector<std::string> departed_members;
  // A conversion between the group protocols writes the old group's tombstones
  // with the new group's records (GroupMetadataManager.convertToConsumerGroup,
  // convertToClassicGroup). With `consumer_group`: the classic group's
  // GroupMetadata key too, last (an upgrade). With `metadata`: the consumer
  // group's ConsumerGroupMetadata key, then `departed_members`' keys (a downgrade).
  bool classic_tombstone = false;
  bool consumer_group_tombstone = false;
  // A transactional offset commit (TxnOffsetCommit): written by this producer, in its transaction.
  ProducerId producer_id = kNoProducerId;
  ProducerEpoch producer_epoch = -1;
  SimTime written = 0;     // an offset commit's commitTimestamp
  // Null values: `offsets` lists the partitions whose committed offsets
  // expired, `metadata` or `consumer_group` (empty) stands for a deleted
  // group's key (GroupCoordinatorRecordHelpers' tombstones).
  bool tombstone = false;
  std::int32_t record_count() const {
    const auto departed = static_cast<std::int32_t>(departed_members.size());
    if (consumer_group) {
      return 1 + static_cast<std::int32_t>(consumer_group->members.size()) + departed + (classic_tombstone ? 1 : 0);
    }
    if (metadata) return 1 + (consumer_group_tombstone ? 1 + departed : 0);
    return transaction ? 1 : static_cast<std::int32_t>(offsets.size());
  }
  std::uint64_t bytes() const;
};

class CoordinatorRecordStore {
 public:
  std::uint64_t add(CoordinatorRecord record);
  const CoordinatorRecord& at(std::uint64_t id) const { return records_.at(static_cast<std::size_t>(id)); }
  std::size_t size() const { return records_.size(); }

  // The key of record `index` of the content `id`, as the log cleaner maps
  // keys (equal keys, equal numbers): Kafka's OffsetCommitKey (group, topic,
  // partition), GroupMetadataKey (group), ConsumerGroupMetadataKey (group: a
  // KIP-848 group's record 0) and ConsumerGroupMemberMetadataKey (group,
  // member: its records 1..n, by member id, then the departed members'
  // tombstones), TransactionLogKey (transactional id); a conversion's
  // tombstones of the other protocol's keys (`classic_tombstone`, `consumer_group_tombstone`).
  RecordKey key(std::uint64_t id, std::int32_t index);

 private:
  enum class KeyKind { Offset, GroupMetadata, ConsumerGroup, ConsumerGroupMember, Transaction };
  using Key = std::tuple<KeyKind, std::string, std::string, TopicPartition>;
  std::deque<CoordinatorRecord> records_;  // stable addresses
  std::map<Key, std::int64_t> keys_;       // numbered as the cleaners first ask
};

// The content of a batch of __consumer_offsets or __transaction_state written
// by a coordinator (batch.first_record, less the records the cleaner removed
// before it), and the range of the content's records the batch holds.
inline std::uint64_t coordinator_record_id(const RecordBatch& batch) {
  return batch.first_record - static_cast<std::uint64_t>(batch.run_start);
}

}  // namespace ksim::models
