#pragma once
// The consumer group requests of Kafka's classic protocol (FindCoordinator,
// JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch)
// and KIP-320's OffsetsForLeaderEpoch, with approximate sizes on the wire.
#include <optional>
#include <string>
#include <vector>

#include "models/protocol/group_types.hpp"
#include "models/protocol/kafka_messages.hpp"

namespace ksim::models {

struct GroupRequestBase {
  std::int64_t correlation_id = 0;
  std::string group;
};

// `group` is the key: a group.id, or a transactional.id when `transaction`.
struct FindCoordinatorRequest final : KafkaRequest<FindCoordinatorRequest, ApiKey::FindCoordinator>, GroupRequestBase {
  static constexpr std::string_view kName = "FindCoordinator";
  bool transaction = false;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + group.size(); }
};

struct FindCoordinatorResponse final : KafkaResponse<FindCoordinatorResponse, ApiKey::FindCoordinator> {
  static constexpr std::string_view kName = "FindCoordinatorResponse";
  std::int64_t correlation_id = 0;
  Error error = Error::None;
  BrokerId coordinator = kNoBroker;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 16; }
};

// The member's identity in a group, carried by every group request.
struct MemberIdentity {
  std::int32_t generation = -1;
  std::string member_id;                   // empty: not a member yet
  std::optional<std::string> instance_id;  // group.instance.id (KIP-345)
};

struct JoinGroupRequest final : KafkaRequest<JoinGroupRequest, ApiKey::JoinGroup>, GroupRequestBase {
  static constexpr std::string_view kName = "JoinGroup";
  MemberIdentity member;
  std::string client_id;
  SimTime session_timeout = 0;    // session.timeout.ms
  SimTime rebalance_timeout = 0;  // max.poll.interval.ms
  std::vector<std::string> protocols;  // partition.assignment.strategy
  MemberSubscription subscription;
  std::string reason;  // KIP-800
  // ConsumerProtocolSubscription.ownedPartitions: what the member holds as it
  // joins (nothing for an eager member, which revoked everything first), where
  // `subscription.owned` is also the eager sticky assignor's userData. A
  // consumer group (KIP-848's online migration) reconciles a classic member with it.
  std::vector<TopicPartition> owned_partitions;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 64 + 8 * subscription.owned.size(); }
};

struct JoinGroupResponse final : KafkaResponse<JoinGroupResponse, ApiKey::JoinGroup> {
  static constexpr std::string_view kName = "JoinGroupResponse";
  std::int64_t correlation_id = 0;
  Error error = Error::None;
  std::int32_t generation = -1;
  std::string protocol;
  std::string leader;
  std::string member_id;
  std::vector<MemberSubscription> members;  // for the leader only
  bool skip_assignment = false;  // KIP-814: a static leader rejoined; keep the current assignment
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 64 + 64 * members.size(); }
};

struct SyncGroupRequest final : KafkaRequest<SyncGroupRequest, ApiKey::SyncGroup>, GroupRequestBase {
  static constexpr std::string_view kName = "SyncGroup";
  MemberIdentity member;
  Assignment assignment;  // from the leader only
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 64 + 48 * assignment.size(); }
};

struct SyncGroupResponse final : KafkaResponse<SyncGroupResponse, ApiKey::SyncGroup> {
  static constexpr std::string_view kName = "SyncGroupResponse";
  std::int64_t correlation_id = 0;
  Error error = Error::None;
  std::vector<TopicPartition> assignment;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 8 * assignment.size(); }
};

struct HeartbeatRequest final : KafkaRequest<HeartbeatRequest, ApiKey::Heartbeat>, GroupRequestBase {
  static constexpr std::string_view kName = "Heartbeat";
  MemberIdentity member;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 48; }
};

struct HeartbeatResponse final : KafkaResponse<HeartbeatResponse, ApiKey::Heartbeat> {
  static constexpr std::string_view kName = "HeartbeatResponse";
  std::int64_t correlation_id = 0;
  Error error = Error::None;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes; }
};

struct LeaveGroupRequest final : KafkaRequest<LeaveGroupRequest, ApiKey::LeaveGroup>, GroupRequestBase {
  static constexpr std::string_view kName = "LeaveGroup";
  MemberIdentity member;
  std::string reason;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 48; }
};

struct LeaveGroupResponse final : KafkaResponse<LeaveGroupResponse, ApiKey::LeaveGroup> {
  static constexpr std::string_view kName = "LeaveGroupResponse";
  std::int64_t correlation_id = 0;
  Error error = Error::None;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes; }
};

struct OffsetCommitRequest final : KafkaRequest<OffsetCommitRequest, ApiKey::OffsetCommit>, GroupRequestBase {
  static constexpr std::string_view kName = "OffsetCommit";
  MemberIdentity member;  // generation -1 and no member id: a commit outside group membership
  std::vector<CommittedOffset> offsets;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 48 + 24 * offsets.size(); }
};

// A partition of a commit refused on its own: KIP-1251 (4.3) validates each
// partition's assignment epoch and writes the others of the request
// (ConsumerGroup.validateOffsetCommit's CommitPartitionValidator).
struct RefusedOffset {
  TopicPartition partition;
  Error error = Error::None;
};

struct OffsetCommitResponse final : KafkaResponse<OffsetCommitResponse, ApiKey::OffsetCommit> {
  static constexpr std::string_view kName = "OffsetCommitResponse";
  std::int64_t correlation_id = 0;
  Error error = Error::None;          // every partition's but the refused ones'
  std::vector<RefusedOffset> refused;  // KIP-1251: refused on their own, the others written
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 16 + 8 * refused.size(); }
  // The client reads the partitions in order and stops at the first error (CommitRequestManager).
  Error first_error() const { return refused.empty() ? error : refused.front().error; }
};

// sendOffsetsToTransaction(), second step, to the group coordinator: offsets
// that take effect only if the transaction commits. KIP-447: with the
// consumer's generation and member id, so a zombie member is fenced.
struct TxnOffsetCommitRequest final : KafkaRequest<TxnOffsetCommitRequest, ApiKey::TxnOffsetCommit>, GroupRequestBase {
  static constexpr std::string_view kName = "TxnOffsetCommit";
  std::string transactional_id;
  ProducerId producer_id = kNoProducerId;
  ProducerEpoch producer_epoch = -1;
  MemberIdentity member;
  std::vector<CommittedOffset> offsets;
  bool transaction_v2 = false;  // KIP-890 part 2 (v5+): no AddOffsetsToTxn before it; the broker adds the partition
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 64 + 24 * offsets.size(); }
};

struct TxnOffsetCommitResponse final : KafkaResponse<TxnOffsetCommitResponse, ApiKey::TxnOffsetCommit> {
  static constexpr std::string_view kName = "TxnOffsetCommitResponse";
  std::int64_t correlation_id = 0;
  Error error = Error::None;           // every partition's but the refused ones'
  std::vector<RefusedOffset> refused;  // KIP-1251: refused on their own, the others written
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 16 + 8 * refused.size(); }
  // The client reads the partitions in order and stops at the first error (TxnOffsetCommitHandler).
  Error first_error() const { return refused.empty() ? error : refused.front().error; }
};

struct OffsetFetchRequest final : KafkaRequest<OffsetFetchRequest, ApiKey::OffsetFetch>, GroupRequestBase {
  static constexpr std::string_view kName = "OffsetFetch";
  std::vector<TopicPartition> partitions;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 8 * partitions.size(); }
};

struct OffsetFetchResponse final : KafkaResponse<OffsetFetchResponse, ApiKey::OffsetFetch> {
  static constexpr std::string_view kName = "OffsetFetchResponse";
  std::int64_t correlation_id = 0;
  Error error = Error::None;
  std::vector<CommittedOffset> offsets;  // offset -1: nothing committed
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 24 * offsets.size(); }
};

// KIP-320: a consumer checks, after a leader change, that its position is
// still on the leader's log: where does the epoch of its last record end there?
struct OffsetsForLeaderEpochRequest final : KafkaRequest<OffsetsForLeaderEpochRequest, ApiKey::OffsetForLeaderEpoch> {
  static constexpr std::string_view kName = "OffsetsForLeaderEpoch";
  struct PartitionData {
    TopicPartition partition;
    Epoch current_leader_epoch = 0;
    Epoch leader_epoch = 0;  // the epoch of the consumer's last record
  };
  std::int64_t correlation_id = 0;
  std::vector<PartitionData> partitions;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 16 * partitions.size(); }
};

struct OffsetsForLeaderEpochResponse final
    : KafkaResponse<OffsetsForLeaderEpochResponse, ApiKey::OffsetForLeaderEpoch> {
  static constexpr std::string_view kName = "OffsetsForLeaderEpochResponse";
  struct PartitionData {
    TopicPartition partition;
    Error error = Error::None;
    Epoch leader_epoch = -1;
    Offset end_offset = -1;
  };
  std::int64_t correlation_id = 0;
  std::vector<PartitionData> partitions;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 24 * partitions.size(); }
};

}  // namespace ksim::models
