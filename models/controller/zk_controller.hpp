#pragma once
// A broker's ZooKeeper side in the releases before KRaft (KafkaZkClient,
// KafkaController, ZkReplicaStateMachine, ZkPartitionStateMachine): the
// broker process's one ZooKeeper session, its registration, and the
// controller it becomes when it wins the election. It runs beside its broker
// on the same host and shares its fate (the harness crashes, pauses and cuts
// them together, as the one process they are in Kafka).
//
// - Registration: an ephemeral /brokers/ids/N. A process restarted while its
//   previous session lives finds the znode taken (NODEEXISTS): Kafka's broker
//   exits and its supervisor starts it again; here it tries again every
//   second. Until the old session expires the controller sees no change: the
//   broker stays registered, and in every ISR it was in.
// - Election: the first to create the ephemeral /controller, bumping
//   /controller_epoch at its version in the same multi, is the controller;
//   the others watch /controller and try again when it goes.
// - Failover (onControllerFailover): the new controller reads the live
//   brokers and every partition's state from ZooKeeper before it acts (one
//   read after another before 1.1, pipelined from 1.1, KAFKA-5642), sends
//   every broker the metadata, then elects leaders for partitions whose
//   leader is gone and drops dead replicas from ISRs.
// - Broker changes (the /brokers/ids watch, processBrokerChange): new, dead
//   and (from 2.2, KIP-380, by broker epoch) bounced brokers; a dead
//   broker's partitions get new leaders from their live ISR (unclean: any
//   live replica, when the topic allows), its other ISRs shrink; each change
//   is written to ZooKeeper at the znode's version before brokers hear it.
// - ISR changes: from 2.7 (KIP-497, AlterIsr) a leader asks the controller,
//   which writes ZooKeeper at the partition's version; before, the leader's
//   own ZooKeeper side writes it (Partition.updateIsr) and records an ISR
//   change notification every 2.5 s (ReplicaManager.maybePropagateIsrChanges),
//   which the controller reads to tell every broker.
// - Controlled shutdown (zk_controlled_shutdown.cpp): a clean stop first asks
//   the controller to move the broker's leaderships, then closes the session.
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "models/controller/controller.hpp"
#include "models/controller/replica_assignment.hpp"
#include "models/controller/zk_data.hpp"
#include "models/events/model_event_bus.hpp"
#include "models/protocol/cluster_directory.hpp"
#include "models/protocol/kafka_messages.hpp"
#include "models/zookeeper/zk_client.hpp"
#include "sim/core/node.hpp"

namespace ksim::models {

struct ZkControllerConfig {
  SimTime session_timeout = seconds(18);  // zookeeper.session.timeout.ms (6 s before 2.5)
  bool pipelined_reads = true;            // KAFKA-5642 (1.1): the controller's ZooKeeper requests are asynchronous
  bool broker_epochs = true;              // KIP-380 (2.2): a bounced broker is told from its registration's zxid
  bool alter_isr = true;                  // KIP-497 (2.7): leaders ask the controller to change an ISR
  bool serve_once_registered = true;      // KAFKA-6772 (2.0): the broker reads requests once registered
  bool controlled_shutdown = true;        // controlled.shutdown.enable
  std::int32_t controlled_shutdown_max_retries = 3;        // controlled.shutdown.max.retries
  SimTime controlled_shutdown_retry_backoff = seconds(5);  // controlled.shutdown.retry.backoff.ms
  SimTime request_timeout = seconds(30);  // request.timeout.ms (the broker's, for its ControlledShutdown)
};

// Not Kafka's names: whether this broker's side is the active controller.
enum class ZkControllerRole : std::uint8_t { Unregistered, Candidate, Loading, Active };
std::string_view to_string(ZkControllerRole role);

struct ZkControllerStats {
  std::uint64_t elections_won = 0;        // became the controller
  std::uint64_t registration_conflicts = 0;  // NODEEXISTS: its previous session still held /brokers/ids/N
  std::uint64_t leader_elections = 0;
  std::uint64_t unclean_elections = 0;
  std::uint64_t isr_writes = 0;           // partition states written to ZooKeeper
  std::uint64_t stale_writes = 0;         // BADVERSION: the znode changed since it was read
  std::uint64_t pushes_resent = 0;        // sent again on a new connection: the one they went on was lost unanswered
  SimTime last_load_time = 0;             // the last failover's reading of ZooKeeper
};

class ZkController final : public Node, private ZkClientHost {
 public:
  ZkController(Simulation& sim, std::string name, HostId host, BrokerId broker, ZkControllerConfig config,
               std::shared_ptr<const ClusterDirectory> directory, NodeId zookeeper, ModelEventBus& events);

  BrokerId broker_id() const { return broker_; }
  ZkControllerRole role() const { return role_; }
  bool is_active() const { return role_ == ZkControllerRole::Active && is_running(); }
  std::int32_t controller_epoch() const { return epoch_; }
  const std::map<TopicPartition, PartitionState>& partitions() const { return partitions_; }  // as the controller holds them
  const ZkControllerStats& stats() const { return stats_; }
  // The figures every controller reports (elections, ISR changes, the longest wait for a leader).
  const ControllerStats& controller_stats() const { return controller_stats_; }
  std::int32_t partition_count(std::int32_t topic) const {
    return directory_->topics[static_cast<std::size_t>(topic)].partitions;
  }
  const ZkClient& zookeeper_client() const { return zk_; }
  // Told true when its registration is taken by the process's previous
  // session (NODEEXISTS), false once it registers: its broker refuses every
  // request meanwhile (Broker::refuse_requests), as a process whose startup
  // failed there serves nothing.
  std::function<void(bool)> on_registration_conflict;
  // Told its registration's czxid (the broker epoch, KIP-380) once it registers.
  std::function<void(std::int64_t)> on_registered;

  // KIP-455 (2.4+) on this controller (zk_reassignment.cpp): the Admin API's
  // alterPartitionReassignments for one partition, `target` the new replicas,
  // nullopt to cancel. NOT_CONTROLLER unless active.
  Error alter_partition_reassignment(TopicPartition tp, const std::optional<std::vector<BrokerId>>& target);
  bool reassigning(TopicPartition tp) const { return reassigning_.contains(tp); }
  // The Admin API's CreateTopics for a topic of the directory the cluster did
  // not start with (zk_topics.cpp): placed over the live brokers, written to
  // ZooKeeper; the controller's topic watch creates its partitions.
  Error create_topic(std::int32_t topic, RandomStream& rng);
  // The brokers topics are placed over (their racks), as the harness placed the first topics.
  void place_topics_over(std::vector<BrokerPlacement> placement) { placement_ = std::move(placement); }

 private:
  // Node
  void on_start() override;
  void on_crash(CrashKind kind) override;
  void on_shutdown_requested() override;
  void on_message(ConnectionId connection, MessagePtr message) override;
  void on_connection_closed(ConnectionId connection) override;
  // ZkClientHost
  SimTime zk_now() const override { return now(); }
  RandomStream& zk_random() override { return rng(); }
  ConnectionId zk_connect() override { return connect(zookeeper_); }
  void zk_send(ConnectionId connection, MessagePtr message) override { send(connection, std::move(message)); }
  void zk_close(ConnectionId connection) override { close(connection); }
  TimerId zk_set_timer(SimTime delay, TimerCallback callback) override { return set_timer(delay, std::move(callback)); }
  void zk_cancel_timer(TimerId id) override { cancel_timer(id); }

  // registration and election (zk_controller.cpp)
  void session_established();
  void register_broker();
  void elect();
  void watch_controller();
  void failover();
  void topics_read(const std::vector<std::string>& topics, SimTime started);
  // getReplicaAssignmentForTopics: each topic znode's assignment, pipelined from 1.1 (KAFKA-5642).
  void read_assignments(std::vector<std::int32_t> topics, std::function<void()> done);
  // The partition's replicas as the assignment the controller read has them.
  void assign(PartitionState& state) const;
  void load_partitions(std::vector<TopicPartition> remaining, SimTime started);
  void finish_loading(SimTime started);
  void resign();

  // controlled shutdown (zk_controlled_shutdown.cpp): the stopping broker's side, and the controller's
  using ShutdownReply = std::function<void(Error, const std::vector<TopicPartition>& remaining)>;
  void try_controlled_shutdown();
  void controlled_shutdown_answered(Error error, std::size_t remaining);
  void controlled_shutdown_failed();
  void end_shutdown_attempt();
  void close_session_and_stop();
  void stop_broker_then_close();
  void on_handed_over(Node& broker) override;
  void controlled_shutdown(BrokerId broker, ShutdownReply reply);
  void handle_controlled_shutdown(ConnectionId connection, const ControlledShutdownRequest& request);

  // topic creation (zk_topics.cpp)
  std::optional<std::vector<std::vector<BrokerId>>> place_topic(std::int32_t topic, const std::vector<BrokerId>& alive,
                                                                RandomStream& rng) const;
  void write_topic(std::int32_t topic, const std::vector<std::vector<BrokerId>>& replicas, std::function<void(Error)> done);
  void handle_create_topics(ConnectionId connection, const CreateTopicsRequest& request);

  // partition reassignment (zk_reassignment.cpp)
  using Mutation = std::function<bool(PartitionState&)>;  // false: nothing to write
  void on_partition_reassignment(TopicPartition tp, zk_data::PartitionAssignment reassignment);
  void check_reassignment(TopicPartition tp, bool begins);
  void complete_reassignment(TopicPartition tp);
  void remove_from_isr(TopicPartition tp, std::vector<BrokerId> removed, std::function<void()> then);
  void write_assignment(std::int32_t topic);
  void resume_reassignments(const std::function<bool(const zk_data::PartitionAssignment&)>& which);
  void change_state(TopicPartition tp, Mutation mutate, std::function<void()> then);
  zk_data::PartitionAssignment& assignment_of(TopicPartition tp);

  // the controller's work (zk_controller_changes.cpp)
  void topic_change();
  void create_partition_states(std::int32_t topic);
  void broker_change();
  void brokers_read(std::map<BrokerId, std::int64_t> current);
  void on_broker_failure(const std::vector<BrokerId>& dead);
  void on_broker_startup(const std::vector<BrokerId>& started);
  void elect_offline_partitions();
  BrokerId choose_leader(const PartitionState& state) const;
  void write_state(PartitionState proposed, std::function<void(bool)> done = nullptr);
  void isr_change_notifications();
  void log_dir_events();
  void replicas_offline(BrokerId broker, const std::vector<TopicPartition>& partitions);
  // ControllerContext.isReplicaOnline: registered, not shutting down, its log dir online.
  bool usable(BrokerId broker, TopicPartition tp) const {
    return live(broker) && !shutting_down_.contains(broker) && !offline_replicas_.contains({tp, broker});
  }
  void handle_alter_isr(ConnectionId connection, const AlterPartitionRequest& request);
  void leader_writes_isr(ConnectionId connection, const AlterPartitionRequest& request);
  void propagate_isr_changes();
  std::vector<BrokerId> live_brokers() const;

  // the channels to the brokers (zk_controller_channels.cpp)
  void push(const std::vector<PartitionState>& states, const std::vector<BrokerId>& to);
  void push_all(const std::vector<BrokerId>& to);
  void flush_pushes();
  void open_channel(BrokerId broker);
  bool channel_closed(ConnectionId connection);
  void channel_answered(ConnectionId connection);
  void remove_channels(const std::vector<BrokerId>& brokers);
  void close_channels();
  bool live(BrokerId broker) const { return live_.contains(broker); }
  void publish(const ModelEvent& event) { events_.publish(*this, event); }

  BrokerId broker_;
  ZkControllerConfig config_;
  std::shared_ptr<const ClusterDirectory> directory_;
  NodeId zookeeper_;
  ModelEventBus& events_;
  ZkClient zk_;
  std::map<std::int32_t, std::vector<zk_data::PartitionAssignment>> assignment_;  // by topic, as read from ZooKeeper
  std::vector<BrokerPlacement> placement_;
  ZkControllerRole role_ = ZkControllerRole::Unregistered;
  std::uint64_t generation_ = 0;  // a resignation outdates what the controller started before
  bool registration_conflict_ = false;  // NODEEXISTS at registration: not started (no election) until it registers

  // The controller's context, read from ZooKeeper at failover (process state).
  std::int32_t epoch_ = 0;
  std::map<BrokerId, std::int64_t> live_;  // registered brokers and their epochs (czxid)
  std::map<TopicPartition, PartitionState> partitions_;  // partition_epoch: the state znode's version
  // ControllerChannelManager's RequestSendThread per broker: the pushes sent
  // and not yet answered, in order; a connection lost is made again and
  // they are sent again after 100 ms, until answered or the broker is removed.
  struct BrokerChannel {
    std::optional<ConnectionId> connection;  // none when idle, or while it waits to reconnect
    std::optional<TimerId> reconnect;        // the backoff before it reconnects
    std::deque<MetadataUpdate> unanswered;
  };
  std::map<BrokerId, BrokerChannel> channels_;
  std::set<std::int32_t> topics_;  // the topics the controller knows
  // Watches that fired while it loaded: processed once it has (the controller's event queue).
  bool topics_changed_ = false, brokers_changed_ = false, isr_changes_ = false, log_dir_events_ = false;
  std::set<std::pair<TopicPartition, BrokerId>> offline_replicas_;  // replicasOnOfflineDirs
  std::set<BrokerId> shutting_down_;  // shuttingDownBrokerIds: registered, but not elected or kept in ISRs
  std::set<TopicPartition> reassigning_;  // partitionsBeingReassigned
  std::set<TopicPartition> cancelled_;    // reassignments being reverted
  std::int64_t update_sequence_ = 0;
  std::vector<PartitionState> pending_push_;  // changed, sent once no ZooKeeper write is in flight
  std::size_t writes_in_flight_ = 0;

  // Its own controlled shutdown: the tries left, and the one in flight.
  std::int32_t shutdown_tries_left_ = 0;
  std::uint64_t shutdown_attempt_ = 0;
  std::optional<ConnectionId> shutdown_connection_;
  TimerId shutdown_timeout_{};
  bool awaiting_broker_stop_ = false;  // the broker stops its fetchers and flushes its logs first

  // The leader side before KIP-497: ISR changes waiting to be announced.
  std::set<TopicPartition> isr_changed_;
  SimTime last_isr_change_ = 0, last_isr_propagation_ = 0;
  ZkControllerStats stats_;
  ControllerStats controller_stats_;
  std::map<TopicPartition, SimTime> leaderless_since_;
};

}  // namespace ksim::models
