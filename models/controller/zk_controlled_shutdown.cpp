// Controlled shutdown in ZooKeeper mode: the stopping broker's side
// (KafkaServer.controlledShutdown) asks the controller, which moves its
// leaderships and takes it out of the ISRs it follows
// (KafkaController.doControlledShutdown), and closes its session once the
// controller says it leads nothing, or after its last try.
#include <algorithm>
#include <utility>

#include "models/controller/zk_controller.hpp"
#include "models/protocol/replica_list.hpp"

namespace ksim::models {

// KafkaServer.shutdown: controlledShutdown() first when the broker had
// started (registered) and controlled.shutdown.enable; the session closes last.
void ZkController::on_shutdown_requested() {
  if (!config_.controlled_shutdown || role_ == ZkControllerRole::Unregistered ||
      zk_.state() != ZkClientState::Connected) {
    return close_session_and_stop();
  }
  shutdown_tries_left_ = config_.controlled_shutdown_max_retries;
  try_controlled_shutdown();
}

void ZkController::close_session_and_stop() {
  zk_.close_session([this] { crash(CrashKind::Shutdown); });
}

// KafkaServer.shutdown after the controlled shutdown: the broker stops its
// fetchers and flushes every log (ReplicaManager and LogManager shutdown)
// before the controller resigns and the session closes; meanwhile this side
// goes on as the controller if it is. Alone (no broker), it closes at once.
void ZkController::stop_broker_then_close() {
  if (hand_over()) {
    awaiting_broker_stop_ = true;
    return;
  }
  close_session_and_stop();
}

void ZkController::on_handed_over(Node& /*broker*/) {
  if (std::exchange(awaiting_broker_stop_, false)) close_session_and_stop();
}

// One try: find the controller in /controller, ask it, wait for its answer
// (request.timeout.ms); on anything but "nothing left", sleep
// controlled.shutdown.retry.backoff.ms and try again while tries are left.
void ZkController::try_controlled_shutdown() {
  --shutdown_tries_left_;
  zk_.get_data(zk_data::kController, false, [this, attempt = ++shutdown_attempt_](const ZkResponse& r) {
    if (attempt != shutdown_attempt_) return;
    const auto controller = r.error == ZkError::Ok ? zk_data::decode_controller(r.data) : std::nullopt;
    if (!controller) return controlled_shutdown_failed();  // "No controller registered in ZooKeeper"
    shutdown_timeout_ = set_timer(config_.request_timeout, [this, attempt] {
      if (attempt != shutdown_attempt_) return;
      shutdown_timeout_ = {};
      controlled_shutdown_failed();  // an IOException: "leader movement took longer than ... request.timeout.ms"
    });
    if (*controller == broker_) {  // this process is the controller: no network between them
      return controlled_shutdown(broker_, [this, attempt](Error error, const std::vector<TopicPartition>& remaining) {
        if (attempt == shutdown_attempt_) controlled_shutdown_answered(error, remaining.size());
      });
    }
    auto request = std::make_unique<ControlledShutdownRequest>();
    request->broker = broker_;
    shutdown_connection_ = connect(directory_->controller_nodes.at(static_cast<std::size_t>(*controller)));
    send(*shutdown_connection_, std::move(request));
  });
}

void ZkController::controlled_shutdown_answered(Error error, std::size_t remaining) {
  if (error == Error::None && remaining == 0) {
    end_shutdown_attempt();
    return stop_broker_then_close();
  }
  controlled_shutdown_failed();
}

void ZkController::controlled_shutdown_failed() {
  end_shutdown_attempt();
  set_timer(config_.controlled_shutdown_retry_backoff, [this] {
    if (shutdown_tries_left_ > 0) return try_controlled_shutdown();
    stop_broker_then_close();  // "Proceeding to do an unclean shutdown as all the controlled shutdown attempts failed"
  });
}

void ZkController::end_shutdown_attempt() {
  ++shutdown_attempt_;  // a late answer or timeout of this try is ignored
  if (shutdown_timeout_) cancel_timer(shutdown_timeout_);
  shutdown_timeout_ = {};
  if (const auto connection = std::exchange(shutdown_connection_, std::nullopt)) close(*connection);
}

// KafkaController.doControlledShutdown: the broker is shutting down (no longer
// elected anywhere); each partition it leads with another replica gets the
// first replica in assignment order that is in the ISR, live and not shutting
// down, and an ISR without the shutting-down brokers
// (ControlledShutdownPartitionLeaderElectionStrategy); each it follows loses
// it from the ISR unless it is the last member (OfflineReplica, with
// StopReplica to the broker). Once ZooKeeper has every change, the answer
// names what it still leads.
void ZkController::controlled_shutdown(BrokerId broker, ShutdownReply reply) {
  if (!is_active()) return reply(Error::NotController, {});
  if (!live(broker)) return reply(Error::BrokerNotAvailable, {});
  shutting_down_.insert(broker);
  ++controller_stats_.controlled_shutdowns;
  publish(ControlledShutdownStarted{broker});
  auto writes = std::make_shared<std::size_t>(1);  // one for this loop, released at its end
  auto done = [this, broker, reply = std::move(reply), writes, g = generation_](bool) {
    if (--*writes > 0 || g != generation_) return;
    std::vector<TopicPartition> remaining;
    for (const auto& [tp, state] : partitions_) {
      if (state.leader == broker) remaining.push_back(tp);
    }
    reply(Error::None, remaining);
  };
  for (const auto& [tp, state] : partitions_) {
    if (state.replicas.size() <= 1 || !contains(state.replicas, broker) || state.leader == kNoBroker) continue;
    PartitionState proposed = state;
    std::erase_if(proposed.isr, [&](BrokerId b) { return shutting_down_.contains(b); });
    if (state.leader == broker) {
      proposed.leader = kNoBroker;
      for (const BrokerId b : state.replicas) {
        if (contains(proposed.isr, b) && usable(b, tp)) {
          proposed.leader = b;
          break;
        }
      }
      if (proposed.leader == kNoBroker) continue;  // stays with the broker: "remaining"
    } else {
      proposed.isr = state.isr;
      if (!contains(proposed.isr, broker) || proposed.isr.size() == 1) continue;
      std::erase(proposed.isr, broker);
    }
    ++proposed.leader_epoch;
    ++*writes;
    write_state(std::move(proposed), done);
  }
  flush_pushes();
  done(true);
}

// The controller's side of the request, from another broker's side.
void ZkController::handle_controlled_shutdown(ConnectionId connection, const ControlledShutdownRequest& request) {
  controlled_shutdown(request.broker, [this, connection](Error error, const std::vector<TopicPartition>& remaining) {
    auto response = std::make_unique<ControlledShutdownResponse>();
    response->error = error;
    response->remaining_partitions = remaining;
    send(connection, std::move(response));
  });
}

}  // namespace ksim::models
