#pragma once
// A KRaft controller (QuorumController). The active controller tracks broker
// liveness through heartbeats (broker.session.timeout.ms), elects partition
// leaders from the ISR (then, with KIP-966, from the eligible leader
// replicas; or, with unclean.leader.election.enable, from any live replica),
// commits ISR changes (AlterPartition, KIP-497) and pushes metadata changes
// to the brokers (in a quorum the brokers fetch them, KIP-631). Elections run in
// batches (all a broker's leaderships at once), each costing
// `election_time_per_partition` per partition, so failover time grows with partitions.
//
// Alone (one controller, ksim's default) it is always the active controller,
// its metadata durable across its restarts and every change final at once.
// In a quorum (controllers.count > 1, controller_raft.cpp) each controller
// hosts a Raft replica of the metadata log (models/raft/); the Raft leader is
// the active controller: it writes every change as records
// (metadata_records.hpp) and acts on them outside only once they are
// committed; the others replay the committed log and answer NOT_CONTROLLER.
// Brokers replicate the log as observers of the quorum and apply what is
// committed (KIP-631, models/broker/broker_metadata_log.cpp).
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <variant>
#include <vector>

#include "models/controller/controller_role.hpp"
#include "models/controller/metadata_records.hpp"
#include "models/controller/replica_assignment.hpp"
#include "models/events/model_event_bus.hpp"
#include "models/protocol/cluster_directory.hpp"
#include "models/protocol/kafka_config.hpp"
#include "models/protocol/kafka_messages.hpp"
#include "models/raft/raft_connections.hpp"
#include "models/raft/raft_replica.hpp"
#include "sim/core/node.hpp"

namespace ksim::models {

// Where an elected leader came from (PartitionChangeBuilder.electLeader).
enum class ElectedFrom : std::uint8_t {
  Isr,                     // an in-sync replica
  EligibleLeaderReplicas,  // KIP-966: a replica that left the ISR while it was below min.insync.replicas
  LastKnownLeader,         // KIP-966: the ISR and ELR empty, the last leader came back (unclean)
  OutOfSyncReplica,        // unclean.leader.election.enable: any live replica
};
std::string_view to_string(ElectedFrom from);

struct Election {
  SimTime at = 0;
  TopicPartition partition;
  BrokerId leader = kNoBroker;
  Epoch epoch = 0;
  ElectedFrom from = ElectedFrom::Isr;
};

struct ControllerStats {
  static constexpr std::size_t kElectionsKept = 20;
  std::vector<Election> first_elections;  // the first kElectionsKept of the run, in order
  std::uint64_t elections = 0;
  std::uint64_t unclean_elections = 0;
  std::uint64_t elr_elections = 0;
  std::uint64_t preferred_elections = 0;  // auto.leader.rebalance.enable: preferred replicas made leader again  // KIP-966: leaders elected from the eligible leader replicas
  std::uint64_t offline_transitions = 0;  // a partition left without a leader
  std::uint64_t isr_changes = 0;
  std::uint64_t fencings = 0;
  std::uint64_t controlled_shutdowns = 0;
  SimTime max_leaderless = 0;  // longest time a partition waited for a live leader
  // It became the active controller (its start, a restart; in a quorum, claim), and in a
  // quorum stopped being it without a crash (renounce).
  std::uint64_t activations = 0;
  std::uint64_t renouncements = 0;
  std::uint64_t reverted_records = 0;  // written and not committed when it renounced
};

class Controller final : public Node {
 public:
  // `quorum_id`: this controller's id in the quorum, its index in
  // directory->controller_nodes (a quorum when there are several);
  // `raft`: the quorum's controller.quorum.* settings.
  Controller(Simulation& sim, std::string name, HostId host, ControllerConfig config,
             std::shared_ptr<const ClusterDirectory> directory, ModelEventBus& events, RaftNodeId quorum_id = 0,
             const RaftConfig& raft = {});
  ~Controller() override;

  // Topic creation: replicas[topic][partition], preferred leader first.
  // The topics the cluster was formatted with; `directory_of` gives the log
  // dir a broker placed each replica in, where the controller records it (KIP-858).
  using DirectoryOf = std::function<std::optional<std::int32_t>(BrokerId, TopicPartition)>;
  void create_partitions(const std::vector<std::vector<std::vector<BrokerId>>>& replicas,
                         const DirectoryOf& directory_of = {});

  // The metadata as this controller holds it: alone, the durable metadata; in
  // a quorum, on the active controller, with its changes not yet committed.
  const std::map<TopicPartition, PartitionState>& partitions() const { return partitions_; }
  std::int32_t partition_count(std::int32_t topic) const {
    return directory_->topics[static_cast<std::size_t>(topic)].partitions;
  }
  const ControllerStats& stats() const { return stats_; }

  // KIP-455, the Admin API's alterPartitionReassignments for one partition
  // (controller_reassignment.cpp): `target` the new replicas, preferred
  // leader first; nullopt cancels. Answers as Kafka's controller would.
  Error alter_partition_reassignment(TopicPartition tp, const std::optional<std::vector<BrokerId>>& target);
  // CreateTopics for a topic of the directory the cluster did not start with
  // (controller_topics.cpp): its `assignment`, or placed over the brokers of
  // place_topics_over (with their racks) that are registered and not
  // shutting down, with `rng`'s random start.
  void place_topics_over(std::vector<BrokerPlacement> brokers) { placement_ = std::move(brokers); }
  Error create_topic(std::int32_t topic, RandomStream& rng);

  // ---- the quorum (controller_raft.cpp) ----
  bool in_quorum() const { return directory_->controller_nodes.size() > 1; }
  RaftNodeId quorum_id() const { return quorum_id_; }
  // Acting as the active controller now: running, not paused, and (in a quorum) leading it.
  bool is_active() const;
  Epoch active_epoch() const { return active_epoch_; }  // the quorum epoch it leads or last led
  // What it replayed of the committed metadata log (in a quorum).
  const MetadataImage& committed() const { return committed_; }
  const RaftReplica* raft() const { return raft_.get(); }  // null while down, and alone
  const RaftPersistentState& raft_state() const { return raft_durable_; }
  // The metadata the cluster was formatted with (the topics; no records): where brokers' replay starts.
  const MetadataImage& bootstrap() const { return bootstrap_; }

 private:
  struct Registration : BrokerRegistration {  // what the metadata log says, and the heartbeats' process state
    SimTime last_heartbeat = 0;
    ConnectionId connection = 0;
    bool connected = false;
    std::int64_t metadata_offset = -1;  // as its last heartbeat reported it
    // BrokerHeartbeatManager.controlledShutdownOffset: the broker may exit once every
    // active broker has applied the metadata up to here (-1: at once, it led nothing).
    std::int64_t shutdown_offset = -1;
  };

  void on_start() override;
  void on_crash(CrashKind kind) override;
  void on_power_loss_while_down() override;  // the metadata log loses what it had not flushed
  void on_shutdown_requested() override;
  void activate();
  void on_message(ConnectionId connection, MessagePtr message) override;
  void on_connection_closed(ConnectionId connection) override;
  void after_event() override;

  void session_tick();
  void handle_heartbeat(ConnectionId connection, const BrokerHeartbeat& heartbeat);
  void handle_alter_partition(ConnectionId connection, const AlterPartitionRequest& request);
  void handle_create_topics(ConnectionId connection, const CreateTopicsRequest& request);
  void fence(BrokerId broker, std::string_view reason);
  void begin_controlled_shutdown(BrokerId broker);
  bool leads_any(BrokerId broker) const;
  void unfence(BrokerId broker);
  void update_offline_dirs(BrokerId broker, const std::vector<std::int32_t>& offline, bool registering);
  void take_off_offline_replica(PartitionState& state, BrokerId broker, std::vector<PartitionState>& changed);
  void handle_assign_replicas_to_dirs(ConnectionId connection, const AssignReplicasToDirsRequest& request);
  void remove_replica_from_partitions(BrokerId broker);
  void depose(PartitionState& state);
  void queue_election(TopicPartition tp, BrokerId replacing);
  void run_next_election();
  bool elect(TopicPartition tp, BrokerId replacing);  // false when the partition keeps its leader
  bool is_usable(BrokerId broker, TopicPartition tp) const;
  void push(const std::vector<PartitionState>& states);
  void push_all_to(BrokerId broker);
  void send_update(BrokerId broker, std::vector<PartitionState> states);
  void check_partition_state(const PartitionState& state) const;
  Error cancel_reassignment(PartitionState& state);
  // Preferred leader election (controller_leader_balance.cpp).
  void track_imbalance(const PartitionState& state);
  void rebuild_imbalance();
  void maybe_schedule_leader_balance();
  void balance_partition_leaders();
  void settle_reassignment(PartitionState& state, const PartitionState& before);
  // The metadata offset brokers are compared with: alone, its pushes'; in a
  // quorum, the end of what is committed (pushes carry it).
  std::int64_t metadata_offset() const { return in_quorum() ? committed_.end_offset : metadata_offset_; }
  // A response, sent once everything written so far is committed (at once alone).
  using PendingResponse = std::variant<std::unique_ptr<BrokerHeartbeatResponse>, std::unique_ptr<AlterPartitionResponse>,
                                       std::unique_ptr<AssignReplicasToDirsResponse>>;
  void respond_when_committed(ConnectionId connection, PendingResponse response);

  // The quorum (controller_raft.cpp).
  class QuorumHost;
  struct AwaitingCommit {
    Offset offset = 0;  // sent once the log is committed up to here
    ConnectionId connection = 0;
    PendingResponse response;
  };
  void start_quorum_member();
  void stop_quorum_member(CrashKind kind);
  void handle_raft_message(ConnectionId connection, const Message& message);
  bool still_leading();
  void answer_not_controller(ConnectionId connection, const ApiMessage& request);
  void send_not_controller(ConnectionId connection, PendingResponse response);
  std::int32_t known_active() const;
  void write(const std::vector<PartitionState>& states);
  void replay_committed(Offset from, Offset to);
  void claim(Epoch epoch);
  void renounce();
  void restore_committed_state();

  // KIP-966's eligible leader replicas (eligible_leaders.cpp).
  struct EligibleLeader {
    BrokerId broker = kNoBroker;
    bool last_known = false;  // the last known leader, not an ELR member
  };
  std::size_t effective_min_isr(const PartitionState& state) const;
  bool leave_isr(PartitionState& state, BrokerId broker);
  void update_elr(PartitionState& state, const std::vector<BrokerId>& isr_before);
  void update_last_known_leader(PartitionState& state, BrokerId leader_before);
  EligibleLeader elect_from_elr(const PartitionState& state) const;
  void forget_unclean_replica(BrokerId broker);
  std::vector<BrokerId> live_brokers() const { return unfenced_brokers(brokers_); }
  std::vector<BrokerId> shutting_down_brokers() const { return brokers_shutting_down(brokers_); }
  bool shutdown_granted(BrokerId broker) const;

  ControllerConfig config_;
  void publish(const ModelEvent& event) { events_.publish(*this, event); }
  void queue_elections_for_leaderless();

  std::shared_ptr<const ClusterDirectory> directory_;
  ModelEventBus& events_;
  std::map<TopicPartition, PartitionState> partitions_;  // durable: the metadata log
  std::map<TopicPartition, SimTime> leaderless_since_;
  std::vector<Registration> brokers_;
  std::vector<BrokerPlacement> placement_;  // every broker id with its rack (place_topics_over)
  std::deque<std::pair<TopicPartition, BrokerId>> election_queue_;  // and the leader being replaced
  std::set<TopicPartition> queued_;
  bool electing_ = false;
  // Loading the metadata after a failover: what arrives meanwhile waits, in order.
  bool loading_ = false;
  std::deque<std::pair<ConnectionId, MessagePtr>> waiting_;
  ControllerStats stats_;
  std::int64_t metadata_offset_ = 0;  // each push() is one more batch of metadata records (alone)
  TimerId session_timer_;
  // Partitions whose leader is not their preferred replica (ReplicationControlManager.imbalancedPartitions).
  std::set<TopicPartition> imbalanced_;
  bool balance_scheduled_ = false;
  bool balance_immediately_ = false;  // the last balance hit its limit: again in 10 ms
  TimerId election_timer_;

  // The quorum: the metadata log and its Raft replica, and the active controller's writes.
  RaftNodeId quorum_id_;
  RaftConfig raft_config_;
  RaftPersistentState raft_durable_;  // durable: the election state and the metadata log
  std::unique_ptr<QuorumHost> raft_host_;
  std::unique_ptr<RaftReplica> raft_;  // process state, as everything below
  RaftConnections raft_connections_;
  MetadataImage bootstrap_;  // the topics as the cluster was formatted (no records)
  MetadataImage committed_;  // bootstrap_ and every committed record replayed
  ControllerRole role_ = ControllerRole::Standby;
  Epoch active_epoch_ = 0;
  Offset written_end_ = 0;   // the log's end after this controller's last write
  std::vector<BrokerRegistration> logged_;  // the registrations as last written
  // By broker: where its current process's registration record ends (written
  // or committed: MetadataImage::registered_at); kUnregistered from its first
  // heartbeat until that record is written.
  static constexpr Offset kUnregistered = INT64_MAX;
  std::vector<Offset> registered_at_;
  std::vector<std::pair<ConnectionId, PendingResponse>> responding_;  // in this event
  std::deque<AwaitingCommit> awaiting_commit_;
};

}  // namespace ksim::models
