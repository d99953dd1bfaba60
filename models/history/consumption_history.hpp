#pragma once
// What the consumers and the group coordinators did, recorded as it happens
// for the checker and the report: every record processed, every offset
// commit, every change in who owns a partition, consumer restarts and
// evictions, and every rebalance with its trigger and cost. Recording never
// changes what the models do.
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "models/protocol/kafka_types.hpp"
#include "sim/events/time.hpp"

namespace ksim::models {

// Records as the application processed them: `count` consecutive offsets
// of one partition from `offset`, written by one producer with consecutive
// record numbers from `record` (a run, so a busy consumer costs one entry
// per batch, not per record).
struct ProcessedRecord {
  std::uint32_t consumer = 0;
  TopicPartition partition;
  Offset offset = 0;
  std::uint32_t writer = 0;
  std::uint64_t record = 0;
  std::uint32_t count = 1;
  SimTime at = 0;  // when the run's first record was processed
  std::int32_t generation = -1;  // the consumer's group generation then (-1: none)
  std::uint32_t incarnation = 0; // the consumer process (restarts count up)
};

struct CommitEvent {
  std::uint32_t consumer = 0;
  TopicPartition partition;
  Offset offset = 0;
  std::int32_t generation = -1;
  SimTime at = 0;
  Error error = Error::None;
};

// A consumer starts or stops owning a partition (assigned, revoked or lost).
struct OwnershipEvent {
  std::uint32_t consumer = 0;
  TopicPartition partition;
  bool owned = false;
  SimTime at = 0;
};

// Why a consumer applied auto.offset.reset to a partition (Kafka's
// SubscriptionState: NoOffsetForPartition, OffsetOutOfRange, an unknown epoch on KIP-320 validation).
enum class PositionResetCause { NoCommittedOffset, OffsetOutOfRange, UnknownLeaderEpoch };
std::string_view to_string(PositionResetCause cause);

// A consumer's position of a partition set by auto.offset.reset: records
// between where it would have read and `offset` are skipped with latest.
struct PositionResetRecord {
  std::uint32_t consumer = 0;
  TopicPartition partition;
  Offset offset = 0;       // the position it was reset to
  bool latest = false;     // auto.offset.reset=latest (else earliest)
  PositionResetCause cause = PositionResetCause::NoCommittedOffset;
  std::int32_t generation = -1;
  SimTime at = 0;
};

// RebalanceJoined and AssignmentSettled bound a member's own part in a
// rebalance: classic, from its JoinGroup to its new assignment in place
// (after SyncGroup, in poll()); KIP-848, from its join or a new target to
// its acknowledgement of the reconciled assignment. Stopped: a fatal error
// made the application's poll() throw (GROUP_MAX_SIZE_REACHED,
// FENCED_INSTANCE_ID, ...); the process consumes no more until a restart.
enum class ConsumerEventKind { Crashed, Restarted, PollTimeout, LeftGroup, Fenced, RebalanceJoined, AssignmentSettled, Stopped };
std::string_view to_string(ConsumerEventKind kind);

struct ConsumerEvent {
  std::uint32_t consumer = 0;
  ConsumerEventKind kind = ConsumerEventKind::Crashed;
  SimTime at = 0;
  std::string reason;  // Stopped: the error and where it came ("JoinGroup: GROUP_MAX_SIZE_REACHED"); else empty
};

// A rebalance as the coordinator saw it: from the moment the group started
// preparing a rebalance to the moment its new generation was stable.
struct RebalanceRecord {
  std::string group;
  std::string trigger;
  SimTime started = 0;
  SimTime completed = kNever;  // kNever: not finished by the end of the run
  std::int32_t generation = -1;
  std::int32_t members = 0;
  std::int32_t partitions_moved = 0;
  std::string protocol;
};

// A broker became a group's coordinator by loading it from __consumer_offsets.
struct CoordinatorLoad {
  std::string group;
  BrokerId broker = kNoBroker;
  std::int32_t generation = 0;
  SimTime at = 0;
  std::int64_t records = 0;  // of __consumer_offsets the load replayed (its partition's: a compacted log holds fewer)
};

// A group's committed offset of a partition expired (offsets.retention.minutes):
// the coordinator removed it and wrote its tombstone. `deleted` (no
// partition, offset -1): the group itself was deleted, Empty with no offset
// left (its metadata's tombstone).
struct OffsetExpiry {
  std::string group;
  TopicPartition partition;
  Offset offset = -1;
  SimTime committed_at = 0;
  SimTime at = 0;
  bool deleted = false;
};

// Why the group coordinator fenced a member: a ConsumerGroupHeartbeat
// answered FENCED_MEMBER_EPOCH (KIP-848's GroupMetadataManager.
// throwIfConsumerGroupMemberEpochIsInvalid: the member stays, it must give
// its partitions up and join again with epoch 0), or a member removed at its
// rebalance timeout (KIP-848: it did not revoke within max.poll.interval.ms,
// scheduleConsumerGroupRebalanceTimeout; classic: it did not rejoin) or at
// its session timeout (consumerGroupFenceMember, classic's onExpireHeartbeat).
enum class FencingCause { MemberEpoch, RebalanceTimeout, SessionTimeout };
std::string_view to_string(FencingCause cause);

struct MemberFencing {
  std::string group;
  std::string member_id;
  FencingCause cause = FencingCause::MemberEpoch;
  std::int32_t member_epoch = 0;  // the member's epoch (classic: the generation) at the coordinator then
  SimTime at = 0;
};

struct ConsumptionHistory {
  std::deque<ProcessedRecord> processed;  // a deque: it grows with every batch (delivery_history.hpp)
  std::vector<CommitEvent> commits;
  std::vector<OwnershipEvent> ownership;
  std::vector<ConsumerEvent> consumer_events;
  std::vector<RebalanceRecord> rebalances;
  std::vector<CoordinatorLoad> coordinator_loads;
  std::vector<MemberFencing> member_fencings;  // in time order
  std::vector<PositionResetRecord> position_resets;
  std::vector<OffsetExpiry> offset_expirations;

  // The coordinator's view: one rebalance is open per group at a time, even
  // across a coordinator failover (the new coordinator finishes it).
  void rebalance_started(const std::string& group, const std::string& trigger, SimTime at);
  void rebalance_completed(const std::string& group, std::int32_t generation, std::int32_t members,
                           std::int32_t partitions_moved, const std::string& protocol, SimTime at);
};

}  // namespace ksim::models
