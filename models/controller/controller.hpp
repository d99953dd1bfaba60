#pragma once
// The active controller (KRaft's QuorumController, as one node whose
// metadata survives its own restarts). It tracks broker liveness through
// heartbeats (broker.session.timeout.ms), elects partition leaders from the
// ISR (then, with KIP-966, from the eligible leader replicas; or, with
// unclean.leader.election.enable, from any live replica),
// commits ISR changes (AlterPartition, KIP-497) and pushes metadata changes
// to the brokers. Elections are processed one at a time, each costing
// `election_time_per_partition`, so failover time grows with partitions.
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "models/events/model_event_bus.hpp"
#include "models/protocol/cluster_directory.hpp"
#include "models/protocol/kafka_config.hpp"
#include "models/protocol/kafka_messages.hpp"
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
  std::uint64_t elr_elections = 0;  // KIP-966: leaders elected from the eligible leader replicas
  std::uint64_t offline_transitions = 0;  // a partition left without a leader
  std::uint64_t isr_changes = 0;
  std::uint64_t fencings = 0;
  std::uint64_t controlled_shutdowns = 0;
  SimTime max_leaderless = 0;  // longest time a partition waited for a live leader
};

class Controller final : public Node {
 public:
  Controller(Simulation& sim, std::string name, HostId host, ControllerConfig config,
             std::shared_ptr<const ClusterDirectory> directory, ModelEventBus& events);

  // Topic creation: replicas[topic][partition], preferred leader first.
  void create_partitions(const std::vector<std::vector<std::vector<BrokerId>>>& replicas);

  const std::map<TopicPartition, PartitionState>& partitions() const { return partitions_; }
  std::int32_t partition_count(std::int32_t topic) const {
    return directory_->topics[static_cast<std::size_t>(topic)].partitions;
  }
  std::vector<TopicPartition> offline_partitions() const;
  const ControllerStats& stats() const { return stats_; }

 private:
  struct Registration {
    bool fenced = true;
    bool ever_registered = false;
    SimTime last_heartbeat = 0;
    std::uint32_t incarnation = 0;
    ConnectionId connection = 0;
    bool connected = false;
    std::set<TopicPartition> offline_replicas;
    bool shutting_down = false;  // controlled shutdown in progress
    std::int64_t metadata_offset = -1;  // as its last heartbeat reported it
    // BrokerHeartbeatManager.controlledShutdownOffset: the broker may exit once every
    // active broker has applied the metadata up to here (-1: at once, it led nothing).
    std::int64_t shutdown_offset = -1;
  };

  void on_start() override;
  void on_crash(CrashKind kind) override;
  void activate();
  void on_message(ConnectionId connection, MessagePtr message) override;
  void on_connection_closed(ConnectionId connection) override;

  void session_tick();
  void handle_heartbeat(ConnectionId connection, const BrokerHeartbeat& heartbeat);
  void handle_alter_partition(ConnectionId connection, const AlterPartitionRequest& request);
  void fence(BrokerId broker, std::string_view reason);
  void begin_controlled_shutdown(BrokerId broker);
  bool leads_any(BrokerId broker) const;
  void unfence(BrokerId broker);
  void update_offline_replicas(BrokerId broker, const std::vector<TopicPartition>& offline);
  void remove_replica_from_partitions(BrokerId broker);
  void depose(PartitionState& state);
  void queue_election(TopicPartition tp, BrokerId replacing);
  void run_next_election();
  void elect(TopicPartition tp, BrokerId replacing);
  bool is_usable(BrokerId broker, TopicPartition tp) const;
  void push(const std::vector<PartitionState>& states);
  void push_all_to(BrokerId broker);
  void check_partition_state(const PartitionState& state) const;

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
  std::vector<BrokerId> live_brokers() const;
  std::vector<BrokerId> shutting_down_brokers() const;
  bool shutdown_granted(BrokerId broker) const;

  ControllerConfig config_;
  void publish(const ModelEvent& event) { events_.publish(*this, event); }

  std::shared_ptr<const ClusterDirectory> directory_;
  ModelEventBus& events_;
  std::map<TopicPartition, PartitionState> partitions_;  // durable: the metadata log
  std::map<TopicPartition, SimTime> leaderless_since_;
  std::vector<Registration> brokers_;
  std::deque<std::pair<TopicPartition, BrokerId>> election_queue_;  // and the leader being replaced
  std::set<TopicPartition> queued_;
  bool electing_ = false;
  // Loading the metadata after a failover: what arrives meanwhile waits, in order.
  bool loading_ = false;
  std::deque<std::pair<ConnectionId, MessagePtr>> waiting_;
  ControllerStats stats_;
  std::int64_t metadata_offset_ = 0;  // each push() is one more batch of metadata records
};

}  // namespace ksim::models
