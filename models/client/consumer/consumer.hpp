#pragma once
// A Kafka consumer (KafkaConsumer) and the application around it.
//
// The client: with a group.id and no fixed partitions it subscribes and is a
// member of a consumer group (Kafka's ConsumerCoordinator on the classic
// protocol): it finds the group's coordinator, joins (JoinGroup, SyncGroup;
// as leader it runs the assignor), heartbeats every heartbeat.interval.ms
// from a background thread (KIP-62), leaves the group when the application
// has not polled within max.poll.interval.ms, and rebalances eagerly or
// cooperatively (KIP-429) depending on partition.assignment.strategy. With
// fixed partitions it is assigned them (KafkaConsumer.assign). It fetches
// from partition leaders (fetch.min.bytes, fetch.max.wait.ms,
// max.partition.fetch.bytes, fetch.max.bytes), reads up to the high
// watermark, starts from the committed offset or auto.offset.reset, and
// validates its position after a leader change (KIP-320).
//
// The application: a poll loop taking up to max.poll.records, each record
// taking a processing time, committing as the scenario says (auto-commit of
// the previous poll's positions, or a commit before or after processing,
// sync or async). Rebalance callbacks run inside poll(), as in Kafka.
//
// Files: consumer.cpp (application loop, positions, fetching),
// consumer_group.cpp (membership), consumer_commit.cpp (offset commits),
// consumer_transform.cpp (the consume-transform-produce application).
#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/dynamic_bitset.hpp>

#include "models/protocol/cluster_directory.hpp"
#include "models/history/consumption_history.hpp"
#include "models/client/consumer/fetch_session_handler.hpp"
#include "models/protocol/consumer_group_messages.hpp"
#include "models/protocol/group_messages.hpp"
#include "models/client/kafka_client.hpp"
#include "models/client/producer/producer.hpp"
#include "sim/random/distribution.hpp"
#include "sim/core/node.hpp"

namespace ksim::models {

enum class OffsetReset { Earliest, Latest, None };  // auto.offset.reset

struct ConsumerConfig {
  bool allow_auto_create_topics = true;  // allow.auto.create.topics (KIP-361, 2.3+; before, always)
  std::string group_id;                              // group.id (empty: no group)
  std::optional<std::string> group_instance_id;      // group.instance.id (KIP-345); "{name}" is the consumer's name
  SimTime session_timeout = seconds(45);             // session.timeout.ms (10s before Kafka 3.0)
  SimTime heartbeat_interval = seconds(3);           // heartbeat.interval.ms
  SimTime max_poll_interval = minutes(5);            // max.poll.interval.ms
  bool enable_auto_commit = true;                    // enable.auto.commit
  SimTime auto_commit_interval = seconds(5);         // auto.commit.interval.ms
  std::vector<std::string> partition_assignment_strategy{"range", "cooperative-sticky"};  // partition.assignment.strategy
  // group.protocol: consumer (KIP-848, 4.0+) joins with ConsumerGroupHeartbeat
  // and the broker assigns; classic (the default) with JoinGroup and SyncGroup.
  bool consumer_protocol = false;
  std::string remote_assignor;                       // group.remote.assignor ("": the broker's default)
  std::uint64_t fetch_min_bytes = 1;                 // fetch.min.bytes
  SimTime fetch_max_wait = milliseconds(500);        // fetch.max.wait.ms
  std::uint64_t max_partition_fetch_bytes = 1048576; // max.partition.fetch.bytes
  std::uint64_t fetch_max_bytes = 52428800;          // fetch.max.bytes
  int max_poll_records = 500;                        // max.poll.records
  OffsetReset auto_offset_reset = OffsetReset::Latest;  // auto.offset.reset
  bool read_committed = false;                       // isolation.level: read_committed (or read_uncommitted)
  SimTime request_timeout = seconds(30);             // request.timeout.ms
  SimTime default_api_timeout = seconds(60);         // default.api.timeout.ms (commitSync gives up then)
  SimTime retry_backoff = milliseconds(100);         // retry.backoff.ms
  SimTime retry_backoff_max = seconds(1);            // retry.backoff.max.ms (KIP-580): metadata refreshes
  SimTime reconnect_backoff = milliseconds(50);      // reconnect.backoff.ms
  SimTime reconnect_backoff_max = seconds(1);        // reconnect.backoff.max.ms (KIP-144)
  SimTime connection_setup_timeout = seconds(10);    // socket.connection.setup.timeout.ms (KIP-601; the kernel's 127 s before 2.7)
  // The consumer's release's mechanisms: KIP-951 (take the leader a fetch error names).
  Mechanisms mechanisms;
};

// The network client's share of the config (request.timeout.ms and the backoffs).
ClientTimeouts client_timeouts(const ConsumerConfig& config);

// When the application commits, besides auto-commit (enable.auto.commit).
enum class CommitStrategy {
  None,               // only auto-commit, if enabled
  SyncBeforeProcess,  // commitSync() right after poll(): at-most-once
  SyncAfterProcess,   // commitSync() after processing the poll's records: at-least-once
  AsyncAfterProcess,  // commitAsync() after processing: at-least-once, fewer stalls, more duplicates
  Transactional,      // consume-transform-produce: outputs and offsets in one transaction (KIP-447)
};
std::string_view to_string(CommitStrategy strategy);

// KIP-848's member states on the client (MemberState.java of the consumer;
// PREPARE_LEAVING is folded into Leaving), and the transitions its
// getPreviousValidStates allows.
enum class ConsumerMembership { Unsubscribed, Joining, Reconciling, Acknowledging, Stable, Fenced, Leaving, Stale };
std::string_view to_string(ConsumerMembership state);
bool legal(ConsumerMembership from, ConsumerMembership to);

struct ConsumerWorkload {
  std::int32_t topic = 0;
  std::vector<std::int32_t> partitions;  // assigned (KafkaConsumer.assign); empty: subscribe with the group
  Distribution processing_time = Distribution::constant(0);  // per record
  ClientCpuCosts cpu;  // the client machine: poll() deserialises each record and parses each fetch response
  CommitStrategy commit = CommitStrategy::None;
  // Consume-transform-produce: each record processed sends one record of this size to
  // output_topic (same partition number, modulo), through the consumer's producer.
  std::int32_t output_topic = -1;
  std::uint64_t output_record_bytes = 200;
  // sendOffsetsToTransaction with the consumer's group metadata (KIP-447, Kafka 2.5+);
  // false: the older API with only the group id, which cannot fence a zombie member.
  bool send_group_metadata = true;
  // A transaction commits after this many records or this much time (as Kafka
  // Streams' commit.interval.ms), whichever comes first; 0 and 0: after every poll.
  std::uint64_t records_per_transaction = 0;
  SimTime commit_interval = 0;
  SimTime warmup_end = 0;  // records produced before it are measured apart (the scenario's `warmup`)
};

class Consumer final : public KafkaClient {
 public:
  Consumer(Simulation& sim, std::string name, HostId host, std::uint32_t index, ConsumerConfig config,
           ConsumerWorkload workload, std::shared_ptr<const ClusterDirectory> directory, ModelEventBus& events,
           ConsumptionHistory& history);

  std::uint32_t index() const { return index_; }  // in the consumption history
  std::uint64_t records_processed() const { return processed_; }
  SimTime cpu_ns() const { return cpu_ns_; }  // poll()'s work with client CPU costs
  // From the producer's batch to poll() returning the record (kafka-e2e-latency's measure).
  const Histogram& end_to_end_latency() const { return e2e_latency_; }
  // The most bytes of fetched records held at once, waiting for poll(): up to
  // max.partition.fetch.bytes per partition, fetch.max.bytes per response.
  std::uint64_t fetch_buffer_peak_bytes() const { return fetch_buffer_peak_bytes_; }
  const Histogram& warmup_end_to_end_latency() const { return e2e_warmup_latency_; }  // of records produced in the warm-up
  // When poll() first and last returned records (kNever, 0 before any).
  SimTime first_record_at() const { return first_record_at_; }
  SimTime last_record_at() const { return last_record_at_; }
  const ConsumerConfig& config() const { return config_; }
  const ConsumerWorkload& workload() const { return workload_; }
  bool in_group() const { return group_mode_; }
  // The configs the consumer restarts with (a deployment of new settings,
  // such as a rolling upgrade to group.protocol=consumer): from its first
  // restart on (the client's timeouts too). Same group.id as `config`.
  void set_restart_config(ConsumerConfig config) { restart_config_ = std::move(config); }
  // The application's producer (the same process: it crashes, pauses and restarts with the consumer).
  void set_output(Producer* producer) { output_ = producer; }
  // A producer paced by this consumer (ProducerWorkload::paced_by_consumer):
  // told whenever poll() returns one of its records.
  void add_paced_producer(Producer* producer) { paced_producers_.push_back(producer); }
  // EOS-v1 (Kafka Streams before KIP-447): a producer per input partition, created when
  // the partition is assigned (initTransactions fences the previous owner's), closed when it goes.
  void set_task_producers(std::vector<Producer*> producers) { task_producers_ = std::move(producers); }
  // Whether `producer` lives in this consumer's process (its output or an EOS-v1 task producer).
  bool owns(const Producer* producer) const {
    return producer == output_ || std::find(task_producers_.begin(), task_producers_.end(), producer) != task_producers_.end();
  }

 private:
  enum class PositionState { Unknown, FetchingCommitted, NeedsReset, Resetting, NeedsValidation, Validating, Valid };
  enum class AppState { Polling, Committing, Processing, Closing, Stopped };
  enum class MemberState { Unjoined, Joining, Syncing, Stable };
  enum class AfterCommit { Poll, Process, Rejoin, Revoke, Close };
  using Membership = ConsumerMembership;
  struct Buffered {
    Offset offset;
    Epoch epoch;
    std::uint32_t writer;
    std::uint64_t record;
    std::uint32_t bytes;
    SimTime created;  // the batch's create time: the producer closed it then
  };
  struct PartitionState {
    PositionState position_state = PositionState::Unknown;
    Offset position = -1;        // next offset to fetch
    Offset consumed = -1;        // next offset poll() returns: what a commit stores
    Epoch consumed_epoch = -1;   // leader epoch of the last consumed record (KIP-320)
    Epoch validated_epoch = -1;  // the leader epoch the position was last validated against
    std::deque<Buffered> buffer;
    std::uint64_t buffered_bytes = 0;  // of the records in `buffer`
    std::int64_t request_correlation = -1;  // the last fetch, ListOffsets or validation asked for it
    BrokerId asked = kNoBroker;  // where the last ListOffsets or validation for it went
    PositionResetCause reset_cause = PositionResetCause::NoCommittedOffset;  // why it needs auto.offset.reset
  };
  struct CommitInFlight {
    std::vector<CommittedOffset> offsets;
    bool sync = false;
    bool sent = false;  // false: waiting for a coordinator
    SimTime give_up_at = 0;  // commitSync's timeout: default.api.timeout.ms, or the join-prepare timer
    std::int32_t generation = -1;
    bool auto_commit = false;  // enable.auto.commit's: a retriable failure tries again after retry.backoff.ms
  };

  // consumer.cpp: lifecycle, application loop, positions, fetching
  void on_start() override;
  void on_crash(CrashKind kind) override;
  void on_shutdown_requested() override;
  void on_pause() override;
  void on_resume() override;
  void end_transform_batch();
  bool transaction_may_go_on() const;
  void forget_transaction();
  void rewind_to_committed();
  void on_message(ConnectionId connection, MessagePtr message) override;
  void on_connection_closed(ConnectionId connection) override;
  int requests_in_flight(BrokerId broker) const override;  // its fetch, and a metadata request
  void begin_close();
  void finish_close();
  // A fatal error: the application's poll() throws and it stops consuming
  // (recorded with `reason`, the request and the error, for the report).
  void stop(std::string_view reason);
  void record_event(ConsumerEventKind kind, std::string reason = {}) {
    history_.consumer_events.push_back({index_, kind, now(), std::move(reason)});
  }
  bool stopped() const { return app_ == AppState::Stopped; }
  void wake_app();
  void poll();
  bool take_records();
  void process_next();
  void record_processed();
  void finished_processing();
  void arm_poll_timer();
  void own(std::int32_t partition);
  void disown(std::int32_t partition, bool lost);
  void update_positions();
  void reset_positions();
  void handle_list_offsets(const ListOffsetsResponse& response);
  void expire_request(std::int64_t correlation, PositionState waiting, PositionState again);
  PartitionState* accept_answer(TopicPartition tp, Error error, std::int64_t correlation, PositionState waiting,
                                PositionState again);
  void validate_positions();
  void handle_offsets_for_leader_epoch(const OffsetsForLeaderEpochResponse& response);
  void send_fetches();
  std::unique_ptr<FetchRequest> new_fetch_request() const;
  void handle_fetch(const FetchResponse& response);
  bool send_to(BrokerId broker, MessagePtr request);
  std::optional<ConnectionId> connection_to(BrokerId broker);  // connects if need be; nullopt: retry later
  void retry_soon();

  // consumer_group.cpp: membership
  void find_coordinator();
  void handle_find_coordinator(const FindCoordinatorResponse& response);
  bool coordinator_ready() const { return coordinator_ != kNoBroker && coordinator_connected_; }
  void coordinator_unknown(std::string_view why);
  void coordinator_lookup_failed(Error error);  // a FindCoordinator failed: unsent async commits fail (classic)
  void send_to_coordinator(MessagePtr request);
  bool maybe_rejoin();
  void send_join_group();
  void handle_join_group(const JoinGroupResponse& response);
  void handle_sync_group(const SyncGroupResponse& response);
  void apply_assignment(const std::vector<TopicPartition>& assignment);
  void revoke(const std::vector<std::int32_t>& partitions);
  void revoke_all();
  void lose_all_partitions();
  void request_rejoin(std::string reason);
  std::int32_t known_topic_partitions() const;  // its topic's partitions, as its metadata has them
  void check_assignment_snapshot();
  void reset_generation(bool forget_member_id, std::string reason);
  void heartbeat_tick();
  void heartbeat_failed();
  void heartbeat_retry();
  void send_heartbeat();
  void handle_heartbeat(const HeartbeatResponse& response);
  void poll_timeout_expired(SimTime polled_at);
  bool leave_group(std::string_view reason);  // true when a LeaveGroup was sent
  void fenced();
  MemberIdentity identity() const;
  // ConsumerCoordinator.groupMetadata: the identity as of the last
  // onJoinComplete (in poll), what the application hands to
  // sendOffsetsToTransaction (KIP-447); kept when the generation is reset.
  MemberIdentity group_metadata() const { return group_metadata_; }
  bool is_dynamic_member() const { return !config_.group_instance_id.has_value(); }
  // The member's own part in a rebalance begins or ends (the history's per-member rebalance time).
  void member_rebalance(bool in);

  // consumer_membership.cpp: KIP-848's protocol (ConsumerMembershipManager,
  // HeartbeatRequestManager): heartbeats, reconciliation, leaving
  void membership_to(Membership next);
  void start_membership();
  void schedule_consumer_heartbeat(SimTime delay);
  void send_consumer_heartbeat();
  void handle_consumer_heartbeat(const ConsumerGroupHeartbeatResponse& response);
  void consumer_fenced(std::string_view reason);
  bool reconcile();  // in poll(): true when the application is now blocked (the revocation's commit)
  void finish_reconciliation();
  bool consumer_leave(std::string_view reason);
  void consumer_poll_timeout();
  void forget_membership();
  std::vector<TopicPartition> owned_partitions() const;

  // consumer_commit.cpp: offset commits and committed offsets
  bool can_commit() const { return !config_.group_id.empty(); }
  // The application commits in onPartitionsRevoked (the commit-after-process strategies do, as Kafka advises).
  bool commits_on_revocation() const {
    return workload_.commit == CommitStrategy::SyncAfterProcess || workload_.commit == CommitStrategy::AsyncAfterProcess;
  }
  std::vector<CommittedOffset> consumed_offsets_of(const std::vector<std::int32_t>& partitions) const;
  Error commit_precheck() const;
  std::vector<CommittedOffset> consumed_offsets() const;
  void commit_sync(std::vector<CommittedOffset> offsets, AfterCommit then, SimTime timeout = -1);
  void commit_sync_timed_out(std::int64_t correlation);
  void commit_async(std::vector<CommittedOffset> offsets, bool auto_commit = false);
  void auto_commit_failed();
  void send_commit(std::int64_t correlation);
  void handle_offset_commit(const OffsetCommitResponse& response);
  void fail_commit(std::int64_t correlation, Error error);
  void commit_done(bool ok);
  void maybe_auto_commit();
  void fetch_committed_offsets();
  void handle_offset_fetch(const OffsetFetchResponse& response);

  std::uint32_t index_;
  ConsumerConfig config_;
  std::optional<ConsumerConfig> restart_config_;
  ConsumerWorkload workload_;
  ConsumptionHistory& history_;
  Producer* output_ = nullptr;
  std::vector<Producer*> paced_producers_;
  std::vector<Producer*> task_producers_;  // EOS-v1: by input partition
  bool transforms() const { return output_ || !task_producers_.empty(); }
  Producer* output_for(std::int32_t partition) const {
    return task_producers_.empty() ? output_ : task_producers_[static_cast<std::size_t>(partition)];
  }
  std::vector<Producer*> all_outputs() const;
  bool outputs_ready();
  void end_task_transactions(std::vector<CommittedOffset> offsets, std::function<void(bool)> finished);
  bool group_mode_;
  RebalanceProtocol protocol_kind_;  // from partition.assignment.strategy (KIP-429)
  std::uint64_t processed_ = 0;

  // --- process state, lost on a crash ---
  std::map<std::int32_t, PartitionState> partitions_;  // the assignment
  AppState app_ = AppState::Polling;
  bool close_requested_ = false;
  bool wake_scheduled_ = false;
  bool retry_pending_ = false;
  std::vector<ProcessedRecord> in_process_;  // this poll's records, processed one after another
  std::uint64_t poll_bytes_ = 0;             // their size
  // Some partition's position needs work (a committed offset, a reset, a
  // validation): update_positions() looks at every partition only then, or
  // when the metadata changed.
  bool positions_pending_ = true;
  std::uint64_t positions_metadata_ = ~0ULL;
  void set_position_state(PartitionState& state, PositionState s) {
    state.position_state = s;
    if (s != PositionState::Valid) positions_pending_ = true;
  }
  // One fetch at a time per broker, as Kafka's consumer (AbstractFetch skips
  // nodes with a pending fetch request): by broker, the correlation id in flight.
  std::map<BrokerId, std::int64_t> fetch_in_flight_;
  std::vector<FetchSessionHandler> fetch_sessions_;  // by broker (KIP-227)
  bool send_fetch(BrokerId broker, std::unique_ptr<FetchRequest> request);
  void fetch_answered(std::int64_t correlation);
  bool fetch_in_flight(std::int64_t correlation) const;
  // In the fetch in flight to its leader (its last request was that fetch).
  bool fetching(const PartitionState& state) const { return fetch_in_flight(state.request_correlation); }
  // The assigned partitions by leader, in partition order: what send_fetches() looks at.
  using FetchPlan = std::vector<std::vector<std::pair<std::int32_t, PartitionState*>>>;
  const FetchPlan& fetch_plan();
  FetchPlan fetch_plan_;
  std::uint64_t fetch_plan_metadata_ = ~0ULL;
  std::uint64_t assignment_version_ = 0;
  // The assigned partitions' states by partition number (null: not assigned),
  // rebuilt when the assignment changes: the fetch path looks up thousands.
  PartitionState* assigned(std::int32_t partition);
  std::vector<PartitionState*> assigned_index_;
  std::uint64_t assigned_index_version_ = ~0ULL;
  std::uint64_t fetch_plan_assignment_ = ~0ULL;
  std::size_t next_to_process_ = 0;
  std::int32_t next_poll_partition_ = 0;  // where the next poll starts collecting
  using Partitions = boost::dynamic_bitset<>;
  Partitions buffered_;  // by partition: fetched records not yet returned by poll()
  std::map<std::int32_t, CommittedOffset> poll_offsets_;  // the positions after the open transaction's records
  std::uint64_t txn_records_ = 0;                          // records processed in the open transaction
  SimTime txn_started_ = kNever;
  SimTime last_poll_ = 0;
  SimTime next_auto_commit_ = 0;
  std::int64_t offset_fetch_correlation_ = -1;
  // the commitSync the application is blocked in, and what it does next
  std::int64_t sync_commit_correlation_ = -1;
  AfterCommit after_commit_ = AfterCommit::Poll;
  std::vector<std::int32_t> revoking_;  // cooperative: revoked once the listener's commit returns
  std::map<std::int64_t, CommitInFlight> commits_;
  // group membership
  BrokerId coordinator_ = kNoBroker;
  ConnectionId coordinator_connection_ = 0;
  bool coordinator_connected_ = false;
  std::int64_t find_correlation_ = -1;
  ConnectionId find_connection_ = 0;
  SimTime find_backoff_until_ = 0;  // retry.backoff.ms after losing the coordinator
  MemberState member_ = MemberState::Unjoined;
  std::string member_id_;
  std::int32_t generation_ = -1;
  MemberIdentity group_metadata_;  // see group_metadata()
  std::string protocol_;
  bool rejoin_needed_ = true;
  bool in_member_rebalance_ = false;  // between RebalanceJoined and AssignmentSettled
  std::string rejoin_reason_ = "initial join";
  std::int32_t assigned_topic_partitions_ = -1;  // the leader's assignment snapshot (-1: not the leader)
  SimTime join_backoff_until_ = 0;
  std::vector<TopicPartition> last_assignment_;  // the sticky assignors' memory of the previous assignment
  std::int64_t group_correlation_ = -1;  // the JoinGroup or SyncGroup in flight
  std::optional<std::vector<TopicPartition>> new_assignment_;  // from SyncGroup; applied inside poll()
  std::int64_t heartbeat_correlation_ = -1;
  // KIP-848 (group.protocol=consumer); generation_ holds the member epoch
  Membership membership_ = Membership::Unsubscribed;
  std::set<std::int32_t> target_;  // the partitions the coordinator last assigned
  bool reconciling_ = false;       // a reconciliation waits for its revocation's commit
  std::int64_t cg_heartbeat_correlation_ = -1;
  std::uint64_t cg_heartbeat_token_ = 0;  // the armed heartbeat timer (older ones are void)
  SimTime cg_heartbeat_interval_ = seconds(5);  // as the coordinator last said
  bool heartbeat_retrying_ = false;  // a retry.backoff.ms check is armed (Heartbeat.failHeartbeat)
  std::int32_t heartbeat_generation_ = -1;
  SimTime last_heartbeat_response_ = 0;
  SimTime cpu_ns_ = 0;
  Histogram e2e_latency_;
  std::uint64_t fetch_buffer_peak_bytes_ = 0;
  std::uint64_t buffered_bytes_ = 0;  // the sum of partitions_' buffered_bytes, kept as they change
  Histogram e2e_warmup_latency_;
  SimTime first_record_at_ = kNever;
  SimTime last_record_at_ = 0;
};

}  // namespace ksim::models
