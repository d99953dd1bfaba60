// The broker's channel to the active controller: heartbeats every
// broker.heartbeat.interval.ms (BrokerLifecycleManager) and AlterPartition
// requests (NodeToControllerChannelManager), on one connection.
//
// With a controller quorum the channel sends to the leader the broker's
// replica of the metadata log knows (RaftControllerNodeProvider, KIP-631:
// broker_metadata_log.cpp); while it knows none, requests wait for it. A
// request answered NOT_CONTROLLER, or whose connection closed, or a heartbeat
// unanswered for controller.quorum.request.timeout.ms, goes again after
// reconnect.backoff.ms (50 ms) to the leader the replica knows then (Kafka's
// channel ignores the hint in the answer: the replica's fetches find the
// new leader). Alone, the controller is the only one; with ZooKeeper the
// metadata names it.
#include <algorithm>

#include "models/broker/broker.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

// With a quorum: true once the channel points at the leader the metadata log's
// replica knows; false (the requests wait for one) while it knows none.
bool Broker::controller_channel_ready() {
  if (!has_controller_quorum()) return true;
  const RaftNodeId leader = metadata_raft_ ? metadata_raft_->leader() : kNoRaftNode;
  if (leader == kNoRaftNode) {
    controller_waiting_ = true;
    return false;
  }
  const auto next = static_cast<std::size_t>(leader);
  if (next != controller_index_ && controller_connected_) {
    close(controller_connection_);
    controller_connected_ = false;
  }
  controller_index_ = next;
  return true;
}

ConnectionId Broker::controller_connection() {
  if (!controller_connected_) {
    controller_connection_ = connect(directory_->controller_nodes[controller_index_]);
    controller_connected_ = true;
  }
  return controller_connection_;
}

void Broker::send_heartbeat() {
  if (!controller_channel_ready()) return;
  const ConnectionId connection = controller_connection();
  auto heartbeat = std::make_unique<BrokerHeartbeat>();
  heartbeat->broker = id_;
  heartbeat->incarnation = incarnation();
  heartbeat->shutting_down = shutting_down_;
  heartbeat->metadata_offset = metadata_offset_;
  heartbeat->previous_stop_clean = previous_stop_clean_;
  if (zookeeper_mode()) {
    for (const auto& [tp, r] : replicas_) {
      if (!replica_online(r)) heartbeat->offline_replicas.push_back(tp);
    }
  } else if (config_.mechanisms.has(Mechanism::DirectoryAssignment)) {  // KIP-858: OfflineLogDirs
    for (std::size_t i = 0; i < log_dirs_.size(); ++i) {
      if (!log_dirs_[i].online) heartbeat->offline_dirs.push_back(static_cast<std::int32_t>(i));
    }
  }
  send(connection, std::move(heartbeat));
  last_heartbeat_sent_ = now();
  if (heartbeat_unanswered_since_ == kNever) heartbeat_unanswered_since_ = now();
}

// broker.heartbeat.interval.ms
void Broker::heartbeat_tick() {
  const bool unanswered = heartbeat_unanswered_since_ != kNever &&
                          now() - heartbeat_unanswered_since_ >= config_.controller_request_timeout;
  if (has_controller_quorum() && unanswered) {
    if (controller_connected_) close(controller_connection_);
    controller_connected_ = false;
    retry_controller_channel();
  } else if (!shutting_down_ || now() - last_heartbeat_sent_ >= config_.broker_heartbeat_interval) {
    // In a controlled shutdown each answer schedules the next heartbeat; the
    // tick only stands in when an answer is overdue.
    send_heartbeat();
  }
  set_timer(config_.broker_heartbeat_interval, [this] { heartbeat_tick(); });
}

// Liveness is the controller's business; fencing shows in the metadata it pushes.
// ZooKeeper mode, AlterIsr (2.7+): the metadata names the controller; pending
// ISR changes go there. Before 2.7 the broker's own side writes them.
void Broker::zookeeper_controller_moved(std::int32_t controller) {
  if (!config_.mechanisms.has(Mechanism::AlterIsr) || controller < 0) return;
  const auto next = static_cast<std::size_t>(controller);
  if (next == controller_index_) return;
  if (controller_connected_) close(controller_connection_);
  controller_connected_ = false;
  controller_index_ = next;
  resend_alter_partitions();
}

// ZooKeeper mode: a clean stop ends when the broker's ZooKeeper side has
// closed its session, after its controlled shutdown (zk_controlled_shutdown.cpp):
// the broker serves meanwhile, as Kafka's does until KafkaServer.shutdown goes on.
void Broker::on_companion_stopped(Node& /*side*/, CrashKind kind) {
  if (zookeeper_mode() && shutting_down_ && kind == CrashKind::Shutdown) finish_shutdown();
}

void Broker::handle_heartbeat_response(const BrokerHeartbeatResponse& response) {
  const SimTime sent = std::exchange(heartbeat_unanswered_since_, kNever);  // the heartbeat this answers
  if (response.error == Error::NotController) return retry_controller_channel();
  for (LogDir& d : log_dirs_) {  // KIP-858: the offline dirs it reported are known
    if (!d.online && d.offline_since <= sent) d.offline_acknowledged = true;
  }
  if (shutting_down_) shutdown_heartbeat_answered(response.shutdown_ready);
}

// The controller's connection closed (a crash, or a reset after a long cut):
// after reconnect.backoff.ms the broker connects again (with a quorum, to the
// leader its metadata log's replica knows), and an AlterPartition lost with the
// connection is sent again.
void Broker::controller_channel_closed() {
  controller_connected_ = false;
  if (dir_assignments_.in_flight()) {  // KIP-858: the assignments in flight wait again
    dir_assignments_.lost();
    schedule_dir_assignments();
  }
  creating_topics_.clear();  // the CreateTopics in flight are lost: the clients' next metadata requests ask again
  if (zookeeper_mode()) {  // the same controller, or the next the metadata names
    set_timer(milliseconds(50), [this] { resend_alter_partitions(); });
    return;
  }
  if (has_controller_quorum()) return retry_controller_channel();
  set_timer(milliseconds(50), [this] {  // reconnect.backoff.ms
    send_heartbeat();
    resend_alter_partitions();
  });
}

// After NOT_CONTROLLER (only from a quorum's standby), a closed connection or
// an unanswered heartbeat: the heartbeat and pending AlterPartitions go again
// after reconnect.backoff.ms, to the leader the metadata log's replica knows then.
void Broker::retry_controller_channel() {
  heartbeat_unanswered_since_ = kNever;
  if (controller_retry_pending_) return;
  controller_retry_pending_ = true;
  set_timer(milliseconds(50), [this] {
    controller_retry_pending_ = false;
    send_heartbeat();
    resend_alter_partitions();
  });
}

}  // namespace ksim::models
