#include "models/controller/controller.hpp"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>

#include "models/protocol/replica_list.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

Controller::Controller(Simulation& sim, std::string name, HostId host, ControllerConfig config,
                       std::shared_ptr<const ClusterDirectory> directory, ModelEventBus& events)
    : Node(sim, std::move(name), host), config_(config), directory_(std::move(directory)), events_(events) {
  brokers_.resize(directory_->broker_nodes.size());
}

void Controller::create_partitions(const std::vector<std::vector<std::vector<BrokerId>>>& replicas) {
  for (std::size_t t = 0; t < replicas.size(); ++t) {
    for (std::size_t p = 0; p < replicas[t].size(); ++p) {
      PartitionState state;
      state.partition = {static_cast<std::int32_t>(t), static_cast<std::int32_t>(p)};
      state.replicas = replicas[t][p];
      state.isr = state.replicas;
      state.leader = state.replicas.front();
      state.leader_epoch = 0;
      partitions_.emplace(state.partition, state);
    }
  }
}

// A restart is a failover to a new active controller, which first loads the
// metadata (metadata_load_time_per_partition); then it acts.
void Controller::on_start() {
  const SimTime load =
      incarnation() > 0 ? static_cast<SimTime>(partitions_.size()) * config_.metadata_load_time_per_partition : 0;
  if (load == 0) return activate();
  loading_ = true;
  publish(ControllerLoading{partitions_.size(), load});
  set_timer(load, [this] { activate(); });
}

void Controller::on_crash(CrashKind) {
  loading_ = false;
  waiting_.clear();
}

void Controller::activate() {
  loading_ = false;
  // Restarted with its metadata intact: brokers get a grace period to heartbeat.
  for (Registration& r : brokers_) {
    r.last_heartbeat = now();
    r.connected = false;
  }
  electing_ = false;
  if (!election_queue_.empty()) run_next_election();
  set_timer(milliseconds(250), [this] { session_tick(); });
  while (!waiting_.empty()) {
    auto [connection, message] = std::move(waiting_.front());
    waiting_.pop_front();
    on_message(connection, std::move(message));
  }
}

void Controller::on_message(ConnectionId connection, MessagePtr message) {
  if (loading_) {
    waiting_.emplace_back(connection, std::move(message));
    return;
  }
  const ApiMessage& m = api_message(*message);
  switch (m.api_key()) {
    case ApiKey::BrokerHeartbeat: return handle_heartbeat(connection, message_as<BrokerHeartbeat>(m));
    case ApiKey::AlterPartition: return handle_alter_partition(connection, message_as<AlterPartitionRequest>(m));
    case ApiKey::Produce:
    case ApiKey::Fetch:
    case ApiKey::ListOffsets:
    case ApiKey::Metadata:
    case ApiKey::UpdateMetadata:
    case ApiKey::OffsetCommit:
    case ApiKey::OffsetFetch:
    case ApiKey::FindCoordinator:
    case ApiKey::JoinGroup:
    case ApiKey::Heartbeat:
    case ApiKey::LeaveGroup:
    case ApiKey::SyncGroup:
    case ApiKey::InitProducerId:
    case ApiKey::OffsetForLeaderEpoch:
    case ApiKey::AddPartitionsToTxn:
    case ApiKey::AddOffsetsToTxn:
    case ApiKey::EndTxn:
    case ApiKey::WriteTxnMarkers:
    case ApiKey::TxnOffsetCommit: break;  // brokers' APIs
    case ApiKey::Vote:
    case ApiKey::BeginQuorumEpoch:
    case ApiKey::EndQuorumEpoch: break;  // the quorum's Raft: one controller, no quorum yet
  }
  unexpected_message(name(), m);
}

void Controller::on_connection_closed(ConnectionId connection) {
  for (Registration& r : brokers_) {
    if (r.connected && r.connection == connection) r.connected = false;
  }
}

void Controller::session_tick() {
  for (std::size_t b = 0; b < brokers_.size(); ++b) {
    const Registration& r = brokers_[b];
    if (!r.fenced && now() - r.last_heartbeat > config_.broker_session_timeout) {
      fence(static_cast<BrokerId>(b), "session timeout");
    }
  }
  set_timer(milliseconds(250), [this] { session_tick(); });
}

void Controller::handle_heartbeat(ConnectionId connection, const BrokerHeartbeat& heartbeat) {
  const auto b = static_cast<std::size_t>(heartbeat.broker);
  Registration& r = brokers_[b];
  const bool reconnected = !r.connected;
  r.connection = connection;
  r.connected = true;
  r.last_heartbeat = now();
  r.metadata_offset = heartbeat.metadata_offset;
  if (r.ever_registered && heartbeat.incarnation != r.incarnation && !r.fenced) {
    // KIP-631: a new incarnation means the broker restarted; its old
    // registration is fenced first, moving leadership away from it.
    fence(heartbeat.broker, "restarted");
  }
  if (r.ever_registered && heartbeat.incarnation != r.incarnation && !heartbeat.previous_stop_clean) {
    forget_unclean_replica(heartbeat.broker);  // ClusterControlManager: PreviousBrokerEpoch does not match
  }
  if (heartbeat.incarnation != r.incarnation) r.shutting_down = false, r.shutdown_offset = -1;
  r.incarnation = heartbeat.incarnation;
  r.ever_registered = true;
  update_offline_replicas(heartbeat.broker, heartbeat.offline_replicas);
  if (r.fenced && !heartbeat.shutting_down) unfence(heartbeat.broker);
  if (heartbeat.shutting_down && !r.shutting_down) begin_controlled_shutdown(heartbeat.broker);
  // Back on a connection after missing updates: it reads the metadata log from
  // where it stopped (KIP-631's fetch), here as one update of everything.
  if (reconnected && !r.fenced && r.metadata_offset >= 0 && r.metadata_offset < metadata_offset_) {
    push_all_to(heartbeat.broker);
  }
  auto response = std::make_unique<BrokerHeartbeatResponse>();
  response->fenced = r.fenced;
  response->shutdown_ready = shutdown_granted(heartbeat.broker);
  send(connection, std::move(response));
}

void Controller::fence(BrokerId broker, std::string_view reason) {
  Registration& r = brokers_[static_cast<std::size_t>(broker)];
  r.fenced = true;
  ++stats_.fencings;
  publish(BrokerFenced{broker, reason});
  remove_replica_from_partitions(broker);
}

// KRaft's controlled shutdown: the broker leaves every ISR it is not the last
// member of, and its leaderships move (elections, one at a time as usual).
// A broker that led nothing may exit at once (SHUTDOWN_NOW); one that led
// partitions waits until every active broker has reported, in a heartbeat,
// the metadata that moved them (BrokerHeartbeatManager's CONTROLLED_SHUTDOWN).
void Controller::begin_controlled_shutdown(BrokerId broker) {
  Registration& r = brokers_[static_cast<std::size_t>(broker)];
  const bool led_partitions = leads_any(broker);
  r.shutting_down = true;
  ++stats_.controlled_shutdowns;
  publish(ControlledShutdownStarted{broker});
  remove_replica_from_partitions(broker);
  push({});  // every broker learns it (BrokerRegistrationChangeRecord): no leader proposes it into an ISR
  r.shutdown_offset = led_partitions ? metadata_offset_ : -1;
}

// BrokerHeartbeatManager.calculateNextBrokerState: no leadership left, and the
// lowest metadata offset the active (unfenced, not shutting down) brokers
// reported has reached the broker's controlled-shutdown offset.
bool Controller::shutdown_granted(BrokerId broker) const {
  const Registration& r = brokers_[static_cast<std::size_t>(broker)];
  if (!r.shutting_down || leads_any(broker)) return false;
  return std::all_of(brokers_.begin(), brokers_.end(), [&](const Registration& other) {
    return other.fenced || other.shutting_down || other.metadata_offset >= r.shutdown_offset;
  });
}

bool Controller::leads_any(BrokerId broker) const {
  return std::any_of(partitions_.begin(), partitions_.end(),
                     [&](const auto& entry) { return entry.second.leader == broker; });
}

void Controller::unfence(BrokerId broker) {
  brokers_[static_cast<std::size_t>(broker)].fenced = false;
  publish(BrokerUnfenced{broker});
  push_all_to(broker);
  // Partitions without a leader may now have one.
  for (const auto& [tp, state] : partitions_) {
    if (state.leader == kNoBroker && contains(state.replicas, broker)) queue_election(tp, kNoBroker);
  }
  push({});  // every broker learns the new live set
}

// KIP-112 / KIP-858: replicas on a failed log dir are treated like a dead broker's.
void Controller::update_offline_replicas(BrokerId broker, const std::vector<TopicPartition>& offline) {
  Registration& r = brokers_[static_cast<std::size_t>(broker)];
  for (const TopicPartition tp : offline) {
    if (!r.offline_replicas.insert(tp).second) continue;
    PartitionState& state = partitions_.at(tp);
    if (state.leader == broker) {
      depose(state);
      push({state});
      queue_election(tp, broker);
    } else if (leave_isr(state, broker)) {
      ++state.partition_epoch;
      push({state});
    }
  }
}

// A fenced broker leaves every ISR (but without KIP-966 the last member stays,
// as in KRaft, so the partition can come back when it does) and loses its
// leaderships.
void Controller::remove_replica_from_partitions(BrokerId broker) {
  std::vector<PartitionState> changed;
  for (auto& [tp, state] : partitions_) {
    if (state.leader == broker) {
      depose(state);
      changed.push_back(state);
      queue_election(tp, broker);
    } else if (leave_isr(state, broker)) {
      ++state.partition_epoch;
      ++stats_.isr_changes;
      changed.push_back(state);
    }
  }
  push(changed);
}

// The leader is gone (fenced, shutting down, its log dir offline): the
// partition has none until the queued election picks one, and the old
// leader leaves the ISR unless it is its last member. No broker may act on
// the old leadership meanwhile, not even the old leader restarted.
void Controller::depose(PartitionState& state) {
  const BrokerId old_leader = state.leader;
  state.leader = kNoBroker;
  ++state.leader_epoch;
  ++state.partition_epoch;
  leave_isr(state, old_leader);
  update_last_known_leader(state, old_leader);
}

void Controller::queue_election(TopicPartition tp, BrokerId replacing) {
  if (!queued_.insert(tp).second) return;
  leaderless_since_.try_emplace(tp, now());
  election_queue_.emplace_back(tp, replacing);
  if (!electing_) run_next_election();
}

// One election at a time, each taking election_time_per_partition.
void Controller::run_next_election() {
  if (election_queue_.empty()) {
    electing_ = false;
    return;
  }
  electing_ = true;
  set_timer(config_.election_time_per_partition, [this] {
    const auto [tp, replacing] = election_queue_.front();
    election_queue_.pop_front();
    queued_.erase(tp);
    elect(tp, replacing);
    run_next_election();
  });
}

bool Controller::is_usable(BrokerId broker, TopicPartition tp) const {
  const Registration& r = brokers_[static_cast<std::size_t>(broker)];
  return !r.fenced && !r.shutting_down && !r.offline_replicas.contains(tp);
}

// Replaces the leader `replacing` (fenced or offline when queued; it may be
// back by now, a new incarnation that must not simply keep its old epoch).
std::string_view to_string(ElectedFrom from) {
  switch (from) {
    case ElectedFrom::Isr: return "the ISR";
    case ElectedFrom::EligibleLeaderReplicas: return "the eligible leader replicas (KIP-966)";
    case ElectedFrom::LastKnownLeader: return "the last known leader, unclean (KIP-966)";
    case ElectedFrom::OutOfSyncReplica: return "an out-of-sync replica, unclean";
  }
  return "?";
}

void Controller::elect(TopicPartition tp, BrokerId replacing) {
  PartitionState& state = partitions_.at(tp);
  if (state.leader != kNoBroker && is_usable(state.leader, tp)) return;
  const TopicSpec& topic = directory_->topics[static_cast<std::size_t>(tp.topic)];
  BrokerId leader = kNoBroker;
  bool unclean = false;
  // Assignment order, as Kafka's PartitionLeaderElectionAlgorithms; the replaced leader last.
  for (const bool allow_replaced : {false, true}) {
    for (const BrokerId b : state.replicas) {
      if (leader == kNoBroker && contains(state.isr, b) && is_usable(b, tp) && (allow_replaced || b != replacing)) {
        leader = b;
      }
    }
  }
  const EligibleLeader eligible = leader == kNoBroker ? elect_from_elr(state) : EligibleLeader{};
  const bool from_elr = eligible.broker != kNoBroker && !eligible.last_known;
  if (eligible.broker != kNoBroker) {
    leader = eligible.broker;
    unclean = eligible.last_known;  // PartitionChangeBuilder.electAnyLeader marks it so
  }
  if (leader == kNoBroker && topic.unclean_leader_election_enable) {
    for (const BrokerId b : state.replicas) {
      if (is_usable(b, tp)) {
        leader = b;
        unclean = true;
        break;
      }
    }
  }
  const BrokerId old_leader = state.leader;
  ++state.leader_epoch;
  ++state.partition_epoch;
  state.leader = leader;
  if (unclean) {
    state.isr = {leader};
    state.elr.clear();  // maybeUpdateRecordElr: an unclean election clears the ELR
    state.last_known_elr.clear();
    ++stats_.unclean_elections;
  } else if (from_elr) {
    state.isr = {leader};
    std::erase(state.elr, leader);
    ++stats_.elr_elections;
  } else if (leader != kNoBroker) {
    const std::vector<BrokerId> before = state.isr;
    std::erase_if(state.isr, [&](BrokerId b) { return !is_usable(b, tp); });
    update_elr(state, before);
  } else if (old_leader != kNoBroker) {
    ++stats_.offline_transitions;
  }
  update_last_known_leader(state, old_leader);
  if (leader != kNoBroker) {
    ++stats_.elections;
    if (stats_.first_elections.size() < ControllerStats::kElectionsKept) {
      const ElectedFrom from = !unclean                 ? (from_elr ? ElectedFrom::EligibleLeaderReplicas : ElectedFrom::Isr)
                               : eligible.last_known    ? ElectedFrom::LastKnownLeader
                                                        : ElectedFrom::OutOfSyncReplica;
      stats_.first_elections.push_back({now(), tp, leader, state.leader_epoch, from});
    }
    const auto since = leaderless_since_.find(tp);
    if (since != leaderless_since_.end()) {
      stats_.max_leaderless = std::max(stats_.max_leaderless, now() - since->second);
      leaderless_since_.erase(since);
    }
  }
  publish(LeaderElected{tp, leader, state.leader_epoch, unclean, state.isr.size()});
  push({state});
}

// ReplicationControlManager.validateAlterPartitionData: the request must come
// from the current leader in its leader epoch (FENCED_LEADER_EPOCH), be based
// on the current partition epoch (INVALID_UPDATE_VERSION), and, KIP-841, add
// only brokers that are neither fenced nor shutting down (INELIGIBLE_REPLICA).
void Controller::handle_alter_partition(ConnectionId connection, const AlterPartitionRequest& request) {
  auto response = std::make_unique<AlterPartitionResponse>();
  response->proposed_leader_epoch = request.leader_epoch;
  response->proposed_partition_epoch = request.partition_epoch;
  response->proposed_isr = request.new_isr;
  PartitionState& state = partitions_.at(request.partition);
  const bool eligible = std::all_of(request.new_isr.begin(), request.new_isr.end(), [&](BrokerId b) {
    return contains(state.isr, b) || is_usable(b, request.partition);
  });
  if (request.leader != state.leader || request.leader_epoch != state.leader_epoch) {
    response->error = Error::FencedLeaderEpoch;
  } else if (request.partition_epoch != state.partition_epoch) {
    response->error = Error::InvalidUpdateVersion;
  } else if (!eligible || request.new_isr.empty()) {
    response->error = Error::IneligibleReplica;
  }
  if (response->error != Error::None) {
    response->state = state;
    send(connection, std::move(response));
    return;
  }
  const std::vector<BrokerId> before = state.isr;
  state.isr = request.new_isr;
  update_elr(state, before);
  ++state.partition_epoch;
  ++stats_.isr_changes;
  publish(IsrCommitted{state.partition, state.isr.size(), state.partition_epoch});
  response->state = state;
  send(connection, std::move(response));
  push({state});
}

std::vector<BrokerId> Controller::shutting_down_brokers() const {
  std::vector<BrokerId> leaving;
  for (std::size_t b = 0; b < brokers_.size(); ++b) {
    if (!brokers_[b].fenced && brokers_[b].shutting_down) leaving.push_back(static_cast<BrokerId>(b));
  }
  return leaving;
}

std::vector<BrokerId> Controller::live_brokers() const {
  std::vector<BrokerId> live;
  for (std::size_t b = 0; b < brokers_.size(); ++b) {
    if (!brokers_[b].fenced) live.push_back(static_cast<BrokerId>(b));
  }
  return live;
}

// What the controller commits (ReplicationControlManager's checks): an ISR
// of assigned replicas, never empty (with KIP-966, empty only without a
// leader), a leader that is in it, and an ELR of assigned replicas outside it.
void Controller::check_partition_state(const PartitionState& state) const {
  const auto require = [&](bool holds, const char* invariant) {
    if (holds) return;
    std::fprintf(stderr, "ksim: controller: partition %d-%d (leader %d, epoch %d): invariant '%s' broken\n",
                 state.partition.topic, state.partition.partition, state.leader, state.leader_epoch, invariant);
    std::abort();
  };
  require(!state.isr.empty() || (config_.eligible_leader_replicas && state.leader == kNoBroker),
          "an ISR is never empty (with KIP-966: only without a leader)");
  require(std::none_of(state.elr.begin(), state.elr.end(), [&](BrokerId b) { return contains(state.isr, b); }),
          "no ISR member is also an eligible leader replica");
  require(std::all_of(state.elr.begin(), state.elr.end(), [&](BrokerId b) { return contains(state.replicas, b); }),
          "the ELR holds only assigned replicas");
  require(std::all_of(state.isr.begin(), state.isr.end(), [&](BrokerId b) { return contains(state.replicas, b); }),
          "the ISR holds only assigned replicas");
  require(state.leader == kNoBroker || contains(state.isr, state.leader), "the leader is in the ISR");
}

void Controller::push(const std::vector<PartitionState>& states) {
  for (const PartitionState& state : states) check_partition_state(state);
  ++metadata_offset_;
  const std::vector<BrokerId> live = live_brokers();
  for (const BrokerId b : live) {
    const Registration& r = brokers_[static_cast<std::size_t>(b)];
    if (!r.connected) continue;
    auto update = std::make_unique<MetadataUpdate>();
    update->partitions = states;
    update->live_brokers = live;
    update->shutting_down = shutting_down_brokers();
    update->offset = metadata_offset_;
    send(r.connection, std::move(update));
  }
}

void Controller::push_all_to(BrokerId broker) {
  const Registration& r = brokers_[static_cast<std::size_t>(broker)];
  if (!r.connected) return;
  auto update = std::make_unique<MetadataUpdate>();
  for (const auto& [tp, state] : partitions_) update->partitions.push_back(state);
  update->live_brokers = live_brokers();
  update->shutting_down = shutting_down_brokers();
  update->offset = metadata_offset_;
  send(r.connection, std::move(update));
}

std::vector<TopicPartition> Controller::offline_partitions() const {
  std::vector<TopicPartition> offline;
  for (const auto& [tp, state] : partitions_) {
    if (state.leader == kNoBroker || !is_usable(state.leader, tp)) offline.push_back(tp);
  }
  return offline;
}

}  // namespace ksim::models
