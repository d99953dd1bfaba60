#pragma once
// One replica of a partition on a broker, with its leader-side state, as
// Kafka's Partition (core/src/main/scala/kafka/cluster/Partition.scala):
// its log; the partition state the controller last sent (leader, epochs,
// replicas, the committed ISR); while it leads, the state of each follower
// (Kafka's Replica: log end offset, last caught-up time) and an ISR change
// in flight (KIP-497's PendingExpandIsr / PendingShrinkIsr, whose union with
// the committed ISR is the maximal ISR); and the rules on them: when a
// follower is in sync, when it joins or leaves the ISR, where the high
// watermark is, whether enough replicas are in sync.
//
// No node, no network: it decides, and the broker performs the effects
// (AlterPartition requests, the purgatories, fetch sessions, the trace).
// Every change asserts the partition's invariants (check_invariants()).
#include <algorithm>
#include <optional>
#include <vector>

#include "models/log/partition_log.hpp"
#include "models/protocol/kafka_messages.hpp"

namespace ksim::models {

// What a leader knows of one follower (Kafka's Replica / ReplicaState).
struct FollowerState {
  Offset log_end_offset = -1;  // unknown until it fetches
  SimTime last_caught_up = 0;
  SimTime last_fetch = 0;
  Offset leader_end_offset_at_last_fetch = 0;
  Offset high_watermark_sent = -1;  // KIP-227: unchanged partitions are left out of responses
};

class Partition;

// An ISR change sent to the controller (KIP-497; Kafka's sentLeaderAndIsr of a
// PendingExpandIsr or PendingShrinkIsr): the ISR proposed and the epochs it was based on.
struct IsrProposal {
  std::vector<BrokerId> isr;
  Epoch leader_epoch = 0;
  Epoch partition_epoch = 0;
  bool operator==(const IsrProposal&) const = default;
};

// What changed in a partition.
enum class PartitionChange {
  State,           // its role, the controller's state, its committed ISR, or a crash
  LeaderHighWatermark,
  LogGrew,         // appended to: its log end offset went up, nothing else
  LogShrank,       // truncated, or lost to a power loss
  LogStartMoved,   // retention deleted segments, or a follower took its leader's log start offset
  LogCleaned,      // the log cleaner compacted it (offsets, log start, HW and LEO unchanged)
  FollowerHighWatermark,
  PendingIsr,      // an AlterPartition began or ended
  LogReplaced,     // KIP-113: a copy of the log on another log dir took its place
};

// Hears every change of a partition, after its invariants held (as Kafka's
// PartitionListener hears a partition's high watermark updates): the
// cluster's invariant checks mark it for checking.
class PartitionListener {
 public:
  virtual ~PartitionListener() = default;
  virtual void partition_changed(const Partition& partition, PartitionChange change) = 0;
};

// Several listeners of the same partitions (the invariant checks, the availability tracker), in the order added.
class PartitionListeners final : public PartitionListener {
 public:
  void add(PartitionListener* listener) { listeners_.push_back(listener); }
  bool empty() const { return listeners_.empty(); }
  void partition_changed(const Partition& partition, PartitionChange change) override {
    for (PartitionListener* l : listeners_) l->partition_changed(partition, change);
  }

 private:
  std::vector<PartitionListener*> listeners_;
};

class Partition {
 public:
  enum class Role { None, Leader, Follower };

  Partition(TopicPartition tp, BrokerId local_broker) : tp_(tp), local_(local_broker) {}

  TopicPartition tp() const { return tp_; }
  BrokerId broker() const { return local_; }
  Role role() const { return role_; }
  bool is_leader() const { return role_ == Role::Leader; }
  bool is_follower() const { return role_ == Role::Follower; }
  const PartitionLog& log() const { return log_; }
  const PartitionState& state() const { return state_; }
  Epoch leader_epoch() const { return state_.leader_epoch; }
  // The log end offset when this replica became leader of its current epoch
  // (Partition.leaderEpochStartOffsetOpt); -1 when it is not leader.
  Offset epoch_start_offset() const { return epoch_start_offset_; }
  bool isr_change_pending() const { return pending_isr_.has_value(); }
  const std::optional<IsrProposal>& pending_isr_change() const { return pending_isr_; }
  void set_listener(PartitionListener* listener) { listener_ = listener; }

  // --- the controller's partition state (Partition.makeLeader, makeFollower) ---
  // Older than what this replica has: to be ignored.
  bool is_stale(const PartitionState& state) const;
  // A leader epoch this replica has not acted on yet.
  bool is_new_epoch(const PartitionState& state) const;
  // Leads from `state` on; every replica starts as caught up now, so none is dropped before it can fetch.
  void make_leader(const PartitionState& state, SimTime now);
  void make_follower(const PartitionState& state);
  // Neither leads nor follows: no leader, or this replica's log dir failed (KIP-112).
  void stop(const PartitionState& state);
  void go_offline();
  // The same epoch and role: the controller committed an ISR change, ours or its own. A newer
  // partition epoch ends any pending change: the state is committed (Partition.makeLeader's
  // CommittedPartitionState), and the controller refuses a proposal based on an older epoch.
  void update_state(const PartitionState& state);
  // A crash: what the process kept is gone; the log stays.
  void reset_process_state();

  // --- the log, through the partition ---
  const RecordBatch& append_as_leader(const RecordBatch& batch);
  void append_as_follower(const RecordBatch& batch);
  void truncate_to(Offset offset);
  // A follower's high watermark follows the leader's, up to its own log end.
  void follow_high_watermark(Offset leader_high_watermark);
  void mark_flushed(Offset offset) { log_.mark_flushed(offset); }
  // The log's config (segment.bytes, retention.ms, ...); `config` outlives the partition.
  void configure_log(const LogConfig* config) { log_.configure(config); }
  // UnifiedLog.deleteOldSegments: what retention deleted, by pass (under
  // tiered storage, only what remote storage holds up to `highest_remote_offset`).
  std::vector<DeletedSegments> delete_old_segments(SimTime now, Offset highest_remote_offset = -1);
  // KIP-405's TierStateMachine: the epochs of the remote segments below an empty log's start.
  void restore_epochs(std::vector<std::pair<Epoch, Offset>> epochs) { log_.restore_epochs(std::move(epochs)); }
  // A follower takes its leader's log start offset (capped at its HW) and deletes the segments below it.
  std::vector<DeletedSegments> follow_log_start_offset(Offset leader_log_start_offset, SimTime now,
                                                       Offset highest_remote_offset = -1);
  // AbstractFetcherThread.handleOutOfRangeError: the follower fetched below
  // the leader's log start offset: it starts again there, empty. The bytes removed.
  std::uint64_t truncate_fully_and_start_at(Offset offset);
  void lose_unflushed();  // a power loss
  // KIP-113 (LogManager.replaceCurrentWithFutureLog): the log of `future`, a
  // copy on another log dir that has caught up (the same log end offset),
  // becomes this replica's, with the current high watermark; `future` is left
  // holding the old log, to be deleted.
  void adopt_log_of(Partition& future);
  // The log cleaner's cleaning, computed from this log, takes the place of its segments (PartitionLog::replace_cleaned).
  CleanerStats replace_cleaned(CleanedLog cleaned);

  // --- a leader's followers, ISR and high watermark ---
  const FollowerState* follower(BrokerId broker) const { return const_cast<Partition*>(this)->find_follower(broker); }
  bool in_isr(BrokerId broker) const {
    for (const BrokerId b : state_.isr) {
      if (b == broker) return true;
    }
    return false;
  }
  // KIP-497: the committed ISR and a pending change together; the leader acts on no ISR the controller has not committed.
  std::vector<BrokerId> maximal_isr() const;
  // Partition.effectiveMinIsr: min.insync.replicas capped at the replica count
  // (KAFKA-15583, Kafka 3.7+; `strict`); before, as given.
  std::int32_t effective_min_isr(std::int32_t min_insync_replicas, bool strict) const {
    return strict ? std::min(min_insync_replicas, static_cast<std::int32_t>(state_.replicas.size())) : min_insync_replicas;
  }
  // Before an acks=all append, the committed ISR must have them (Partition.appendRecordsToLeader) ...
  bool enough_replicas_to_append(std::int32_t min_insync_replicas, bool strict) const {
    return static_cast<std::int32_t>(state_.isr.size()) >= effective_min_isr(min_insync_replicas, strict);
  }
  // ... and when it completes, the maximal ISR (Partition.checkEnoughReplicasReachOffset).
  bool enough_replicas(std::int32_t min_insync_replicas, bool strict) const {
    return static_cast<std::int32_t>(maximal_isr().size()) >= effective_min_isr(min_insync_replicas, strict);
  }
  // Replica.updateFetchStateOrThrow: a follower fetched from `fetch_offset`. A
  // follower is caught up if it fetched from the leader's end, or from where
  // the end was at its previous fetch. True when its log end offset moved.
  bool update_follower_fetch_state(BrokerId follower, Offset fetch_offset, SimTime now);
  // KIP-227: the skipped fetches of a fetch session found the follower at the end, the last at `last_fetch`.
  void catch_up_follower(BrokerId follower, SimTime last_fetch) {
    if (FollowerState* f = find_follower(follower)) {
      f->last_caught_up = std::max(f->last_caught_up, last_fetch);
      f->last_fetch = std::max(f->last_fetch, last_fetch);
    }
  }
  void record_high_watermark_sent(BrokerId follower, Offset high_watermark) {
    if (FollowerState* f = find_follower(follower)) f->high_watermark_sent = high_watermark;
  }
  // Partition.maybeExpandIsr: the ISR with `follower` in it, when it should
  // join: it has caught up to the high watermark and to the start of the
  // leader's epoch (isFollowerInSync), and it is a live broker (KIP-841).
  std::optional<std::vector<BrokerId>> isr_with(BrokerId follower, const std::vector<BrokerId>& live_brokers) const;
  // Partition.maybeShrinkIsr: the ISR without the followers that have not caught up for `max_lag`.
  std::optional<std::vector<BrokerId>> isr_without_lagging(SimTime now, SimTime max_lag) const;
  // An AlterPartition is on its way to the controller with `proposed`, based on the current epochs.
  const IsrProposal& begin_isr_change(std::vector<BrokerId> proposed);
  // Partition.submitAlterPartition's callback: an answer applies only to the
  // change it answers, if that is still the one pending; any other is out of
  // date (the state moved on since: new metadata, another proposal) and ignored.
  bool answers_pending(const IsrProposal& answered) const { return pending_isr_ && *pending_isr_ == answered; }
  // The controller said the change was not applied (INELIGIBLE_REPLICA,
  // OPERATION_NOT_ATTEMPTED): back to the committed state. Any other outcome
  // ends a pending change only with newer metadata (update_state).
  void end_isr_change() {
    pending_isr_.reset();
    changed(PartitionChange::PendingIsr);
  }
  // Partition.maybeIncrementLeaderHW: the high watermark is the smallest log
  // end offset in the maximal ISR (a member not heard from yet holds it where it is),
  // and, with `strict` (KAFKA-15583, Kafka 3.7+), it stays while the committed ISR is
  // below min.insync.replicas capped at the replication factor. True when it moved.
  bool maybe_advance_high_watermark(std::int32_t min_insync_replicas = 1, bool strict = true);

  // The invariants: the high watermark never above the log end, never back
  // within a leader's epoch; the leader in its ISR; followers and a pending
  // ISR change only while leading, the change never empty. The first one
  // broken, if any; check_invariants() aborts with it, after every change.
  std::optional<std::string_view> broken_invariant() const;
  void check_invariants() const;

 private:
  FollowerState* find_follower(BrokerId broker) {  // a handful: a flat list
    for (auto& [id, state] : followers_) {
      if (id == broker) return &state;
    }
    return nullptr;
  }
  void changed(PartitionChange change);  // after every change: checks the invariants, tells the listener

  // Laid out for the fetch and append paths: what they read comes first.
  TopicPartition tp_;
  Role role_ = Role::None;  // process state: lost on a crash
  BrokerId local_;
  PartitionLog log_;  // durable across process crashes; power loss keeps only the flushed prefix
  PartitionState state_;  // as last received from the controller
  std::vector<std::pair<BrokerId, FollowerState>> followers_;  // leader only; a handful: a flat list
  std::optional<IsrProposal> pending_isr_;  // AlterPartition in flight (KIP-497)
  Offset epoch_high_watermark_ = 0;  // the leader's high watermark when last checked, within its epoch
  Offset epoch_start_offset_ = -1;
  PartitionListener* listener_ = nullptr;
};

std::string_view to_string(Partition::Role role);

}  // namespace ksim::models
