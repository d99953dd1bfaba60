// The broker's channel to the active controller: heartbeats every
// broker.heartbeat.interval.ms (BrokerLifecycleManager) and AlterPartition
// requests (NodeToControllerChannelManager), on one connection.
//
// With a controller quorum the broker must find the active controller. In
// Kafka its metadata log replica (an observer of the Raft quorum) learns the
// leader from its fetches, and the channel sends to that leader. ksim's
// brokers fetch no metadata log, so the channel learns the leader from the
// controllers themselves, which comes to the same in time: a controller
// that is not active answers NOT_CONTROLLER with the leader it knows, and
// the broker sends there after reconnect.backoff.ms (50 ms), or, when none
// is known (an election is on), to the next controller after a backoff
// doubling from 50 ms to 200 ms until one answers; it also moves on when its controller's
// connection closes, and when a heartbeat goes unanswered for
// controller.quorum.request.timeout.ms (its observer's fetch would time out
// and ask another voter).
#include <algorithm>

#include "models/broker/broker.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

ConnectionId Broker::controller_connection() {
  if (!controller_connected_) {
    controller_connection_ = connect(directory_->controller_nodes[controller_index_]);
    controller_connected_ = true;
  }
  return controller_connection_;
}

void Broker::send_heartbeat() {
  const ConnectionId connection = controller_connection();
  auto heartbeat = std::make_unique<BrokerHeartbeat>();
  heartbeat->broker = id_;
  heartbeat->incarnation = incarnation();
  heartbeat->shutting_down = shutting_down_;
  heartbeat->metadata_offset = metadata_offset_;
  heartbeat->previous_stop_clean = previous_stop_clean_;
  for (const auto& [tp, r] : replicas_) {
    if (!replica_online(r)) heartbeat->offline_replicas.push_back(tp);
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
    try_another_controller(-1);
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
  heartbeat_unanswered_since_ = kNever;
  if (response.error == Error::NotController) return try_another_controller(response.active_controller);
  controller_backoff_ = milliseconds(50);
  if (shutting_down_) shutdown_heartbeat_answered(response.shutdown_ready);
}

// The controller's connection closed (a crash, or a reset after a long cut):
// after reconnect.backoff.ms the broker connects again (to the next
// controller of a quorum), and an AlterPartition lost with the connection is sent again.
void Broker::controller_channel_closed() {
  controller_connected_ = false;
  if (zookeeper_mode()) {  // the same controller, or the next the metadata names
    set_timer(milliseconds(50), [this] { resend_alter_partitions(); });
    return;
  }
  if (has_controller_quorum()) return try_another_controller(-1);
  set_timer(milliseconds(50), [this] {  // reconnect.backoff.ms
    send_heartbeat();
    resend_alter_partitions();
  });
}

// Moves the channel to controller `hint` (-1: the next one), and sends the
// heartbeat and pending AlterPartitions there after the backoff.
void Broker::try_another_controller(std::int32_t hint) {
  const std::size_t controllers = directory_->controller_nodes.size();
  const std::size_t next = hint >= 0 && static_cast<std::size_t>(hint) < controllers
                               ? static_cast<std::size_t>(hint)
                               : (controller_index_ + 1) % controllers;
  if (next != controller_index_ && controller_connected_) {
    close(controller_connection_);
    controller_connected_ = false;
  }
  controller_index_ = next;
  heartbeat_unanswered_since_ = kNever;
  if (controller_retry_pending_) return;
  controller_retry_pending_ = true;
  const SimTime backoff = hint >= 0 ? milliseconds(50) : controller_backoff_;
  if (hint < 0) controller_backoff_ = std::min(2 * controller_backoff_, milliseconds(200));
  set_timer(backoff, [this] {
    controller_retry_pending_ = false;
    send_heartbeat();
    resend_alter_partitions();
  });
}

}  // namespace ksim::models
