#pragma once
// What the group coordinator (Kafka's classic GroupCoordinator) and the
// transaction coordinator (TransactionCoordinator, KIP-98) do: members
// joining and leaving, rebalances, loading a partition of
// __consumer_offsets, and the life of each transaction.
#include <cstdint>
#include <string_view>

#include "models/protocol/kafka_types.hpp"
#include "sim/observe/trace.hpp"

namespace ksim::models {

struct MemberAdded {
  std::string_view group;
  std::string_view member;
  std::string_view kind() const { return "group.member_added"; }
  template <class Write> void trace(Write&& write) const { write({{"group", group}, {"member", member}}); }
};

// KIP-345: a static member's group.instance.id came back with a new member id.
struct StaticMemberReplaced {
  std::string_view group;
  std::string_view instance;
  std::string_view kind() const { return "group.static_member_replaced"; }
  template <class Write> void trace(Write&& write) const { write({{"group", group}, {"instance", instance}}); }
};

struct RebalancePrepared {
  std::string_view group;
  std::string_view reason;
  std::string_view kind() const { return "group.prepare_rebalance"; }
  template <class Write> void trace(Write&& write) const { write({{"group", group}, {"reason", reason}}); }
};

struct MemberRemoved {
  std::string_view group;
  std::string_view member;
  std::string_view reason;
  std::string_view kind() const { return "group.member_removed"; }
  template <class Write> void trace(Write&& write) const {
    write({{"group", group}, {"member", member}, {"reason", reason}});
  }
};

// Every member rejoined (or timed out): the join phase ends with a new generation.
struct JoinCompleted {
  std::string_view group;
  std::int32_t generation;
  std::size_t members;
  std::string_view protocol;
  std::string_view kind() const { return "group.join_complete"; }
  template <class Write> void trace(Write&& write) const {
    write({{"group", group}, {"generation", generation}, {"members", members}, {"protocol", protocol}});
  }
};

// The rebalance is over: the group is Stable with its new assignment; `moved` partitions changed owner.
struct Rebalanced {
  std::string_view group;
  std::int32_t generation;
  std::int64_t moved;
  std::string_view kind() const { return "group.stable"; }
  template <class Write> void trace(Write&& write) const {
    write({{"group", group}, {"generation", generation}, {"moved", moved}});
  }
};

// KIP-848: the coordinator moved a member towards its target assignment
// (CurrentAssignmentBuilder): it must now revoke `revoking` partitions
// (UNREVOKED_PARTITIONS), or it took `acquired` new ones, maybe still waiting
// for others their owners have not released (UNRELEASED_PARTITIONS). Not
// traced (traces stay as they were): ksim explore's coverage counts it.
struct MemberReconciled {
  std::string_view group;
  std::string_view client;  // the member's client.id: its consumer's node name
  std::string_view state;   // MemberAssignmentState
  std::int32_t member_epoch;
  std::size_t revoking;
  std::size_t acquired;
  bool traced() const { return false; }
  std::string_view kind() const { return "group.member_reconciled"; }
  template <class Write> void trace(Write&& write) const {
    write({{"group", group}, {"client", client}, {"state", state}, {"epoch", member_epoch}, {"revoking", revoking},
           {"acquired", acquired}});
  }
};

// KIP-848: a ConsumerGroupHeartbeat with an epoch the coordinator no longer
// accepts (FENCED_MEMBER_EPOCH): the member must rejoin. Not traced.
struct MemberEpochFenced {
  std::string_view group;
  std::string_view member;
  std::int32_t member_epoch;  // the heartbeat's
  bool traced() const { return false; }
  std::string_view kind() const { return "group.member_epoch_fenced"; }
  template <class Write> void trace(Write&& write) const {
    write({{"group", group}, {"member", member}, {"epoch", member_epoch}});
  }
};

// A new coordinator reads a partition of __consumer_offsets (GroupMetadataManager.loadGroupsAndOffsets).
struct GroupLoadStarted {
  std::int32_t partition;
  std::int64_t records;
  std::string_view kind() const { return "group.load_start"; }
  template <class Write> void trace(Write&& write) const { write({{"partition", partition}, {"records", records}}); }
};

struct GroupLoaded {
  std::string_view group;
  std::int32_t generation;
  std::string_view state;
  std::string_view kind() const { return "group.loaded"; }
  template <class Write> void trace(Write&& write) const {
    write({{"group", group}, {"generation", generation}, {"state", state}});
  }
};

// offsets.retention.minutes: a group's committed offsets expired, and the
// group was deleted with them when Empty (GroupCoordinatorShard.cleanupGroupMetadata).
struct OffsetsExpired {
  std::string_view group;
  std::int64_t partitions;
  bool group_deleted;
  std::string_view kind() const { return "group.offsets_expired"; }
  template <class Write> void trace(Write&& write) const {
    write({{"group", group}, {"partitions", partitions}, {"group_deleted", group_deleted}});
  }
};

struct GroupUnloaded {
  std::string_view group;
  std::string_view kind() const { return "group.unloaded"; }
  template <class Write> void trace(Write&& write) const { write({{"group", group}}); }
};

// InitProducerId found the transactional.id's transaction still open: it is aborted with a bumped epoch.
struct TxnFenced {
  std::string_view transactional_id;
  std::int64_t epoch;
  std::string_view kind() const { return "txn.fence"; }
  template <class Write> void trace(Write&& write) const {
    write({{"transactional_id", transactional_id}, {"epoch", epoch}});
  }
};

// PrepareCommit or PrepareAbort is written to __transaction_state: the markers go out next.
struct TxnPrepared {
  std::string_view transactional_id;
  std::string_view state;
  std::size_t partitions;
  std::string_view kind() const { return "txn.prepared"; }
  template <class Write> void trace(Write&& write) const {
    write({{"transactional_id", transactional_id}, {"state", state}, {"partitions", partitions}});
  }
};

// Why a transaction's producer epoch went up (TransactionMetadata).
enum class EpochBump : std::uint8_t {
  EndTxn,     // transactions v2 (KIP-890 part 2): every commit or abort bumps it
  Fence,      // a new instance or the transaction timeout fences the producer (prepareFenceProducerEpoch)
  Exhausted,  // v2: the epoch reached Short.MaxValue - 1: a new producer id follows at epoch 0
};
std::string_view to_string(EpochBump why);

// PrepareCommit or PrepareAbort with a new epoch is written. Not traced
// (TxnPrepared and TxnFenced are): ksim explore's coverage counts it.
struct TxnEpochBumped {
  std::string_view transactional_id;
  std::int64_t epoch;
  EpochBump why;
  bool traced() const { return false; }
  std::string_view kind() const { return "txn.epoch_bump"; }
  template <class Write> void trace(Write&& write) const {
    write({{"transactional_id", transactional_id}, {"epoch", epoch}, {"why", to_string(why)}});
  }
};

// Every marker is written: CompleteCommit or CompleteAbort.
struct TxnCompleted {
  std::string_view transactional_id;
  std::string_view state;
  std::string_view kind() const { return "txn.complete"; }
  template <class Write> void trace(Write&& write) const {
    write({{"transactional_id", transactional_id}, {"state", state}});
  }
};

// transaction.timeout.ms passed: the coordinator aborts the transaction.
struct TxnTimedOut {
  std::string_view transactional_id;
  std::string_view kind() const { return "txn.timeout_abort"; }
  template <class Write> void trace(Write&& write) const { write({{"transactional_id", transactional_id}}); }
};

// transactional.id.expiration.ms: an idle transactional.id's tombstone is written (TransactionStateManager).
struct TxnIdExpired {
  std::string_view transactional_id;
  std::int64_t producer_id;
  std::string_view kind() const { return "txn.id_expired"; }
  template <class Write> void trace(Write&& write) const {
    write({{"transactional_id", transactional_id}, {"producer_id", producer_id}});
  }
};

// A transaction coordinator reads a partition of __transaction_state
// (TransactionStateManager.loadTransactionsForTxnTopicPartition): a new
// leader, or with KRaft the same leader at a higher epoch.
struct TxnLoadStarted {
  std::int32_t partition;
  std::int64_t records;
  std::string_view kind() const { return "txn.load_start"; }
  template <class Write> void trace(Write&& write) const { write({{"partition", partition}, {"records", records}}); }
};

// A new coordinator found a transaction half-way through its markers and finishes it.
struct TxnResumed {
  std::string_view transactional_id;
  std::string_view state;
  std::string_view kind() const { return "txn.resume"; }
  template <class Write> void trace(Write&& write) const {
    write({{"transactional_id", transactional_id}, {"state", state}});
  }
};

// KIP-848's online migration: the group changed protocol (convertToConsumerGroup,
// an upgrade; convertToClassicGroup, a downgrade) with `members` members.
struct GroupConverted {
  std::string_view group;
  std::string_view to;       // "consumer" or "classic"
  std::string_view trigger;  // who joined or left
  std::int64_t members;
  std::string_view kind() const { return "group.converted"; }
  template <class Write> void trace(Write&& write) const {
    write({{"group", group}, {"to", to}, {"trigger", trigger}, {"members", members}});
  }
};

}  // namespace ksim::models
