#pragma once
// A Kafka broker: hosts partition replicas on its log dirs, leads some of
// them (Produce with acks 0, 1 or all, a purgatory for acks=all, serving
// follower fetches, the high watermark and the ISR) and follows others
// (replica fetchers, truncation by leader epoch). It heartbeats to the
// controller and applies the cluster metadata: with a KRaft controller quorum
// it fetches the metadata log as an observer of the quorum (KIP-631,
// broker_metadata_log.cpp); alone or with ZooKeeper, the controller pushes it.
// Its files: broker.cpp (lifecycle, metadata, log dirs), broker_produce.cpp (the produce path),
// broker_leader.cpp (serving fetches, HW, ISR), broker_follower.cpp (replica fetchers and
// truncation), broker_group.cpp (the group coordinator's requests and __consumer_offsets).
#include <cassert>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "models/broker/fetch_session.hpp"
#include "models/broker/broker_footprint.hpp"
#include "models/broker/partition.hpp"
#include "models/broker/pending_requests.hpp"
#include "models/broker/remote_log_manager.hpp"
#include "models/broker/log_cleaner_state.hpp"
#include "models/broker/dir_assignments.hpp"
#include "models/broker/log_dir.hpp"
#include "models/broker/log_dir_balance.hpp"
#include "models/broker/replication_quota.hpp"
#include "models/coordinator/group_coordinator.hpp"
#include "models/coordinator/share_partition.hpp"
#include "models/coordinator/txn_coordinator.hpp"
#include "models/controller/metadata_records.hpp"
#include "models/events/model_event_bus.hpp"
#include "models/protocol/cluster_directory.hpp"
#include "models/protocol/kafka_config.hpp"
#include "models/protocol/kafka_messages.hpp"
#include "models/log/partition_log.hpp"
#include "models/log/producer_state.hpp"
#include "models/log/remote_log.hpp"
#include "models/history/compaction_history.hpp"
#include "models/history/retention_history.hpp"
#include "models/raft/raft_connections.hpp"
#include "models/raft/raft_replica.hpp"
#include "sim/events/ring_queue.hpp"
#include "sim/resources/cpu.hpp"
#include "sim/core/node.hpp"

namespace ksim::models {

// CPU time a broker spent, by thread pool (all zero without a CPU model).
struct BrokerCpuUsage {
  int cores = 0;
  SimTime busy_ns = 0;
  SimTime network_threads_busy_ns = 0;
  int network_threads = 0;
  SimTime io_threads_busy_ns = 0;
  int io_threads = 0;
  SimTime other_busy_ns = 0;  // replica fetchers, the metadata thread, the log cleaner's and the log dir movers' threads
  std::uint64_t follower_fetches = 0;  // fetch requests served, from followers
  std::uint64_t consumer_fetches = 0;  // and from consumers
};

class Broker final : public Node, private TxnCoordinatorHost {
 public:
  Broker(Simulation& sim, std::string name, HostId host, BrokerId id, BrokerConfig config,
         std::shared_ptr<const ClusterDirectory> directory, ModelEventBus& events);
  ~Broker() override;

  BrokerId broker_id() const { return id_; }
  // KIP-631, with a controller quorum: the broker hosts a replica of the
  // metadata log, an observer of the quorum (`raft`: the controller.quorum.*
  // configs), and applies what is committed over `bootstrap`, the metadata the
  // cluster was formatted with (broker_metadata_log.cpp). Before the first start.
  void host_metadata_log(const RaftConfig& raft, std::shared_ptr<const MetadataImage> bootstrap);
  const RaftReplica* metadata_replica() const { return metadata_raft_.get(); }  // null while down, and without a quorum
  // The end offset of the metadata it applied (-1: none yet in this process).
  std::int64_t applied_metadata_offset() const { return metadata_offset_; }
  // ZooKeeper mode: a process restarted while its previous session lives finds its registration
  // taken; KafkaServer.startup then fails before its socket server processes requests (the
  // supervisor starts it again). Until the side registers, every connection to it is refused.
  void refuse_requests(bool refusing);
  // ZooKeeper mode (KIP-380): its registration's czxid, the broker epoch (KafkaController.brokerEpoch);
  // a push for an older one, its previous process's, is refused (KafkaApis.isBrokerEpochStale).
  void registered_in_zookeeper(std::int64_t broker_epoch);
  // From 2.0 (KAFKA-6772) KafkaServer.startup starts the socket server's processors once registered:
  // until then requests wait. Before, they are served at once.
  void serve_once_registered(bool waiting) { serve_once_registered_ = waiting; }
  // Replica assignment, fixed when the topic is created (log dir by fewest partitions).
  void create_replica(TopicPartition tp);

  // KIP-73, as kafka-reassign-partitions --throttle sets it: leader.replication.throttled.rate
  // and follower.replication.throttled.rate, and these partitions in the throttled-replica
  // lists (the leader side for the existing replicas, the follower side for the moving ones),
  // for as long as they are being reassigned (broker_replica_lifecycle.cpp).
  void throttle_replication(double bytes_per_s, const std::vector<TopicPartition>& partitions);
  // KIP-113, the Admin API's alterReplicaLogDirs (broker_log_dir_moves.cpp): moves
  // each partition's replica here to the log dir at that path, online. An error per
  // partition, as ReplicaManager.alterReplicaLogDirs answers.
  std::vector<Error> alter_replica_log_dirs(const std::vector<std::pair<TopicPartition, std::string>>& moves);
  // kafka-reassign-partitions --replica-alter-log-dirs-throttle: replica.alter.log.dirs.io.max.bytes.per.second.
  void throttle_log_dir_moves(double bytes_per_s) { alter_log_dirs_quota_.set_rate(bytes_per_s); }
  std::size_t log_dir_moves_in_progress() const;  // replicas with a future replica
  std::optional<std::int32_t> recorded_log_dir(TopicPartition tp) const;  // KIP-858: the dir the controller records
  std::vector<ReplicaPlacement> replica_placements() const;  // each hosted replica's log dir and size
  std::vector<bool> log_dirs_online() const;

  // Faults on a log dir (by path): slow (factor), full, failed.
  void slow_log_dir(const std::string& path, double factor);
  void fill_log_dir(const std::string& path, bool full);
  void fail_log_dir(const std::string& path);
  // KAFKA-15583 (3.7): min.insync.replicas capped at the replica count, and the high watermark held below it.
  bool strict_min_isr() const { return config_.mechanisms.has(Mechanism::StrictMinIsr); }
  bool halts_at_start() const;
  bool has_log_dir(const std::string& path) const;
  // Rebalances seen by this broker's group coordinator are recorded there.
  void observe_groups(ConsumptionHistory* history);
  // Batches retention deletes from any replica here are told to `history` (for the checkers).
  void observe_retention(RetentionHistory* history) { retention_history_ = history; }
  // Records the log cleaner removes from any replica here are told to `history` (for the checkers).
  void observe_compaction(CompactionHistory* history) { compaction_history_ = history; }
  // Every change of a hosted partition is told to `listener` too (the cluster's invariant checks, ...).
  void add_partition_listener(PartitionListener* listener);
  // For tests of the invariant checks only: drops a hosted log's tail from `offset`, silently, as a bug would.
  void inject_log_loss(TopicPartition tp, Offset offset) { replica(tp)->truncate_to(offset); }

  // --- inspection, for the checker, reports and invariants ---
  const PartitionLog* log(TopicPartition tp) const;
  const Partition* partition(TopicPartition tp) const { return replica(tp); }
  bool is_leader(TopicPartition tp) const;
  const RemoteLogStats& remote_log_stats() const { return remote_log_.stats; }  // tiered storage (KIP-405)
  // Tiered storage: the end of what the remote store holds of tp (its highest copied offset plus one, at least
  // its log start); nullopt when tp is not tiered.
  std::optional<Offset> remote_covered_end(TopicPartition tp) const;
  std::optional<PartitionState> partition_state(TopicPartition tp) const;
  // KIP-951: the leader (and its epoch) a NOT_LEADER_OR_FOLLOWER answer for tp names, if this broker knows one.
  std::optional<std::pair<BrokerId, Epoch>> leader_hint(TopicPartition tp) const;
  // The last stable offset a leader serves read_committed consumers (KIP-98), and its open transactions.
  Offset last_stable_offset(TopicPartition tp) const;
  OpenTransactions open_transactions(TopicPartition tp) const;
  std::vector<LogDirStats> log_dir_stats() const;
  BrokerCpuUsage cpu_usage() const;
  std::vector<std::pair<std::string, SimTime>> disk_busy() const;  // by log dir path
  BrokerFootprint footprint() const;  // per-replica costs (models/broker/broker_footprint.hpp)
  std::vector<TopicPartition> hosted_partitions() const;
  std::size_t hosted_partition_count() const { return replicas_.size(); }
  std::size_t parked_fetches_listing(TopicPartition tp) const;  // fetches in the purgatory that ask for tp
  struct SharePartitionEntry {  // KIP-932: a share-partition this broker leads
    SharePartition partition;
    Epoch leader_epoch = -1;  // the leadership it was loaded in
  };
  // KIP-932: the share groups' persisted state (shared by the brokers) and what they did.
  void attach_share_groups(ShareStateStore* store, ShareHistory* history);
  // The share-partitions this broker leads changed since the last call (and it runs): for the invariants.
  bool take_share_changes();
  const std::map<std::pair<std::string, TopicPartition>, SharePartitionEntry>& share_partitions() const {
    return share_partitions_;
  }

 private:
  // A hosted partition (Kafka's HostedPartition): the partition unit, and
  // what the broker keeps beside it for its log dir, durability, page cache,
  // idempotent producers and purgatories. The partition's fields come first:
  // the fetch and append paths visit thousands of replicas per request.
  struct Replica : Partition {
    Replica(TopicPartition tp, BrokerId local, std::size_t dir) : Partition(tp, local), log_dir(dir) {}
    std::size_t log_dir = 0;
    // --- process state, lost on a crash ---
    RingQueue<std::pair<Offset, SimTime>> durability;  // (end offset, durable at), oldest first, trimmed at the front
    // After a truncation: the marks past the new log end go (they are the newest: end offsets only grow between truncations).
    void drop_durability_above_log_end() {
      while (!durability.empty() && durability.back().first > log().log_end_offset()) durability.pop_back();
      assert(durability.empty() || durability.back().first <= log().log_end_offset());
    }
    SimTime last_flush = 0;
    // Where the log sits in the broker's stream of appends, every MiB or so:
    // (first offset after the mark, bytes the broker had appended by then).
    // Data older than the page cache's size in that stream is read from disk.
    RingQueue<std::pair<Offset, std::uint64_t>> cache_marks;
    std::pair<Offset, std::uint64_t> newest_cache_mark{-1, 0};  // cache_marks.back(), at hand
    ProducerStateTable producers;
    std::vector<std::uint64_t> waiting_produces;  // ids in the produce purgatory waiting on this partition
    // KIP-890: may open a transaction here (the coordinator said so); flat: usually empty.
    boost::container::flat_map<ProducerId, ProducerEpoch> verified;
    // Before KIP-279 (2.0) a follower compared epochs with its leader once,
    // after it became a follower (OffsetsForLeaderEpoch v0), and then fetched
    // by offset alone: set once that first answer is applied.
    bool epoch_checked = false;
    // The leader's high watermark in the last fetch response (the fetcher's lag; KIP-73's in-sync test).
    Offset leader_high_watermark = -1;
    // KIP-113 (Partition.futureLog): its copy on another log dir while it moves
    // there, filled from this replica by a ReplicaAlterLogDirsThread.
    std::unique_ptr<Replica> future;
    FuturePromotion promotion = FuturePromotion::None;  // KIP-858, of `future`
  };
  struct Fetcher;  // broker_follower.cpp

  // broker.cpp
  void on_start() override;
  void on_crash(CrashKind kind) override;
  void on_power_loss_while_down() override;
  void lose_page_cache();
  void on_shutdown_requested() override;
  void finish_shutdown();
  void shutdown_heartbeat_answered(bool ready);
  void on_message(ConnectionId connection, MessagePtr message) override;
  void on_connection_closed(ConnectionId connection) override;
  // broker_controller_channel.cpp
  bool has_controller_quorum() const { return directory_->controller_nodes.size() > 1 && !directory_->zookeeper; }
  bool zookeeper_mode() const { return directory_->zookeeper; }
  void zookeeper_controller_moved(std::int32_t controller);  // broker_controller_channel.cpp
  void on_companion_stopped(Node& side, CrashKind kind) override;
  void on_handed_over(Node& side) override;
  ConnectionId controller_connection();
  void send_heartbeat();
  void heartbeat_tick();
  void handle_heartbeat_response(const BrokerHeartbeatResponse& response);
  void controller_channel_closed();
  bool controller_channel_ready();
  void retry_controller_channel();
  // broker_metadata_log.cpp: the metadata log's observer replica (KIP-631)
  class MetadataLogHost;
  void start_metadata_log();
  void stop_metadata_log(CrashKind kind);
  void handle_metadata_log_message(ConnectionId connection, const Message& message);
  void metadata_committed(Offset from, Offset to);
  void metadata_leader_changed(RaftNodeId leader);
  void apply_metadata_image(std::vector<PartitionState> states);
  void flush_tick();
  void isr_expiration_tick();
  void apply_metadata(const std::vector<PartitionState>& states);
  void apply_partition_state(Replica& replica, const PartitionState& state);
  void become_leader(Replica& replica, const PartitionState& state);  // Partition.makeLeader and its effects
  void become_follower(Replica& replica, const PartitionState& state);
  void stop_replica(Replica& replica, const PartitionState& state);
  // broker_replica_lifecycle.cpp (KIP-455): the hosted replica of `state`'s partition,
  // created if the controller assigned it here, deleted (nullptr) if no longer.
  Replica* replica_as_assigned(const PartitionState& state);
  void delete_replica(Replica& replica, const PartitionState& state);
  // The partition's state as this broker's metadata has it after its replica
  // here was deleted (KIP-455): it still answers for it, naming the leader.
  const PartitionState* departed_state(TopicPartition tp) const;
  std::map<TopicPartition, PartitionState> departed_;
  // Whether `r`'s records to `follower` count against the leader's replication quota.
  bool leader_throttled(const Replica& r, BrokerId follower) const;
  // Whether what this broker fetches for `r` counts against its follower quota: a replica being added here.
  bool follower_throttled(const Replica& r) const;
  // Leaves out of `f`'s next request the throttled replicas not in sync while the follower quota is exceeded.
  void hold_throttled_partitions(Fetcher& f);
  ReplicationQuota leader_quota_;
  ReplicationQuota follower_quota_;
  std::set<TopicPartition> throttled_partitions_;
  void handle_metadata_request(ConnectionId connection, const MetadataRequest& request);
  void handle_init_producer_id(ConnectionId connection, const InitProducerIdRequest& request);
  void handle_list_offsets(ConnectionId connection, const ListOffsetsRequest& request);
  // By index: this is on every fetch's path, once per partition.
  Replica* replica(TopicPartition tp) {
    const auto topic = static_cast<std::size_t>(tp.topic);
    if (topic >= topic_base_.size() || tp.partition < 0) return nullptr;
    const auto index = static_cast<std::size_t>(topic_base_[topic] + tp.partition);
    const std::size_t end =
        topic + 1 < topic_base_.size() ? static_cast<std::size_t>(topic_base_[topic + 1]) : replica_index_.size();
    return index < end ? replica_index_[index] : nullptr;
  }
  const Replica* replica(TopicPartition tp) const { return const_cast<Broker*>(this)->replica(tp); }
  // Asks for the first cache lines of a replica a loop will reach soon (Replica's layout puts the hot fields there).
  void prefetch_replica(TopicPartition tp) const {
    if (const Replica* r = replica(tp)) {
      __builtin_prefetch(r);
      __builtin_prefetch(reinterpret_cast<const char*>(r) + 64);
    }
  }
  bool replica_online(const Replica& replica) const { return log_dirs_[replica.log_dir].online; }
  void take_log_dir_offline(std::size_t index, std::string_view reason);
  // Appends to the log through the disk; false when the log dir failed. `returns_at` is when the append call returns.
  bool write_to_disk(Replica& replica, std::uint64_t bytes, std::int32_t records, SimTime& returns_at);
  // The page cache (BrokerConfig::page_cache_bytes): a read of `bytes` at `offset`
  // that missed it goes to the disk; the fetch is answered once all its reads are done.
  void note_cache_position(Replica& replica, Offset first_offset);
  void read_through_cache(const Replica& replica, Offset offset, std::uint64_t bytes);
  SimTime cache_read_done(const Replica& replica, Offset offset, std::uint64_t bytes);  // now() on a hit
  void send_fetch_when_read(ConnectionId connection, BrokerId follower, std::unique_ptr<FetchResponse> response);
  void maybe_flush(Replica& replica, SimTime& returns_at);
  SimTime flush(Replica& replica);
  void mark_durable(Replica& replica);
  // broker_retention.cpp: LogManager's kafka-log-retention task, every log.retention.check.interval.ms
  void start_retention();
  void retention_tick();
  void free_deleting_now();
  // What retention deleted from a replica: traced, told to the retention history; the files
  // leave the disk file.delete.delay.ms later (UnifiedLog.deleteSegmentFiles).
  void note_deleted(Replica& replica, std::vector<DeletedSegments> deleted);
  void free_disk_later(std::size_t log_dir, std::uint64_t bytes);
  // broker_tiered.cpp: tiered storage (KIP-405), the RemoteLogManager's copies, expiration and reads
  bool tiered(const Replica& r) const;
  Offset log_start_of(const Replica& r) const;
  Offset highest_remote_offset(const Replica& r) const;
  void start_remote_log_manager();
  void remote_log_tick();
  void copy_next_segment(Replica& r);
  void copy_finished(TopicPartition tp, RemoteLogSegment segment);
  void expire_remote_segments(Replica& r);
  void read_remote_for_consumer(const FetchRequest::PartitionData& p, const Replica& r, const FetchRequest& request,
                                FetchResponse& response, std::uint64_t& bytes);
  bool build_remote_aux_state(Replica& r, const FetchResponse::PartitionData& data);  // false: not possible yet
  // broker_log_dir_moves.cpp: KIP-113's ReplicaAlterLogDirsThreads, each copying one
  // partition at a time from its current log to its future log (LocalLeaderEndPoint).
  Error start_log_dir_move(TopicPartition tp, std::size_t target);
  std::size_t mover_of(TopicPartition tp) const;  // AbstractFetcherManager.getFetcherId
  void wake_mover(std::size_t mover, SimTime delay = 0);
  void mover_step(std::size_t mover);
  Replica* next_move(std::size_t mover);
  void copy_to_future(Replica& r, std::size_t mover);
  void append_copy(TopicPartition tp, Offset from, Offset upto, std::size_t mover);
  void promote_future(Replica& r);  // Partition.maybeReplaceCurrentWithFutureReplica
  void abandon_move(Replica& r, std::string_view reason);
  void abandon_moves_on(std::size_t log_dir);  // the dir failed: moves from or to it stop
  void resume_log_dir_moves();                 // after a restart, for the futures left on disk
  // broker_dir_assignments.cpp: KIP-858's AssignmentsManager and failed dirs' reports (KRaft, 3.7+)
  bool assigns_dirs() const;
  void assign_dir(const Replica& r, std::optional<std::int32_t> recorded);
  bool may_promote(Replica& r);
  void schedule_dir_assignments();
  void send_dir_assignments();
  void handle_assign_dirs_response(const AssignReplicasToDirsResponse& response);
  void report_failed_log_dir(std::size_t index);
  const std::string& metadata_log_dir() const;
  DirAssignments dir_assignments_;
  SimTime dir_assignments_due_ = kNever;    // the send scheduled
  std::uint64_t dir_assignments_sent_ = 0;  // requests sent (a timeout finds whether its own is still in flight)
  std::vector<LogDirMover> movers_;
  ReplicationQuota alter_log_dirs_quota_;
  bool resume_moves_ = false;  // a restart left future replicas to resume
  std::map<TopicPartition, std::size_t> preferred_dirs_;  // LogManager.preferredLogDirs: where a replica yet to come goes
  // broker_cleaner.cpp: the log cleaner's threads (LogCleaner.CleanerThread), every log.cleaner.backoff.ms
  void start_cleaner();
  void cleaner_tick();
  SimTime start_cleaning(const Replica& r, std::size_t thread, CleanedLog cleaned);  // when it is done
  void finish_cleaning(std::size_t thread);
  void drop_cleanings();  // a crash: the .cleaned files go when the broker restarts (LogLoader)
  RecordKeyOf cleaner_keys(TopicPartition tp) const;
  LogCleanerState cleaner_;
  // AbstractFetcherThread.handleOutOfRangeError: below the leader's log start, a follower starts again there.
  void restart_at_leader_start(Replica& replica, Offset leader_log_start_offset);
  const TopicSpec& topic(TopicPartition tp) const { return directory_->topics[static_cast<std::size_t>(tp.topic)]; }

  // broker_threads.cpp: network threads, request handlers, muted connections
  struct RequestChannel {
    std::deque<MessagePtr> waiting;  // arrived on the connection, not yet read (dropped if it closes)
    bool in_broker = false;          // a request is being handled or awaits its response (the channel is muted)
  };
  void start_threads();
  void reset_threads();
  void dispatch(ConnectionId connection, MessagePtr message);
  void receive_as_client(ConnectionId connection, MessagePtr message);
  enum class Unmuted { OnArrival, AfterResponse };  // why a request is read now
  void start_request(ConnectionId connection, RequestChannel& channel, Unmuted when);
  void handle_request(ConnectionId connection);
  void request_done(ConnectionId connection);
  void on_send(ConnectionId connection, const Message& message) override;
  SimTime handler_cost(const Message& request) const;
  void channel_closed(ConnectionId connection);

  // broker_produce.cpp
  // `verdicts`: after KIP-890 verification, the error for each partition that may not be written.
  using Verdicts = std::map<TopicPartition, Error>;
  void handle_produce(ConnectionId connection, std::unique_ptr<ProduceRequest> request,
                      const Verdicts* verdicts = nullptr);
  ProduceResponse::PartitionResponse append_produce(const ProduceRequest& request,
                                                    const ProduceRequest::PartitionData& data, SimTime& returns_at,
                                                    const Verdicts* verdicts);
  void complete_produces(TopicPartition tp);
  bool settle_produce(PendingProduce& pending, const Replica& replica);
  void expire_produce(std::uint64_t id);
  void fail_produces_of(TopicPartition tp, Error error);
  void finish_produce(std::uint64_t id);

  // broker_leader.cpp
  void handle_fetch(ConnectionId connection, std::unique_ptr<FetchRequest> request);
  // `session`: the follower's fetch session, whose quiet partitions are skipped (null: read every partition).
  std::unique_ptr<FetchResponse> read_for_fetch(const FetchRequest& request, FetchSession* session, bool record_fetch,
                                               std::uint64_t& bytes, bool& must_answer);
  // The partition's batches from `offset` into `data`, through the page cache; the bytes read.
  std::uint64_t read_batches(const Replica& replica, FetchResponse::PartitionData& data, Offset offset,
                             std::uint64_t max_bytes, Offset upper_bound = INT64_MAX);
  // A follower's partition; true when it is quiet (fetch_session.hpp).
  bool read_for_follower(const FetchRequest::PartitionData& p, Replica& replica, const FetchRequest& request,
                         bool record_fetch, FetchResponse& response, std::uint64_t& bytes, bool& must_answer);
  bool update_follower(Replica& replica, BrokerId follower, Offset fetch_offset);  // true if its position moved
  void wake_fetches(TopicPartition tp);
  // The same once the appends that made them ready return (`at`: a blocked write, an fsync).
  void wake_fetches_at(SimTime at, std::vector<TopicPartition> partitions);
  void wake_consumer_fetches(TopicPartition tp);
  bool read_for_consumer(const FetchRequest::PartitionData& p, const Replica& r, const FetchRequest& request,
                         FetchResponse& response, std::uint64_t& bytes, bool& must_answer);
  static FetchResponse::PartitionData& answer(FetchResponse& response, TopicPartition tp);
  FetchResponse::PartitionData& answer_error(FetchResponse& response, TopicPartition tp, Error error);
  Offset last_stable_offset(const Replica& r) const;
  void send_fetch_response(ConnectionId connection, BrokerId follower, std::unique_ptr<FetchResponse> response);
  void answer_fetch(std::uint64_t id);
  bool follower_fetch_satisfied(const PendingFetch& pending);  // replica.fetch.min.bytes there, or must answer
  void complete_fetches_of(TopicPartition tp);                 // the partition is no longer led here
  // broker_fetch_sessions.cpp: KIP-227 sessions of the followers fetching from this leader
  FetchSession& session_for(ConnectionId connection, const FetchRequest& request);
  FetchSession* existing_session(ConnectionId connection, const FetchRequest& request);
  void close_session(ConnectionId connection);
  void catch_up(const FetchSession& session, std::int32_t partition);
  void catch_up_all(const FetchSession& session);
  void catch_up_all_sessions();
  // Something a follower's fetch reads changed in this partition: its sessions read it again.
  void changed(const Replica& replica) { ++partition_changes_[static_cast<std::size_t>(global_index(replica.tp()))]; }
  std::int32_t global_index(TopicPartition tp) const { return topic_base_[static_cast<std::size_t>(tp.topic)] + tp.partition; }
  void maybe_advance_high_watermark(Replica& replica);
  void maybe_expand_isr(Replica& replica, BrokerId follower);
  void shrink_isrs();
  void propose_isr(Replica& replica, std::vector<BrokerId> isr);
  void send_alter_partition(const Replica& replica);
  void resend_alter_partitions();
  void handle_alter_partition_response(const AlterPartitionResponse& response);
  void maybe_create_topic(const MetadataRequest& request);  // broker_auto_topics.cpp
  void handle_create_topics_response(const CreateTopicsResponse& response);

  // broker_txn.cpp
  struct BrokerLink {
    ConnectionId connection = 0;
    bool connected = false;
  };
  using BrokerResponse = std::function<void(Message*)>;  // nullptr: no answer (connection closed, timed out)
  struct BrokerRequest {
    BrokerId broker;
    BrokerResponse on_response;
  };
  // AddPartitionsToTxn, AddOffsetsToTxn and EndTxn go to the transaction coordinator, if this broker runs one.
  void handle_txn_request(ConnectionId connection, const AddPartitionsToTxnRequest& request);
  void handle_txn_request(ConnectionId connection, const AddOffsetsToTxnRequest& request);
  void handle_txn_request(ConnectionId connection, const EndTxnRequest& request);
  void send_to_broker(BrokerId broker, MessagePtr request, std::int64_t correlation, BrokerResponse on_response);
  void answer_broker_request(std::int64_t correlation, Message* response);
  void broker_link_closed(ConnectionId connection);
  void handle_write_txn_markers(ConnectionId connection, const WriteTxnMarkersRequest& request);
  void write_marker(TopicPartition tp, ProducerId producer, ProducerEpoch epoch, bool commit, std::function<void(Error)> done);
  bool verify_transactional_writes(ConnectionId connection, std::unique_ptr<ProduceRequest>& request);
  void check_transactional_writes(ConnectionId connection, std::shared_ptr<ProduceRequest> held,
                                  std::vector<TopicPartition> partitions, ProducerId producer, ProducerEpoch epoch,
                                  SimTime started);
  void add_to_transaction(const std::string& transactional_id, ProducerId producer, ProducerEpoch epoch,
                          const std::vector<TopicPartition>& partitions, bool add, std::function<void(Verdicts)> done);
  // KIP-890 part 2: TxnOffsetCommit v5+ adds the group's offsets partition to the transaction first.
  void handle_txn_offset_commit(ConnectionId connection, const TxnOffsetCommitRequest& request);
  void txn_append(std::int32_t partition, std::uint64_t record_id, std::function<void(Error)> done) override;
  void write_markers(ProducerId producer, ProducerEpoch epoch, bool commit, const std::vector<TopicPartition>& partitions,
                     std::function<void(const std::vector<std::pair<TopicPartition, Error>>&)> done) override;
  ProducerId allocate_producer_id() override;
  TopicPartition offsets_partition_of(const std::string& group) const override;

  // broker_group.cpp
  GroupCoordinator& group_coordinator();  // only with __consumer_offsets: a group request comes only then
  void handle_find_coordinator(ConnectionId connection, const FindCoordinatorRequest& request);
  void handle_offsets_for_leader_epoch(ConnectionId connection, const OffsetsForLeaderEpochRequest& request);
  void record_leaders(const std::vector<PartitionState>& states);
  BrokerId leader_of(TopicPartition tp) const;
  RecordBatch coordinator_batch(std::uint64_t record_id) const;
  void internal_append(TopicPartition tp, RecordBatch batch, SimTime timeout, std::function<void(Error)> done);
  void coordinator_leadership(const Replica& replica);
  void complete_coordinator_appends(TopicPartition tp);
  void fail_coordinator_appends(TopicPartition tp, Error error);
  void finish_coordinator_append(std::uint64_t id, Error error);
  SimTime coordinator_now() const override { return now(); }
  TimerId coordinator_timer(SimTime delay, std::function<void()> callback) override;
  void coordinator_cancel(TimerId timer) override { cancel_timer(timer); }
  void coordinator_send(ConnectionId connection, MessagePtr message) override { send(connection, std::move(message)); }
  void coordinator_append(std::int32_t partition, std::uint64_t record_id, std::function<void(Error)> done) override;
  RandomStream& coordinator_rng() override { return rng(); }
  BrokerId coordinator_id() const override { return id_; }
  void coordinator_publish(const ModelEvent& event) override { publish(event); }
  std::int32_t coordinator_partition_count(std::int32_t topic) const override;  // 0: not in its metadata

  // broker_share.cpp: KIP-932's share-partition leader (SharePartitionManager)
  struct ParkedShareFetch {
    ConnectionId connection = 0;
    std::unique_ptr<ShareFetchRequest> request;
    TimerId timer;
  };
  void handle_share_fetch(ConnectionId connection, std::unique_ptr<ShareFetchRequest> request);
  void handle_share_acknowledge(ConnectionId connection, const ShareAcknowledgeRequest& request);
  SharePartition* share_partition(const std::string& group, TopicPartition tp);  // null: not the leader
  void persist_share_partition(const std::string& group, TopicPartition tp);
  std::vector<std::pair<RecordAcknowledgement, Error>> apply_acknowledgements(
      const std::string& group, const std::string& member, const std::vector<RecordAcknowledgement>& acks);
  // Acquires for a ShareFetch; null when nothing could be (the fetch waits).
  std::unique_ptr<ShareFetchResponse> try_share_fetch(const ShareFetchRequest& request, bool must_answer);
  void answer_parked_share_fetch(std::uint64_t id, bool must_answer);
  void wake_share_fetches(TopicPartition tp);
  void expire_share_locks(const std::string& group, TopicPartition tp);
  std::map<std::pair<std::string, TopicPartition>, SharePartitionEntry> share_partitions_;
  std::map<std::uint64_t, ParkedShareFetch> parked_share_fetches_;
  ShareStateStore* share_store_ = nullptr;
  std::vector<std::string> share_group_names_;  // the share groups seen, for lock timers (kept across crashes)
  ShareHistory* share_history_ = nullptr;
  bool share_changed_ = false;  // a share-partition changed since take_share_changes()
  std::uint64_t share_fetch_rotation_ = 0;  // where the next ShareFetch starts among its partitions

  // broker_follower.cpp
  Fetcher& fetcher_for(BrokerId leader, TopicPartition tp);
  void add_to_fetcher(Replica& replica);
  void remove_from_fetchers(TopicPartition tp);
  FetchRequest::PartitionData fetch_position(const Replica& replica) const;
  void update_fetch_position(Fetcher& fetcher, const Replica& replica, std::size_t& cursor);
  void move_to_end(Fetcher& fetcher, const std::vector<std::size_t>& got_data);
  void send_fetch(Fetcher& fetcher);
  void handle_fetch_response(ConnectionId connection, const FetchResponse& response);
  // Appends what a fetch response brought; `returns_at`: when the appends (a blocked write, an fsync) return.
  void apply_fetched(Replica& replica, const FetchResponse::PartitionData& data, SimTime& returns_at);
  void fetch_failed(Fetcher& fetcher);
  void delay_after_error(Fetcher& fetcher, const Replica& r);
  void wake_fetcher_at(Fetcher& fetcher);  // once the first delayed partition is ready

  void publish(const ModelEvent& event) { events_.publish(*this, event); }

  BrokerId id_;
  BrokerConfig config_;
  std::shared_ptr<const ClusterDirectory> directory_;
  ModelEventBus& events_;
  std::vector<LogDir> log_dirs_;
  std::map<TopicPartition, Replica> replicas_;
  std::vector<std::int32_t> topic_base_;      // first global partition number of each topic
  std::vector<Replica*> replica_index_;       // by global partition number; null where not hosted
  PartitionListeners partition_listeners_;
  RetentionHistory* retention_history_ = nullptr;
  CompactionHistory* compaction_history_ = nullptr;
  std::vector<std::pair<std::size_t, std::uint64_t>> deleting_;  // (log dir, bytes) awaiting file.delete.delay.ms

  // process state
  ConnectionId controller_connection_ = 0;
  bool controller_connected_ = false;
  std::size_t controller_index_ = 0;  // the controller it takes for the active one (directory_->controller_nodes)
  SimTime heartbeat_unanswered_since_ = kNever;  // the first heartbeat since the last answer
  bool controller_retry_pending_ = false;  // a retry on another controller is scheduled
  bool shutting_down_ = false;  // controlled shutdown: waiting for the controller to move leaderships
  bool refusing_requests_ = false;  // refuse_requests
  bool serve_once_registered_ = false;  // serve_once_registered
  std::int64_t zk_broker_epoch_ = -1;  // registered_in_zookeeper; -1 until this process registers
  std::set<TopicPartition> fetching_while_shutting_down_;  // ZooKeeper mode: led when the shutdown began
  bool got_shutdown_answer_ = false;  // BrokerLifecycleManager.gotControlledShutdownResponse
  SimTime last_heartbeat_sent_ = 0;
  std::int64_t metadata_offset_ = -1;  // of the last metadata update applied
  bool controller_waiting_ = false;  // quorum: requests wait for the metadata log's replica to know a leader
  // KIP-631 (broker_metadata_log.cpp): the metadata log's observer replica.
  RaftConfig metadata_raft_config_;
  std::shared_ptr<const MetadataImage> metadata_bootstrap_;  // null: no quorum, the controller pushes
  RaftPersistentState metadata_log_;  // durable: the log and election state
  std::unique_ptr<RaftHost> metadata_host_;  // a MetadataLogHost
  std::unique_ptr<RaftReplica> metadata_raft_;  // process state, as everything below
  RaftConnections metadata_connections_;
  RandomStream metadata_rng_;
  MetadataImage metadata_image_;  // the brokers' registrations replayed (no partitions: applied as they come)
  std::map<TopicPartition, const PartitionState*> catching_up_;  // before the first publish: each partition's last record
  bool metadata_published_ = false;  // applied once in this process (MetadataLoader caught up)
  SimTime published_at_ = 0;  // this process's first publish: the metadata lag counts from there
  bool previous_stop_clean_ = true;  // the last stop was a controlled shutdown (Kafka's clean shutdown file)
  std::vector<BrokerId> live_brokers_;
  std::vector<BrokerId> isr_eligible_;  // live and not in controlled shutdown
  std::map<std::uint64_t, PendingProduce> produce_purgatory_;
  std::map<std::uint64_t, PendingFetch> fetch_purgatory_;
  int consumer_fetches_waiting_ = 0;
  std::vector<std::unique_ptr<Fetcher>> fetchers_;
  bool applying_metadata_ = false;  // partitions joining fetchers wait for the rest of the update
  std::map<ConnectionId, FetchSession> fetch_sessions_;  // as a leader, by follower connection
  std::vector<std::uint32_t> partition_changes_;         // by global partition number (FetchSession)
  // By global partition number: whether it is in a fetcher's partition list,
  // so that removing a partition no fetcher holds does not scan them all
  // (a broker becoming leader of 1,000,000 partitions did, quadratically).
  std::vector<bool> in_fetcher_;
  std::uint64_t next_pending_id_ = 0;
  std::int64_t next_correlation_id_ = 0;
  std::int64_t next_producer_id_ = 0;
  std::unique_ptr<GroupCoordinator> coordinator_;  // when the cluster has __consumer_offsets
  std::unique_ptr<TxnCoordinator> txn_coordinator_;  // when it has __transaction_state
  std::vector<std::pair<BrokerId, Epoch>> leaders_;  // every partition's leader and epoch, by global partition number
  std::vector<bool> known_topics_;                 // by topic: in its metadata (empty: none applied yet)
  std::set<std::int32_t> creating_topics_;         // CreateTopics in flight (AutoTopicCreationManager.inflightTopics)
  std::map<BrokerId, BrokerLink> broker_links_;    // to other brokers: markers, KIP-890 verification
  std::map<std::int64_t, BrokerRequest> broker_requests_;
  std::map<std::uint64_t, CoordinatorAppend> coordinator_appends_;
  // CPU (broker_threads.cpp): the machine's cores and the broker's threads; null without a CPU model
  std::unique_ptr<Cpu> cpu_;
  std::unique_ptr<ThreadPool> network_threads_, io_threads_, fetcher_threads_, metadata_thread_, mover_threads_;
  std::optional<std::size_t> fetcher_thread(ConnectionId connection) const;  // of fetcher_threads_
  std::map<ConnectionId, RequestChannel> channels_;
  std::uint64_t appended_bytes_ = 0;  // everything this broker appended, for the page cache
  std::uint64_t cache_floor_ = 0;     // appended before a power loss: no longer cached
  SimTime reads_done_at_ = 0;         // when the disk reads of the fetch being answered are done
  bool answering_ = false;            // reading to answer (not to check whether a parked fetch could be)
  bool remote_read_in_fetch_ = false; // the fetch being read has its one remote read
  RemoteLogManager remote_log_{config_.remote_log};
  std::uint64_t follower_fetches_ = 0;
  std::uint64_t consumer_fetches_ = 0;
};

}  // namespace ksim::models
