#pragma once
// The cluster: one simulation built from a scenario, with its nodes (Kafka
// brokers, controller and producers; request/response servers and clients),
// fault schedule and nemesis. The driver runs it and reads its figures.
#include <functional>
#include <memory>
#include <ostream>
#include <set>
#include <vector>

#include "models/check/cluster_invariants.hpp"
#include "models/check/committed_logs.hpp"
#include "models/check/convergence.hpp"
#include "models/check/open_transaction_tracker.hpp"
#include "models/check/replication_lag_tracker.hpp"
#include "models/check/availability_tracker.hpp"
#include "models/check/failover_tracker.hpp"
#include "models/coordinator/group_conversion.hpp"
#include "models/check/log_dir_move_tracker.hpp"
#include "models/check/reassignment_tracker.hpp"
#include "models/controller/replica_assignment.hpp"
#include "app/harness/fault_paths.hpp"
#include "app/harness/protocol_coverage.hpp"
#include "models/check/time_series_tracker.hpp"
#include "app/harness/resource_usage.hpp"
#include "app/scenario/leader_target.hpp"
#include "app/scenario/scenario.hpp"
#include "models/broker/broker.hpp"
#include "models/client/consumer/consumer.hpp"
#include "models/client/share_consumer/share_consumer.hpp"
#include "models/controller/controller_quorum.hpp"
#include "models/check/delivery_checker.hpp"
#include "models/client/producer/producer.hpp"
#include "models/workloads/rpc_client.hpp"
#include "models/workloads/rpc_server.hpp"
#include "sim/faults/fault_injector.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::app {

struct RunOptions {
  spdlog::level::level_enum log_level = spdlog::level::warn;
  std::ostream* trace_out = nullptr;  // JSON lines, when asked for
  // After every event: the partitions that changed in it, or every partition (slow: for test
  // builds, cmake -DKSIM_CHECK_EVERY_PARTITION=ON, and tests that both find the same).
#ifdef KSIM_CHECK_EVERY_PARTITION
  models::ClusterInvariants::Scope invariants = models::ClusterInvariants::Scope::Everything;
#else
  models::ClusterInvariants::Scope invariants = models::ClusterInvariants::Scope::Changed;
#endif
  // Keep what ksim run --history writes beyond what the checkers need: each
  // record's send time, each fault as it fired. Changes nothing that runs.
  bool record_history = false;
};

class Cluster {
 public:
  Cluster(const Scenario& scenario, const RunOptions& options);
  // The cluster keeps a reference to its scenario: a temporary would dangle.
  Cluster(Scenario&& scenario, const RunOptions& options) = delete;

  // To the scenario's duration, then `drain` more with the producers stopped.
  void run();
  // Runs until `until` (simulated time), faults and workload as scheduled.
  void run_until(SimTime until);
  SimTime now() const { return clock_; }
  SimTime end() const;  // where run() stops: the duration, and the drain of a Kafka scenario
  // Called after every step of run_until (100ms of simulated time), for a
  // progress line; it must not touch the simulation.
  void on_step(std::function<void()> observer) { on_step_ = std::move(observer); }
  // Ends every fault now, and those still to come never start (the safety phase is over).
  void heal();
  // The liveness phase: runs until the cluster has converged (models/check/convergence.hpp:
  // the workload over, no fault in force, every partition fully replicated, every record
  // acknowledged, every group caught up), at most `timeout` more. Nullopt when it has;
  // otherwise what is still pending.
  std::optional<std::string> run_until_quiet(SimTime timeout);
  std::optional<std::string> unconverged_reason();

  const Scenario& scenario() const { return scenario_; }
  Simulation& sim() { return *sim_; }
  const Simulation& sim() const { return *sim_; }
  const FaultInjector& faults() const { return *faults_; }
  // For observers of a run (a timeline): they must not change what runs.
  FaultInjector& faults() { return *faults_; }
  // The Kafka models' typed events (null without a Kafka cluster).
  models::ModelEventBus* model_events() { return scenario_.kafka ? events_.get() : nullptr; }
  const std::vector<models::RpcServer*>& servers() const { return servers_; }
  const std::vector<models::RpcClient*>& clients() const { return clients_; }
  const std::vector<models::Broker*>& brokers() const { return brokers_; }
  // The controller, or the controller quorum (controllers.count): its committed metadata and figures.
  const models::ControllerQuorum* controller() const { return quorum_.get(); }
  // Before KRaft: the ZooKeeper server (null with KRaft).
  const models::ZooKeeperServer* zookeeper() const { return zookeeper_; }
  const std::vector<models::Producer*>& producers() const { return producers_; }
  const std::vector<models::Producer*>& transform_producers() const { return transform_producers_; }
  const models::DeliveryHistory& history() const { return history_; }
  const models::ConsumptionHistory& consumption() const { return consumption_; }
  // KIP-848's online migrations, as they happened.
  const std::vector<models::GroupConversion>& group_conversions() const { return conversions_; }
  // Each fault as it started, with its nodes' names.
  struct FiredFault {
    std::string kind;  // "crash", "partition", "disk_failure", ...
    SimTime at = 0;
    std::vector<std::string> nodes;
    Fault fault;  // as it was applied: its node and link ids, duration, kind-specific values
  };
  const std::vector<FiredFault>& fired_faults() const { return fired_faults_; }
  // What the faults hit, by kind (app/harness/fault_paths.hpp); empty without Kafka.
  FaultPathCounts fault_paths() const { return fault_paths_ ? fault_paths_->counts() : FaultPathCounts{}; }
  // The protocol states the run went through (app/harness/protocol_coverage.hpp); empty without Kafka.
  ProtocolStateCounts protocol_states() const {
    return protocol_coverage_ ? protocol_coverage_->counts() : ProtocolStateCounts{};
  }
  const std::vector<models::Consumer*>& consumers() const { return consumers_; }
  // KIP-932's share consumers, and what share groups did (app/harness/cluster_share.cpp).
  const std::vector<models::ShareConsumer*>& share_consumers() const { return share_consumers_; }
  const models::ShareHistory& share_history() const { return share_history_; }
  const models::ShareStateStore& share_state() const { return share_store_; }
  // Every invariant violation (models/check/cluster_invariants.hpp), in the order they began.
  const std::vector<models::InvariantViolation>& invariant_violations() const;
  // Replicas still diverged from their leader on committed records at the end (0 without invariants).
  std::size_t replica_divergences_at_end() const;
  // Transactions that stayed open on a partition (holding its last stable
  // offset back) longer than `threshold`, as seen every 100ms by leaders.
  std::vector<models::OpenTransaction> hanging_transactions(SimTime threshold) const {
    return open_transactions_ ? open_transactions_->hanging(threshold, sim_->now()) : std::vector<models::OpenTransaction>{};
  }
  // Committed records written by a producer epoch after a newer epoch's marker on the same partition.
  std::uint64_t zombie_writes() const { return models::zombie_writes(view()); }
  bool has_transactions() const { return transaction_topic_ >= 0; }
  // The largest gap seen between a leader's high watermark and its last stable offset (records).
  std::int64_t max_lso_lag() const { return open_transactions_ ? open_transactions_->max_lso_lag() : 0; }
  // Busy time of every resource at the end of `duration` (before the drain),
  // and at the end of the scenario's `warmup` (empty without one).
  const ResourceSample& resources_at_end_of_workload() const { return resources_; }
  const ResourceSample& resources_at_end_of_warmup() const { return warmup_resources_; }
  // How the clients started: those without a `start` once the cluster was
  // ready for them (models/check/cluster_readiness.hpp), polled every 100us,
  // or after kReadyTimeout without it (then `not_ready` says what was missing).
  struct Startup {
    bool waited = false;              // some clients waited for the cluster
    std::optional<SimTime> ready_at;  // when it was ready, if it was
    SimTime clients_started = 0;      // when the waiting clients started
    std::string not_ready;
  };
  static constexpr SimTime kReadyTimeout = 10'000'000'000;  // 10s
  const Startup& startup() const { return startup_; }
  // When the first producer started producing (its `start`, or when the cluster was ready).
  SimTime producers_started() const;
  models::FailoverFigures failover() const { return failover_.figures(sim_->now()); }
  // The scenario's operations (cluster_operations.cpp): when each reached the
  // active controller, and its answer for each partition, in the operation's order.
  struct OperationResult {
    std::size_t operation = 0;  // index into the scenario's operations
    SimTime applied_at = kNever;  // never: no active controller within default.api.timeout.ms
    std::vector<models::TopicPartition> partitions;  // what it asked the controller to change
    std::vector<models::Error> errors;               // the answer for each
    // KIP-113 moves: the broker's log dirs (path, bytes) when the operation reached
    // it, and when it had no move left in progress (never: not by the end).
    std::vector<std::pair<std::string, std::uint64_t>> log_dirs_before;
    std::vector<std::pair<std::string, std::uint64_t>> log_dirs_after_moves;
    SimTime moves_done_at = kNever;
  };
  const std::vector<OperationResult>& operation_results() const { return operation_results_; }
  // A topic's name by its index: the scenario's topics, then __consumer_offsets and __transaction_state.
  std::string topic_name(std::int32_t topic) const;
  models::ReassignmentFigures reassignments() const { return reassignments_.figures(); }
  models::LogDirMoveFigures log_dir_moves() const { return log_dir_moves_.figures(); }
  // When each partition could not be written or read, by incident (models/check/availability_tracker.hpp).
  models::AvailabilityFigures availability() const;
  // The run's figures every report.sample_interval (models/check/time_series_tracker.hpp); empty without Kafka.
  const std::vector<models::TimeSample>& time_series() const;
  // The largest gap between a leader's log end and a follower's, in records, sampled every second.
  std::int64_t max_replication_lag() const { return replication_lag_.max_lag_records(); }
  // The broker leading a group's __consumer_offsets partition now (fault target "coordinator:GROUP").
  std::optional<models::BrokerId> coordinator_of(const std::string& group) const;
  // The broker leading a transactional.id's __transaction_state partition now ("txn-coordinator:ID").
  std::optional<models::BrokerId> txn_coordinator_of(const std::string& transactional_id) const;
  // The leader of a partition in the committed metadata now; before the metadata
  // has the partition, `preferred` (its first replica); nullopt when it has no leader.
  std::optional<models::BrokerId> leader_now(models::TopicPartition tp, std::optional<models::BrokerId> preferred) const;

  // The committed log of every partition: its leader's log up to the high
  // watermark; partitions without a live leader are offline.
  models::FinalLogs final_logs() const {
    return quorum_ ? models::committed_logs(view()) : models::FinalLogs{};
  }

  // What the log cleaner did (cleanup.policy=compact), and the keys of compacted topics' records (null: none compacts).
  const models::CompactionHistory& compaction() const { return compaction_; }
  const models::RecordKeyStore* record_keys() const { return record_keys_.get(); }
  const models::RemoteStorage* remote_storage() const { return remote_storage_.get(); }  // null: no tiered topic

 private:
  Topology build_topology() const;
  static constexpr SimTime kWhenReady = -1;  // a start_time: once the cluster is ready
  SimTime start_time(const NodePlacement& placement) const;
  void poll_readiness(std::vector<NodeId> waiting);
  models::TopicSpec offsets_topic() const;
  models::TopicSpec transaction_topic() const;
  models::LogConfig internal_log_config(std::uint64_t segment_bytes) const;
  void spawn_task_producers(const KafkaSpec::ConsumerGroup& group, std::size_t first_consumer, std::uint32_t& index,
                            const std::shared_ptr<models::ClusterDirectory>& directory);
  void spawn_kafka();
  void spawn_share_consumers(const std::shared_ptr<models::ClusterDirectory>& directory);
  void spawn_rpc();
  void register_disk_faults();
  void schedule_faults();
  void schedule_operations();  // app/harness/cluster_operations.cpp
  void run_operation(std::size_t index, SimTime first_try);
  // KIP-113's alterReplicaLogDirs: to the broker itself, retried while it is down.
  void run_log_dir_operation(std::size_t index, SimTime first_try);
  void note_log_dir_moves_done(models::BrokerId broker);
  void note_broker_added(models::BrokerId broker, SimTime t);
  using PartitionChange = std::pair<models::TopicPartition, std::optional<std::vector<models::BrokerId>>>;
  std::vector<PartitionChange> operation_changes(std::size_t index);
  std::vector<models::BrokerPlacement> broker_placement_;  // for operations that place replicas anew
  void plan_nemesis();
  void track_availability();  // app/harness/availability.cpp
  void track_fault_paths();
  void track_group_conversions();  // app/harness/availability.cpp: KIP-848's online migrations
  models::ClusterView view() const {
    return {*quorum_, brokers_, internal_topics(), &retention_, &compaction_, record_keys_.get(), remote_storage_.get()};
  }
  NodeId active_controller_node() const;
  NodeId standby_controller_node() const;
  std::set<std::int32_t> internal_topics() const;
  std::vector<NodeId> resolve_nodes(const std::vector<std::string>& names) const;
  std::optional<models::BrokerId> leader_of_topic_partition(const LeaderTarget& target) const;
  std::vector<LinkId> resolve_links(const std::vector<std::string>& names) const;

  const Scenario& scenario_;
  std::vector<NodePlacement> placements_;
  std::vector<NodeId> placement_nodes_;  // the node of each placement, once spawned
  std::unique_ptr<Simulation> sim_;
  std::unique_ptr<models::ModelEventBus> events_;  // after sim_: it writes to its trace
  std::unique_ptr<FaultInjector> faults_;
  std::vector<models::RpcServer*> servers_;
  std::vector<models::RpcClient*> clients_;
  std::vector<models::Broker*> brokers_;
  std::vector<models::Controller*> controllers_;  // by their id in the quorum
  // ZooKeeper mode (app/harness/cluster_zookeeper.cpp): the ZooKeeper node and each broker's ZooKeeper side.
  models::ZooKeeperServer* zookeeper_ = nullptr;
  std::vector<models::ZkController*> zookeeper_sides_;  // by broker id
  void spawn_zookeeper(const std::shared_ptr<models::ClusterDirectory>& directory);
  void host_metadata_logs();  // app/harness/cluster_metadata_log.cpp: KIP-631's observers
  void seed_zookeeper(const std::vector<std::vector<std::vector<models::BrokerId>>>& replicas);
  using Assignment = std::vector<std::vector<std::vector<models::BrokerId>>>;  // replicas[topic][partition]
  void create_topics_when_registered(std::shared_ptr<const Assignment> replicas);
  std::unique_ptr<models::ControllerQuorum> quorum_;
  std::vector<models::Producer*> producers_;
  std::vector<models::Producer*> transform_producers_;  // consume-transform-produce applications' producers
  models::DeliveryHistory history_;
  std::vector<models::Consumer*> consumers_;
  models::ConsumptionHistory consumption_;
  models::RetentionHistory retention_;  // what retention deleted, for the checkers
  std::shared_ptr<models::RemoteStorage> remote_storage_;  // tiered storage's remote store (null: none)
  models::CompactionHistory compaction_;  // what the log cleaner removed, for the checkers
  std::shared_ptr<models::RecordKeyStore> record_keys_;
  std::vector<models::ShareConsumer*> share_consumers_;
  models::ShareHistory share_history_;
  models::ShareStateStore share_store_;  // durable: the brokers' persisted share state (__share_group_state)
  std::vector<FiredFault> fired_faults_;
  std::unique_ptr<FaultPaths> fault_paths_;
  std::unique_ptr<ProtocolCoverage> protocol_coverage_;
  std::unique_ptr<models::ClusterInvariants> invariants_;
  std::unique_ptr<models::AvailabilityTracker> availability_;
  std::int32_t offsets_topic_ = -1;
  std::int32_t transaction_topic_ = -1;
  std::unique_ptr<models::OpenTransactionTracker> open_transactions_;  // when the cluster has transactions
  models::ReplicationLagTracker replication_lag_;
  std::unique_ptr<models::Convergence> convergence_;  // made when first asked
  std::unique_ptr<models::TimeSeriesTracker> time_series_;  // with a Kafka cluster
  SimTime clock_ = 0;  // how far run_until went
  std::function<void()> on_step_;
  ResourceSample resources_;
  ResourceSample warmup_resources_;
  Startup startup_;
  models::FailoverTracker failover_;
  std::vector<models::GroupConversion> conversions_;
  models::ReassignmentTracker reassignments_;
  models::LogDirMoveTracker log_dir_moves_;
  std::vector<OperationResult> operation_results_;
  std::vector<std::vector<models::BrokerId>> offsets_replicas_;
  std::vector<std::vector<models::BrokerId>> transaction_replicas_;
};

}  // namespace ksim::app
