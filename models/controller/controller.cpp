#include "models/controller/controller.hpp"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>

#include "models/protocol/replica_list.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

void Controller::create_partitions(const std::vector<std::vector<std::vector<BrokerId>>>& replicas,
                                   const DirectoryOf& directory_of) {
  for (std::size_t t = 0; t < replicas.size(); ++t) {
    for (std::size_t p = 0; p < replicas[t].size(); ++p) {
      PartitionState state;
      state.partition = {static_cast<std::int32_t>(t), static_cast<std::int32_t>(p)};
      state.replicas = replicas[t][p];
      for (const BrokerId b : state.replicas) {
        if (const auto dir = directory_of ? directory_of(b, state.partition) : std::nullopt) {
          state.directories.emplace_back(b, *dir);
        }
      }
      state.isr = state.replicas;
      state.leader = state.replicas.front();
      state.leader_epoch = 0;
      partitions_.emplace(state.partition, state);
    }
  }
  // The image the metadata log starts from, and the committed one a renouncing controller reverts to:
  // a quorum's (one controller's changes are final at once, and brokers get them pushed).
  if (in_quorum()) bootstrap_.partitions = partitions_;
  bootstrap_.brokers.assign(brokers_.size(), BrokerRegistration{});
  bootstrap_.registered_at.assign(brokers_.size(), -1);
  committed_ = bootstrap_;
  registered_at_ = bootstrap_.registered_at;
}

// A restart is a failover to a new active controller, which first loads the
// metadata (metadata_load_time_per_partition); then it acts.
// In a quorum a controller starts as a standby (controller_raft.cpp).
void Controller::on_start() {
  if (in_quorum()) return start_quorum_member();
  const SimTime load =
      incarnation() > 0 ? static_cast<SimTime>(partitions_.size()) * config_.metadata_load_time_per_partition : 0;
  if (load == 0) return activate();
  loading_ = true;
  publish(ControllerLoading{partitions_.size(), load});
  set_timer(load, [this] { activate(); });
}

void Controller::on_crash(CrashKind kind) {
  loading_ = false;
  waiting_.clear();
  if (in_quorum()) stop_quorum_member(kind);
}

void Controller::activate() {
  loading_ = false;
  ++stats_.activations;
  // Restarted with its metadata intact: brokers get a grace period to heartbeat.
  for (Registration& r : brokers_) {
    r.last_heartbeat = now();
    r.connected = false;
  }
  electing_ = false;
  if (!election_queue_.empty()) run_next_election();
  session_timer_ = set_timer(milliseconds(250), [this] { session_tick(); });
  rebuild_imbalance();
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
  if (in_quorum() && is_raft_message(*message)) return handle_raft_message(connection, *message);
  const ApiMessage& m = api_message(*message);
  if (in_quorum() && !still_leading()) return answer_not_controller(connection, m);
  switch (m.api_key()) {
    case ApiKey::BrokerHeartbeat: return handle_heartbeat(connection, message_as<BrokerHeartbeat>(m));
    case ApiKey::AlterPartition: return handle_alter_partition(connection, message_as<AlterPartitionRequest>(m));
    case ApiKey::CreateTopics: return handle_create_topics(connection, message_as<CreateTopicsRequest>(m));
    case ApiKey::AssignReplicasToDirs:
      return handle_assign_replicas_to_dirs(connection, message_as<AssignReplicasToDirsRequest>(m));
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
    case ApiKey::ConsumerGroupHeartbeat:
    case ApiKey::ShareGroupHeartbeat:
    case ApiKey::ShareFetch:
    case ApiKey::ShareAcknowledge:
    case ApiKey::InitProducerId:
    case ApiKey::OffsetForLeaderEpoch:
    case ApiKey::AddPartitionsToTxn:
    case ApiKey::AddOffsetsToTxn:
    case ApiKey::EndTxn:
    case ApiKey::WriteTxnMarkers:
    case ApiKey::ControlledShutdown:
    case ApiKey::TxnOffsetCommit: break;  // brokers' APIs
    case ApiKey::Vote:
    case ApiKey::BeginQuorumEpoch:
    case ApiKey::EndQuorumEpoch: break;  // the quorum's Raft: not without a quorum
    case ApiKey::ZooKeeper: break;  // a KRaft controller has no ZooKeeper
  }
  unexpected_message(name(), m);
}

void Controller::on_connection_closed(ConnectionId connection) {
  for (Registration& r : brokers_) {
    if (r.connected && r.connection == connection) r.connected = false;
  }
  if (const auto peer = raft_connections_.closed(connection); peer && raft_) raft_->on_disconnected(*peer);
}

void Controller::session_tick() {
  for (std::size_t b = 0; b < brokers_.size(); ++b) {
    const Registration& r = brokers_[b];
    if (!r.fenced && now() - r.last_heartbeat > config_.broker_session_timeout) {
      fence(static_cast<BrokerId>(b), "session timeout");
    }
  }
  session_timer_ = set_timer(milliseconds(250), [this] { session_tick(); });
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
  const bool registering = heartbeat.incarnation != r.incarnation || !r.ever_registered;
  if (registering) {
    r.shutting_down = false, r.shutdown_offset = -1;
    if (in_quorum()) registered_at_[b] = kUnregistered;  // until its registration is written (this event)
  }
  r.incarnation = heartbeat.incarnation;
  r.ever_registered = true;
  update_offline_dirs(heartbeat.broker, heartbeat.offline_dirs, registering);
  // In a quorum a fenced broker is unfenced once it has applied the metadata
  // log up to its registration (BrokerHeartbeatManager: currentMetadataOffset
  // >= the registration's offset; until then it is still catching up).
  const bool caught_up = !in_quorum() || heartbeat.metadata_offset >= registered_at_[b];
  if (r.fenced && !heartbeat.shutting_down && caught_up) unfence(heartbeat.broker);
  if (heartbeat.shutting_down && !r.shutting_down) begin_controlled_shutdown(heartbeat.broker);
  // Alone: back on a connection after missing updates, it gets everything in
  // one update (in a quorum the broker fetches what it missed from the log).
  if (!in_quorum() && reconnected && !r.fenced && r.metadata_offset >= 0 && r.metadata_offset < metadata_offset()) {
    push_all_to(heartbeat.broker);
  }
  if (in_quorum()) push({});  // what changed of its registration, if anything
  auto response = std::make_unique<BrokerHeartbeatResponse>();
  response->fenced = r.fenced;
  response->shutdown_ready = shutdown_granted(heartbeat.broker);
  respond_when_committed(connection, std::move(response));
}

void Controller::fence(BrokerId broker, std::string_view reason) {
  Registration& r = brokers_[static_cast<std::size_t>(broker)];
  r.fenced = true;
  ++stats_.fencings;
  publish(BrokerFenced{broker, reason});
  remove_replica_from_partitions(broker);
}

// KRaft's controlled shutdown: the broker leaves every ISR it is not the last
// member of, and its leaderships move (in one batch of elections, as a fence's).
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
  r.shutdown_offset = led_partitions ? (in_quorum() ? written_end_ : metadata_offset_) : -1;
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
  if (!in_quorum()) push_all_to(broker);  // in a quorum, once its unfencing is committed
  // Partitions without a leader may now have one.
  for (const auto& [tp, state] : partitions_) {
    if (state.leader == kNoBroker && contains(state.replicas, broker)) queue_election(tp, kNoBroker);
  }
  push({});  // every broker learns the new live set
}

// KIP-858 (ReplicationControlManager.handleDirectoriesOffline): the
// partitions the metadata places on a dir the broker newly reports offline
// lose it as leader and ISR member. A registration (a new process) lists its
// dirs anew. Replicas whose directory the controller has not been told
// (UNASSIGNED) stay eligible: the broker's AssignReplicasToDirs names the
// failed dir for them later. Before KIP-858 a KRaft broker reports no dirs.
void Controller::update_offline_dirs(BrokerId broker, const std::vector<std::int32_t>& offline, bool registering) {
  Registration& r = brokers_[static_cast<std::size_t>(broker)];
  if (registering) r.offline_dirs.clear();
  for (const std::int32_t dir : offline) {
    if (!r.offline_dirs.insert(dir).second || registering) continue;
    std::vector<PartitionState> changed;
    for (auto& [tp, state] : partitions_) {
      if (state.directory_of(broker) == dir) take_off_offline_replica(state, broker, changed);
    }
    push(changed);
  }
}

// The replica of `broker` is offline: it stops leading (published with its new
// leader) or leaves the ISR (added to `changed`).
void Controller::take_off_offline_replica(PartitionState& state, BrokerId broker, std::vector<PartitionState>& changed) {
  if (state.leader == broker) {
    depose(state);
    queue_election(state.partition, broker);
  } else if (leave_isr(state, broker)) {
    ++state.partition_epoch;
    changed.push_back(state);
  }
}

// KIP-858 (ReplicationControlManager.handleAssignReplicasToDirs): the broker
// names the log dir of its replicas; each is recorded (a partition change),
// and one on a dir already offline is taken off its partition at once.
void Controller::handle_assign_replicas_to_dirs(ConnectionId connection, const AssignReplicasToDirsRequest& request) {
  auto response = std::make_unique<AssignReplicasToDirsResponse>();
  response->correlation_id = request.correlation_id;
  const Registration& r = brokers_[static_cast<std::size_t>(request.broker)];
  if (!r.ever_registered || r.incarnation != request.incarnation) {
    response->error = Error::StaleBrokerEpoch;  // clusterControl.checkBrokerEpoch
    return respond_when_committed(connection, std::move(response));
  }
  std::vector<PartitionState> changed;
  for (const auto& [tp, dir] : request.assignments) {
    const auto it = partitions_.find(tp);
    Error error = Error::None;
    if (it == partitions_.end()) {
      error = Error::UnknownTopicOrPartition;
    } else if (!contains(it->second.replicas, request.broker)) {
      error = Error::NotLeaderOrFollower;  // "references non assigned partition"
    } else {
      PartitionState& state = it->second;
      std::erase_if(state.directories, [&](const auto& d) { return d.first == request.broker; });
      state.directories.emplace_back(request.broker, dir);
      ++state.partition_epoch;
      changed.push_back(state);
      if (r.offline_dirs.contains(dir)) take_off_offline_replica(state, request.broker, changed);
    }
    response->results.emplace_back(tp, error);
  }
  respond_when_committed(connection, std::move(response));
  push(changed);
}

void Controller::push(const std::vector<PartitionState>& states) {
  for (const PartitionState& state : states) {
    check_partition_state(state);
    track_imbalance(state);
  }
  maybe_schedule_leader_balance();
  if (in_quorum()) return write(states);  // brokers fetch it once committed (KIP-631)
  ++metadata_offset_;
  for (const BrokerId b : live_brokers()) send_update(b, states);
}

void Controller::push_all_to(BrokerId broker) {
  std::vector<PartitionState> states;
  for (const auto& [tp, state] : partitions_) states.push_back(state);
  send_update(broker, std::move(states));
}

// Alone: one update to `broker` if it is connected: `states`, with the live
// and shutting-down brokers and the offset of the metadata they come from.
// (In a quorum nothing is pushed: brokers fetch the log, KIP-631.)
void Controller::send_update(BrokerId broker, std::vector<PartitionState> states) {
  assert(!in_quorum());
  const Registration& r = brokers_[static_cast<std::size_t>(broker)];
  if (!r.connected) return;
  auto update = std::make_unique<MetadataUpdate>();
  update->partitions = std::move(states);
  update->live_brokers = live_brokers();
  update->shutting_down = shutting_down_brokers();
  update->offset = metadata_offset();
  send(r.connection, std::move(update));
}

}  // namespace ksim::models
