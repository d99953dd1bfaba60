#pragma once
// A broker's group coordinator for Kafka's classic consumer group protocol
// (the GroupCoordinator and GroupMetadata state machine of Kafka 2.x-3.x,
// still served to "classic" groups by 4.x): the groups whose partition of
// __consumer_offsets this broker leads. A group lives on partition
// abs(hashCode(group.id)) % offsets.topic.num.partitions.
//
// Group states: Empty -> PreparingRebalance (members join; the first
// rebalance of an empty group waits group.initial.rebalance.delay.ms) ->
// CompletingRebalance (the leader computes the assignment; SyncGroup) ->
// Stable. Members stay through heartbeats within session.timeout.ms; a member
// that does not rejoin within the rebalance timeout (max.poll.interval.ms) is
// removed. Static members (KIP-345) keep their place across restarts.
// Offsets and group metadata are appended to the partition and take effect
// once replicated (offsets.commit.required.acks = -1); a new leader of the
// partition loads its groups from its log. KIP-848's consumer groups are
// written the same way, their responses held until the write commits.
//
// Files: group_coordinator.cpp (membership and rebalances),
// group_coordinator_offsets.cpp (commits, fetches, loading, storing),
// group_coordinator_persist.cpp (consumer groups' writes and loading),
// group_coordinator_expiry.cpp (offsets.retention.minutes, deleting groups).
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "models/history/consumption_history.hpp"
#include "models/coordinator/consumer_group.hpp"
#include "models/coordinator/coordinator_records.hpp"
#include "models/coordinator/group_state.hpp"
#include "models/events/model_event.hpp"
#include "models/protocol/consumer_group_messages.hpp"
#include "models/protocol/share_group_messages.hpp"
#include "models/protocol/group_messages.hpp"
#include "models/protocol/kafka_config.hpp"
#include "models/log/partition_log.hpp"
#include "sim/events/event_queue.hpp"
#include "sim/random/random.hpp"
#include "sim/observe/trace.hpp"

namespace ksim::models {

// What the coordinator needs from the broker it runs in.
class CoordinatorHost {
 public:
  virtual ~CoordinatorHost() = default;
  virtual SimTime coordinator_now() const = 0;
  virtual TimerId coordinator_timer(SimTime delay, std::function<void()> callback) = 0;
  virtual void coordinator_cancel(TimerId timer) = 0;
  virtual void coordinator_send(ConnectionId connection, MessagePtr message) = 0;
  // Appends a record to the broker's leader replica of the __consumer_offsets
  // partition; `done` runs once it is committed (high watermark) or has failed.
  virtual void coordinator_append(std::int32_t partition, std::uint64_t record_id,
                                  std::function<void(Error)> done) = 0;
  virtual RandomStream& coordinator_rng() = 0;
  virtual BrokerId coordinator_id() const = 0;
  virtual void coordinator_publish(const ModelEvent& event) = 0;  // to the trace and the model's subscribers
  virtual std::int32_t coordinator_partition_count(std::int32_t topic) const = 0;  // from its metadata (KIP-848's assignors)
};

// Kafka's Utils.abs(groupId.hashCode()) % partitions, with Java's String.hashCode.
std::int32_t group_partition(std::string_view group, std::int32_t partitions);
// What a coordinator answers when its append to its partition failed.
Error coordinator_error(Error append_error);
// What a group coordinator answers when its write of a group's metadata (a
// rebalance's) or of offsets failed: as coordinator_error, but before the
// coordinator runtime (4.0) a timed-out write answered differently.
enum class GroupWrite { Metadata, Offsets };
Error group_write_error(Error append_error, GroupWrite write, bool coordinator_runtime);

class GroupCoordinator {
 public:
  GroupCoordinator(CoordinatorHost& host, GroupCoordinatorConfig config, CoordinatorRecordStore& records,
                   ConsumptionHistory* history);

  // Leadership of __consumer_offsets partitions.
  void load(std::int32_t partition, const PartitionLog& log);  // became leader: replay the log
  void unload(std::int32_t partition);                          // lost leadership
  void reset();                                                 // the broker crashed

  void handle(ConnectionId c, const JoinGroupRequest& request);
  void handle(ConnectionId c, const SyncGroupRequest& request);
  void handle(ConnectionId c, const HeartbeatRequest& request);
  void handle(ConnectionId c, const LeaveGroupRequest& request);
  void handle(ConnectionId c, const OffsetCommitRequest& request);
  void handle(ConnectionId c, const OffsetFetchRequest& request);
  void handle(ConnectionId c, const TxnOffsetCommitRequest& request);
  void handle(ConnectionId c, const ConsumerGroupHeartbeatRequest& request);  // KIP-848
  void handle(ConnectionId c, const ShareGroupHeartbeatRequest& request);     // KIP-932
  // A transaction marker was written on one of its partitions: the producer's
  // pending transactional offsets take effect (commit) or are dropped (abort).
  void complete_transaction(std::int32_t partition, ProducerId producer, bool commit);

 private:
  enum class LoadState { Loading, Loaded };
  struct Reply {  // a JoinGroup or SyncGroup waiting for its answer
    ConnectionId connection;
    std::int64_t correlation_id;
  };
  struct Member {
    GroupMemberRecord record;
    std::optional<Reply> join;
    std::optional<Reply> sync;
    TimerId heartbeat_timer;
  };
  struct StoredOffset {  // Kafka's OffsetAndMetadata
    CommittedOffset offset;
    SimTime commit_time = 0;  // commitTimestampMs: where its retention starts
  };
  struct Group {
    std::string id;
    std::int32_t partition = 0;
    GroupState state = GroupState::Empty;  // changed through transition_to, or set by loading
    SimTime state_since = 0;               // currentStateTimestamp
    std::int32_t generation = 0;
    std::string protocol;
    std::string leader;
    std::map<std::string, Member> members;
    std::map<std::string, std::string> static_members;  // group.instance.id -> member id
    std::set<std::string> pending_members;             // KIP-394: given an id, not joined yet
    std::map<TopicPartition, StoredOffset> offsets;
    std::map<ProducerId, std::map<TopicPartition, StoredOffset>> pending_offsets;  // in open transactions
    std::map<TopicPartition, std::int32_t> committing;  // commits being written (pendingOffsetCommits)
    std::map<TopicPartition, std::string> owners;      // client id per partition, as last stored
    TimerId join_timer;
    bool initial_delay = false;
    bool new_member_added = false;
    SimTime join_deadline = 0;  // the initial delay never extends past it

    // GroupMetadata.transitionTo: asserts that `next` may follow.
    void transition_to(GroupState next, SimTime now);
    void commit_written(TopicPartition tp) {  // a commit's write finished (written or failed)
      const auto it = committing.find(tp);
      if (it != committing.end() && --it->second == 0) committing.erase(it);  // a group reloaded since has none
    }
    // GroupMetadata.hasOffsets: committed, being committed, or in an open transaction.
    bool has_offsets() const { return !offsets.empty() || !committing.empty() || !pending_offsets.empty(); }
  };
  struct WaitingOperation {  // an operation that wrote nothing, answered after the writes before it
    std::uint64_t after = 0;  // the last write before it
    std::function<void(Error)> then;
  };
  struct PartitionLoad {
    LoadState state = LoadState::Loading;
    std::uint64_t generation = 0;  // a load superseded by an unload and a reload is ignored
    std::set<std::uint64_t> in_flight;     // writes not committed yet
    std::deque<WaitingOperation> waiting;  // in order
    std::int64_t records = 0;              // replayed from the partition's log by the load
  };

  // group_coordinator.cpp
  bool accept_joining_member(const Group& g, const std::string& member_id) const;
  void join_new_member(Group& g, ConnectionId c, const JoinGroupRequest& request);
  void join_known_member(Group& g, ConnectionId c, const JoinGroupRequest& request);
  void add_member_and_rebalance(Group& g, ConnectionId c, const JoinGroupRequest& request, std::string member_id);
  void replace_static_member(Group& g, ConnectionId c, const JoinGroupRequest& request);
  void update_member(Group& g, Member& m, ConnectionId c, const JoinGroupRequest& request);
  void prepare_rebalance(Group& g, const std::string& trigger);
  void try_complete_join(Group& g);
  void initial_delay_expired(const std::string& group);
  void complete_join(Group& g);
  SimTime rebalance_timeout(const Group& g) const;
  bool elect_joined_leader(Group& g);
  void answer_join(const Group& g, Member& m, bool skip_assignment = false);
  void complete_sync(const std::string& group, std::int32_t generation, Error error, const Assignment& assignment);
  void remove_member(Group& g, const std::string& member_id);
  void member_left(Group& g, const std::string& trigger);
  void schedule_session_expiry(Group& g, Member& m);
  void session_expired(const std::string& group, const std::string& member_id);
  std::string select_protocol(const Group& g) const;
  std::string new_member_id(std::string_view prefix);
  Error check_member(const Group& g, const MemberIdentity& member) const;
  void reply_join_error(ConnectionId c, std::int64_t correlation, Error error, std::string member_id = {});
  void reply_sync(const Reply& to, Error error, std::vector<TopicPartition> assignment = {});

  // group_coordinator_consumer.cpp: KIP-848's consumer groups
  struct ConsumerGroupEntry {
    ConsumerGroup group;
    std::int32_t partition = 0;
    std::map<std::string, TimerId> session_timers;     // group.consumer.session.timeout.ms, by member
    std::map<std::string, TimerId> revocation_timers;  // the member's rebalance timeout while it revokes
    // KIP-848's online migration: a classic member's JoinGroup within its
    // rebalance timeout once told to rejoin, and its SyncGroup after its JoinGroup.
    std::map<std::string, TimerId> join_timers;
    std::map<std::string, TimerId> sync_timers;
    std::map<TopicPartition, std::string> stable_owners;  // client id per partition when last Stable
    bool rebalancing = false;                         // a rebalance is open in the history
    std::optional<std::uint64_t> stored;              // the record of the group as last written
    std::set<std::string> logged_members;             // members whose records the log holds, no tombstone after
    bool classic_tombstone_pending = false;           // converted from a classic group: its key's tombstone goes with the next write
  };
  ConsumerGroupEntry& consumer_group(const std::string& group);
  Error consumer_join(ConsumerGroupEntry& entry, const ConsumerGroupHeartbeatRequest& request);
  void consumer_leave(ConsumerGroupEntry& entry, const ConsumerGroupHeartbeatRequest& request);
  void consumer_epoch_bumped(ConsumerGroupEntry& entry, const std::string& trigger);
  void consumer_remove(ConsumerGroupEntry& entry, const std::string& member_id, const std::string& reason,
                       const std::string& trigger);
  void consumer_forget_timers(ConsumerGroupEntry& entry, const std::string& member_id);
  void consumer_schedule_session(ConsumerGroupEntry& entry, const std::string& member_id);
  void consumer_schedule_revocation(ConsumerGroupEntry& entry, const std::string& member_id);
  void consumer_maybe_stable(ConsumerGroupEntry& entry);
  // OffsetCommit and TxnOffsetCommit of a consumer group's member: nullopt when `group` is not one;
  // else an error for the whole request, or (KIP-1251) the partitions refused on their own.
  struct CommitVerdict {
    Error error = Error::None;
    std::vector<TopicPartition> stale;
  };
  std::optional<CommitVerdict> check_consumer_commit(const std::string& group, const MemberIdentity& member,
                                                     const std::vector<CommittedOffset>& offsets) const;
  void unload_consumer_groups(std::int32_t partition);
  // The reconciliation steps a member's request runs in its consumer group
  // (ConsumerGroupHeartbeat, or a classic member's JoinGroup): the partition
  // counts, a new target if the group epoch is ahead, the member's
  // reconciliation with the partitions it owns.
  void consumer_assign(ConsumerGroupEntry& entry, const std::string& member_id, const std::vector<TopicPartition>& owned);

  void consumer_heartbeat(ConnectionId c, const ConsumerGroupHeartbeatRequest& request);
  // throwIfConsumerGroupIsFull: group.consumer.max.size reached and `member_id` not a member.
  bool consumer_group_full(const ConsumerGroup& g, const std::string& member_id) const {
    return std::ssize(g.members()) >= config_.consumer_max_size && !g.member(member_id);
  }

  // group_coordinator_persist.cpp: KIP-848's groups through the coordinator runtime
  void append(std::int32_t partition, std::uint64_t record_id, std::function<void(Error)> done);
  void release_waiting(PartitionLoad& p, Error error);
  void after_writes(std::int32_t partition, std::function<void(Error)> then);
  void consumer_write(const std::string& group, const std::function<void()>& operation);
  void persist_consumer_group(const std::string& group, std::function<void(Error)> then);
  void replay_consumer_group(std::int32_t partition, std::uint64_t record_id);
  void consumer_groups_loaded(std::int32_t partition);
  // A response, held while a consumer_write operation runs (then sent, or failed, with its write).
  template <class Response>
  void respond(ConnectionId c, std::unique_ptr<Response> response) {
    if (!held_) return host_.coordinator_send(c, std::move(response));
    auto shared = std::make_shared<Response>(std::move(*response));
    held_->push_back([this, c, shared](Error error) {
      if (error != Error::None) shared->error = coordinator_error(error);
      host_.coordinator_send(c, std::make_unique<Response>(std::move(*shared)));
    });
  }

  // group_coordinator_migration.cpp: KIP-848's online migration between the
  // protocols (GroupMetadataManager's convertToConsumerGroup,
  // convertToClassicGroup and classicGroup*ToConsumerGroup)
  bool validate_online_upgrade(const Group& g) const;
  void fail_classic_waiters(Group& g);
  void convert_to_consumer_group(Group& g, const std::string& trigger);
  bool validate_online_downgrade(const ConsumerGroupEntry& entry, const std::string& leaving_member) const;
  bool validate_online_downgrade_with_replacement(const ConsumerGroupEntry& entry) const;
  // `leaving_member` ("" for none: a static replacement already took its place) is left
  // out; `rebalance`: every member rejoins (a leave), or none does (a replacement).
  void convert_to_classic_group(ConsumerGroupEntry& entry, const std::string& leaving_member, const std::string& trigger,
                                bool rebalance = true);
  // The classic requests of a member of a non-empty consumer group.
  bool routes_to_consumer_group(const std::string& group) const;
  void classic_join_to_consumer_group(ConsumerGroupEntry& entry, ConnectionId c, const JoinGroupRequest& request);
  void classic_sync_to_consumer_group(ConsumerGroupEntry& entry, ConnectionId c, const SyncGroupRequest& request);
  void classic_heartbeat_to_consumer_group(ConsumerGroupEntry& entry, ConnectionId c, const HeartbeatRequest& request);
  void classic_leave_to_consumer_group(ConsumerGroupEntry& entry, ConnectionId c, const LeaveGroupRequest& request);
  Error validate_classic_member(const ConsumerGroup& g, const MemberIdentity& member) const;
  void consumer_schedule_classic_timer(ConsumerGroupEntry& entry, const std::string& member_id, bool join);
  void consumer_cancel_timer(std::map<std::string, TimerId>& timers, const std::string& member_id);

  // group_coordinator_share.cpp: KIP-932's share groups (membership only; the
  // share-partitions live on the partition leaders, models/broker/broker_share.cpp)
  struct ShareGroupEntry {
    std::int32_t partition = 0;  // of __consumer_offsets
    std::int32_t group_epoch = 0;
    std::map<std::string, TimerId> members;  // member id -> its session timer (group.share.session.timeout.ms)
    std::map<std::string, std::vector<std::int32_t>> subscriptions;  // member id -> its topics
    // The target assignment and the group epoch and partition counts it was computed at.
    std::map<std::string, std::vector<TopicPartition>> target;
    std::int32_t assignment_epoch = -1;
    std::map<std::int32_t, std::int32_t> assigned_partition_counts;  // topic -> partitions
  };
  void share_member_expired(const std::string& group, const std::string& member_id);
  void share_assign(ShareGroupEntry& g);
  std::map<std::string, ShareGroupEntry> share_groups_;

  // group_coordinator_expiry.cpp: offsets.retention.minutes and the deletion of empty groups
  void schedule_expiry(std::int32_t partition, std::uint64_t generation);
  void expire_offsets(std::int32_t partition);
  std::vector<TopicPartition> expired_offsets(const Group& g, SimTime now) const;
  CoordinatorRecord expire_group_offsets(Group& g, SimTime now);  // removes them; their tombstones
  bool deletable(const std::string& group) const;
  void delete_group(const std::string& group);

  // group_coordinator_offsets.cpp
  Error check_coordinator(const std::string& group) const;
  Group* find(const std::string& group);
  Group& find_or_create(const std::string& group);
  void replay(Group& g, const CoordinatorRecord& record, std::int32_t first, std::int32_t count);
  void settle(Group& g, ProducerId producer, bool commit);
  void finish_load(std::int32_t partition, std::uint64_t generation);
  // `replaced_members`: a downgrade, with the tombstones of the consumer group it replaces and of those members.
  void clear_classic_membership(Group& g);  // the classic group replaced by a consumer group (offsets kept)
  void store_group(const Group& g, const Assignment& assignment, std::function<void(Error)> done,
                   const std::vector<std::string>* replaced_members = nullptr);
  GroupMetadataRecord metadata_of(const Group& g, const Assignment& assignment) const;
  Error check_commit(const Group* g, const MemberIdentity& member, bool transactional) const;

  CoordinatorHost& host_;
  GroupCoordinatorConfig config_;
  CoordinatorRecordStore& records_;  // shared by every broker: the content of coordinator batches
  ConsumptionHistory* history_;
  std::map<std::int32_t, PartitionLoad> partitions_;  // the offsets partitions this broker leads
  std::map<std::string, Group> groups_;
  std::map<std::string, ConsumerGroupEntry> consumer_groups_;  // KIP-848's; their offsets live in groups_
  std::uint64_t next_load_generation_ = 0;
  std::uint64_t next_write_ = 0;
  std::vector<std::function<void(Error)>>* held_ = nullptr;  // the responses of the running consumer_write
};

}  // namespace ksim::models
