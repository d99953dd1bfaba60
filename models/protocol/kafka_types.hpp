#pragma once
// Kafka's basic vocabulary, shared by brokers, the controller, clients and
// the checker: partitions, offsets, epochs, producer ids, error codes and the
// record batch.
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/events/time.hpp"

namespace ksim::models {

using Offset = std::int64_t;
using Epoch = std::int32_t;        // leader epoch (KIP-101) or partition epoch
using BrokerId = std::int32_t;
using ProducerId = std::int64_t;
using ProducerEpoch = std::int16_t;
inline constexpr int kMaxProducerEpoch = 32767;  // Short.MaxValue

constexpr ProducerId kNoProducerId = -1;
constexpr BrokerId kNoBroker = -1;

// Topics are numbered in scenario order; partition numbers are Kafka's.
struct TopicPartition {
  std::int32_t topic = 0;
  std::int32_t partition = 0;
  friend auto operator<=>(const TopicPartition&, const TopicPartition&) = default;
};

// The error codes of Kafka's protocol that ksim models.
enum class Error {
  None,
  NotLeaderOrFollower,
  NotEnoughReplicas,             // ISR smaller than min.insync.replicas, checked before append
  NotEnoughReplicasAfterAppend,  // ISR shrank below min.insync.replicas while waiting
  RequestTimedOut,               // acks=all purgatory expired (request.timeout.ms)
  OutOfOrderSequenceNumber,      // KIP-98: a gap in an idempotent producer's sequence
  DuplicateSequenceNumber,       // KIP-98: a retry of a batch already written (treated as success)
  InvalidProducerEpoch,          // a fenced (older) producer epoch
  KafkaStorageError,             // the log dir is offline (KIP-112)
  UnknownTopicOrPartition,
  OffsetOutOfRange,              // a consumer fetched past the log's end (auto.offset.reset applies)
  OffsetMovedToTieredStorage,    // KIP-405: a follower fetched below the leader's local log start
  OffsetNotAvailable,            // ListOffsets latest while a new leader's HW is below its epoch's start
  NetworkException,              // client side: the connection closed with the request in flight
  DeliveryTimeout,               // client side: delivery.timeout.ms elapsed
  BufferExhausted,               // client side: send() blocked longer than max.block.ms
  // consumer groups (the classic protocol) and KIP-320
  NotCoordinator,                // this broker does not lead the group's __consumer_offsets partition
  CoordinatorNotAvailable,       // no coordinator yet, or its write could not be replicated
  CoordinatorLoadInProgress,     // the coordinator is still loading the group from its partition
  IllegalGeneration,             // a request from an older generation of the group
  UnknownMemberId,               // the member was removed from the group (or never was in it)
  RebalanceInProgress,           // the group is rebalancing: rejoin
  MemberIdRequired,              // KIP-394: join again with the member id in the response
  FencedInstanceId,              // KIP-345: another member took this group.instance.id
  InvalidSessionTimeout,         // session.timeout.ms outside group.min/max.session.timeout.ms
  FencedLeaderEpoch,             // KIP-320: the client's leader epoch is older than the leader's
  UnknownLeaderEpoch,            // KIP-320: the client's leader epoch is newer than the broker's
  // transactions (KIP-98, KIP-890)
  ConcurrentTransactions,        // the previous transaction of this transactional.id is still completing
  ProducerFenced,                // a newer producer epoch took this transactional.id (zombie fencing)
  InvalidTxnState,               // the request does not fit the transaction's state (KIP-890: not in the transaction)
  InvalidProducerIdMapping,      // the transactional.id is not mapped to this producer id
  TransactionAborted,            // client side: the record's transaction was aborted
  UnstableOffsetCommit,          // KIP-447: a transactional offset commit for the partition is pending
  // AlterPartition (KIP-497, KIP-841)
  InvalidUpdateVersion,          // the proposal's partition epoch is not the controller's
  IneligibleReplica,             // KIP-841: the proposed ISR adds a fenced or shutting-down broker
  // the KRaft controller quorum
  NotController,                 // this controller is not the active one (not the Raft leader)
  BrokerNotAvailable,            // ZooKeeper mode's ControlledShutdown from a broker the controller does not know live
  // KIP-848's consumer group protocol
  FencedMemberEpoch,             // the member's epoch is not the coordinator's: it must rejoin with epoch 0
  StaleMemberEpoch,              // an offset commit with an older member epoch than the member's (retriable)
  UnreleasedInstanceId,          // a static member's group.instance.id is still held by a live member
  UnsupportedAssignor,           // group.remote.assignor names no assignor of group.consumer.assignors
  // KIP-932's share groups
  InvalidRecordState,            // an acknowledgement of a record the member does not hold (its lock expired)
  // KIP-455's partition reassignment
  InvalidReplicaAssignment,      // an empty or duplicated replica list, an unregistered broker, or an unclean revert
  // CreateTopics (ReplicationControlManager.createTopic)
  TopicAlreadyExists,            // a topic of that name exists
  InvalidReplicationFactor,      // fewer registered brokers than the replication factor, or none active
  TopicNotInMetadata,            // client side: send() waited max.block.ms for a topic its metadata lacks
  NoReassignmentInProgress,      // a cancellation of a partition that is not being reassigned
  // KIP-113's alterReplicaLogDirs
  LogDirNotFound,                // the broker has no log dir at that path
  ReplicaNotAvailable,           // the broker hosts no replica of the partition (yet)
  // KIP-848's online migration between the group protocols
  GroupIdNotFound,               // a ConsumerGroupHeartbeat to a group that is not (and may not become) a consumer group
  InconsistentGroupProtocol,     // a JoinGroup whose protocols the group's classic members do not all support
  // KIP-389 (classic, group.max.size) and KIP-848 (group.consumer.max.size)
  GroupMaxSizeReached,           // a new member's join to a group at its maximum size (fatal for the client)
  StaleBrokerEpoch,              // KIP-858: an AssignReplicasToDirs from a broker's previous process
};
std::string_view to_string(Error error);
bool is_retriable(Error error);

// A transaction marker (KIP-98): a control batch ending a producer's transaction on a partition.
enum class ControlType : std::uint8_t { None, Commit, Abort };

// KIP-101 / KIP-279: the answer to "where does epoch E end in your log?".
struct EpochEndOffset {
  Epoch epoch;       // the largest epoch in the cache that is <= the one asked about
  Offset end_offset; // the start offset of the next larger epoch, or the LEO for the latest epoch
};

// A batch of records, as stored in a log. One batch stands for many records:
// the workload ids it carries are (writer, partition, first_record + i).
struct RecordBatch {
  Offset base_offset = 0;  // assigned by the leader
  std::int32_t record_count = 0;
  // Where this batch's records start in the batch as written: 0, or the first
  // record of a run of it the log cleaner kept (log_cleaner.cpp).
  std::int32_t run_start = 0;
  std::uint64_t bytes = 0;
  ProducerId producer_id = kNoProducerId;
  ProducerEpoch producer_epoch = -1;
  bool transactional = false;              // written inside a transaction
  ControlType control = ControlType::None; // a marker: one control record, no workload records
  std::int32_t base_sequence = -1;  // -1 without idempotence
  Epoch leader_epoch = 0;           // stamped by the leader that appended it
  std::uint32_t writer = 0;         // the workload producer that created the records
  std::uint64_t first_record = 0;   // that producer's per-partition number of the first record
  SimTime create_time = 0;          // when the producer closed the batch

  bool is_control() const { return control != ControlType::None; }
  Offset last_offset() const { return base_offset + record_count - 1; }
  Offset next_offset() const { return base_offset + record_count; }
};
static_assert(sizeof(RecordBatch) == 64, "a batch is held by every replica's log: keep it to a cache line");

}  // namespace ksim::models
