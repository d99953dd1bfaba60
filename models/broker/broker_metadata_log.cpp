// The broker's replica of the metadata log (KIP-500, KIP-595, KIP-631): with
// a KRaft controller quorum each broker runs a Raft replica of
// __cluster_metadata as an observer (BrokerServer's SharedServer.raftManager,
// a KafkaRaftClient that is not a voter). It fetches from the quorum's leader
// over the network like any other request (models/raft/, the same protocol
// the controllers' followers use; the leader holds a fetch with nothing new
// for up to 500 ms), learns the leader from its fetches (a voter that does not
// lead names the leader it knows; none known, it asks a random voter after a
// backoff; no successful fetch for controller.quorum.fetch.timeout.ms, it asks
// the voters again), and applies only what the leader's high watermark says
// is committed, in order (MetadataLoader, BrokerMetadataPublisher).
//
// Its first publish after a start waits until it has caught up with the high
// watermark (MetadataLoader.stillNeedToCatchUp), and, in ksim, until the log
// holds this process's registration: what the log said before was meant for
// the broker's previous process (Kafka's BrokerServer waits for the
// controller's "caught up" before it serves). It is then the whole image;
// after that, each committed range's partition changes. The controller
// channel (broker_controller_channel.cpp) sends to the leader this replica
// knows (RaftControllerNodeProvider).
//
// Simplified: no snapshots: a (re)started broker replays the log from offset 0
// over the bootstrap image (the topics as the cluster was formatted). An
// observer never flushes its log (RaftManager's followersAlwaysFlush is false
// on brokers), so a power loss takes all of it; a process crash keeps it.
#include <algorithm>
#include <cassert>
#include <iterator>
#include <set>

#include "models/broker/broker.hpp"
#include "models/protocol/replica_list.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

// The replica sends through the broker's connections to the controllers and its timers.
class Broker::MetadataLogHost final : public RaftHost {
 public:
  explicit MetadataLogHost(Broker& broker) : b_(broker) {}
  SimTime now() const override { return b_.now(); }
  RandomStream& random() override { return b_.metadata_rng_; }
  void send(RaftNodeId to, MessagePtr message) override {
    b_.metadata_connections_.send(
        to, std::move(message),
        [this](RaftNodeId peer) { return b_.connect(b_.directory_->controller_nodes.at(static_cast<std::size_t>(peer))); },
        [this](ConnectionId connection, MessagePtr m) { b_.send(connection, std::move(m)); });
  }
  TimerId set_timer(SimTime delay) override {
    return b_.set_timer(delay, [b = &b_] {
      if (b->metadata_raft_) b->metadata_raft_->on_timer();
    });
  }
  void cancel_timer(TimerId id) override { b_.cancel_timer(id); }
  void on_committed(Offset from, Offset to) override { b_.metadata_committed(from, to); }
  void on_become_follower(RaftNodeId leader, Epoch) override { b_.metadata_leader_changed(leader); }

 private:
  Broker& b_;
};

void Broker::host_metadata_log(const RaftConfig& raft, std::shared_ptr<const MetadataImage> bootstrap) {
  assert(has_controller_quorum() && bootstrap);
  metadata_raft_config_ = raft;
  metadata_raft_config_.followers_always_flush = false;  // RaftManager: only controllers' followers flush
  metadata_bootstrap_ = std::move(bootstrap);
  metadata_host_ = std::make_unique<MetadataLogHost>(*this);
}

// A new process: an observer on the log and election state the last one left.
void Broker::start_metadata_log() {
  metadata_published_ = false;
  if (!metadata_bootstrap_) return;
  // The brokers' registrations; partition states are applied as they come
  // (until the first publish, the log's latest of each is noted in catching_up_).
  metadata_image_.brokers = metadata_bootstrap_->brokers;
  metadata_image_.end_offset = 0;
  std::vector<RaftNodeId> voters;
  for (std::size_t i = 0; i < directory_->controller_nodes.size(); ++i) voters.push_back(static_cast<RaftNodeId>(i));
  metadata_raft_ = std::make_unique<RaftReplica>(*metadata_host_, broker_replica_id(id_), std::move(voters),
                                                 metadata_raft_config_, metadata_log_);
  metadata_raft_->start();
}

void Broker::stop_metadata_log(CrashKind kind) {
  metadata_raft_.reset();
  metadata_connections_.clear();
  metadata_image_ = MetadataImage{};
  catching_up_.clear();
  metadata_published_ = false;
  if (kind == CrashKind::Machine) metadata_log_.lose_power();
}

void Broker::handle_metadata_log_message(ConnectionId connection, const Message& message) {
  if (!metadata_raft_) return;
  metadata_connections_.received(connection, message);
  metadata_raft_->handle(message);
}

// RaftClient.Listener.handleCommit: the records in [from, to) are committed.
// The brokers' registrations are replayed into the image in order; once
// published, the partition changes among them are applied (each partition's
// last state), with the live and shutting-down brokers as the image has them
// at `to`. The broker keeps no copy of the partitions' states: its replicas
// hold theirs, the log holds the records.
void Broker::metadata_committed(Offset from, Offset to) {
  const RaftLog& log = metadata_log_.log();
  std::vector<PartitionState> changed;
  for (Offset offset = from; offset < to; ++offset) {
    const RaftRecord& record = *log.at(offset).record;
    if (record.is_control()) continue;
    const auto& m = static_cast<const MetadataRecord&>(record);
    if (m.kind() == MetadataRecord::Kind::BrokerRegistrationChange) {
      metadata_image_.replay(m);
    } else if (const PartitionState& state = static_cast<const PartitionChangeRecord&>(m).state; metadata_published_) {
      changed.push_back(state);
    } else {
      catching_up_[state.partition] = &state;  // the record, which the log keeps
    }
  }
  metadata_image_.end_offset = to;
  const Offset applied_from = std::max<Offset>(metadata_offset_, 0);
  if (!metadata_published_) {
    const BrokerRegistration& self = metadata_image_.brokers.at(static_cast<std::size_t>(id_));
    if (!self.ever_registered || self.incarnation != incarnation()) return;  // caught up with another process's
    metadata_published_ = true;
    published_at_ = now();  // what was committed before is caught up with, not lag
    // The whole image: the bootstrap's partitions as the log last changed them,
    for (const auto& [tp, state] : metadata_bootstrap_->partitions) {
      const auto it = catching_up_.find(tp);
      changed.push_back(it == catching_up_.end() ? state : *it->second);
    }
    // and the topics created since (controller_topics.cpp): their records only.
    for (const auto& [tp, state] : catching_up_) {
      if (!metadata_bootstrap_->partitions.contains(tp)) changed.push_back(*state);
    }
    catching_up_.clear();
  } else if (changed.size() > 1) {
    // Each partition once, in the order of its last change.
    std::set<TopicPartition> seen;
    std::vector<PartitionState> last;
    for (auto it = changed.rbegin(); it != changed.rend(); ++it) {
      if (seen.insert(it->partition).second) last.push_back(std::move(*it));
    }
    changed.assign(std::make_move_iterator(last.rbegin()), std::make_move_iterator(last.rend()));
  }
  const bool first = metadata_offset_ < 0;
  publish(MetadataApplied{id_, applied_from, to, published_at_, changed.size()});
  apply_metadata_image(std::move(changed));
  // BrokerLifecycleManager.setReadyToUnfence: caught up, it heartbeats at once to be unfenced.
  if (first && !shutting_down_) send_heartbeat();
}

// What a MetadataUpdate did (broker.cpp), from the image: the metadata offset,
// the live brokers, those eligible for an ISR (KIP-841), the leaders, the partitions.
void Broker::apply_metadata_image(std::vector<PartitionState> states) {
  metadata_offset_ = metadata_image_.end_offset;
  live_brokers_ = unfenced_brokers(metadata_image_.brokers);
  const std::vector<BrokerId> leaving = brokers_shutting_down(metadata_image_.brokers);
  isr_eligible_.clear();
  std::copy_if(live_brokers_.begin(), live_brokers_.end(), std::back_inserter(isr_eligible_),
               [&](BrokerId b) { return !contains(leaving, b); });
  record_leaders(states);
  apply_metadata(states);
}

// The replica learnt the quorum's leader (handleLeaderChange): the controller channel goes there.
void Broker::metadata_leader_changed(RaftNodeId leader) {
  if (leader == kNoRaftNode || !is_running()) return;
  const bool moved = static_cast<std::size_t>(leader) != controller_index_;
  if (!moved && !controller_waiting_) return;
  controller_waiting_ = false;
  // The move, or the wait, ends on the next event: not inside the replica's poll.
  set_timer(0, [this] {
    if (!controller_channel_ready()) return;
    send_heartbeat();
    resend_alter_partitions();
  });
}

}  // namespace ksim::models
