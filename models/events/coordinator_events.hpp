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

// A new coordinator found a transaction half-way through its markers and finishes it.
struct TxnResumed {
  std::string_view transactional_id;
  std::string_view state;
  std::string_view kind() const { return "txn.resume"; }
  template <class Write> void trace(Write&& write) const {
    write({{"transactional_id", transactional_id}, {"state", state}});
  }
};

}  // namespace ksim::models
