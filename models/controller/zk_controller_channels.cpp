// The ZooKeeper-era controller's channels to the brokers
// (ControllerChannelManager): what changed goes to the live brokers, one push
// each (LeaderAndIsr and UpdateMetadata as ksim's MetadataUpdate), and each
// push is kept until its broker answers it. Kafka's RequestSendThread takes
// one request at a time and sends it until it is answered: a connection that
// cannot be made or is lost is closed, and after a 100 ms backoff made again
// and the request sent again. It stops only when the controller removes the
// broker (it left the live set, or bounced: KIP-380) or resigns. Here pushes
// go out without waiting for the previous one's answer (a connection keeps
// their order) and are all sent again, in order, on the next connection.
// Not modelled: controller.socket.timeout.ms (30 s) on an answer that does not
// come; the network here keeps a connection open and delivers when a pause or
// a cut shorter than a reset ends.
#include <cassert>

#include "models/controller/zk_controller.hpp"

namespace ksim::models {

namespace {
constexpr SimTime kReconnectBackoff = milliseconds(100);  // RequestSendThread.backoff
}  // namespace

// Each broker's push carries the states, the live brokers and the controller;
// its offset orders a controller's pushes, and a later controller's above an
// earlier's.
void ZkController::push(const std::vector<PartitionState>& states, const std::vector<BrokerId>& to) {
  for (const BrokerId b : to) {
    MetadataUpdate update;
    update.partitions = states;
    update.live_brokers = live_brokers();
    update.offset = (static_cast<std::int64_t>(epoch_) << 32) + ++update_sequence_;
    update.controller = broker_;
    const auto known = live_.find(b);
    if (config_.broker_epochs && known != live_.end() && known->second != 0) update.broker_epoch = known->second;
    BrokerChannel& channel = channels_[b];
    channel.unanswered.push_back(update);
    if (channel.connection) {
      send(*channel.connection, std::make_unique<MetadataUpdate>(std::move(update)));
    } else if (!channel.reconnect) {
      open_channel(b);
    }  // else sent with the others once it reconnects
  }
}

void ZkController::push_all(const std::vector<BrokerId>& to) {
  std::vector<PartitionState> states;
  for (const auto& [tp, state] : partitions_) states.push_back(state);
  push(states, to);
}

// What changed goes to every live broker once the ZooKeeper writes in flight
// have all completed: Kafka's controller waits for a batch of writes
// (KafkaZkClient.updateLeaderAndIsr) within one event, then sends one
// LeaderAndIsr per broker (ControllerBrokerRequestBatch.sendRequestsToBrokers),
// so a controlled shutdown's moved leaderships reach a follower together.
void ZkController::flush_pushes() {
  if (pending_push_.empty() || writes_in_flight_ > 0) return;
  std::vector<PartitionState> states = std::move(pending_push_);
  pending_push_.clear();
  push(states, live_brokers());
}

// A connection to the broker, and every push it has not answered on it, in order.
void ZkController::open_channel(BrokerId broker) {
  BrokerChannel& channel = channels_.at(broker);
  channel.reconnect.reset();
  channel.connection = connect(directory_->broker_nodes.at(static_cast<std::size_t>(broker)));
  for (const MetadataUpdate& update : channel.unanswered) {
    send(*channel.connection, std::make_unique<MetadataUpdate>(update));
  }
}

// False when the connection is not a channel's. A channel with pushes
// unanswered reconnects after the backoff and sends them again; an idle one
// connects with its next push.
bool ZkController::channel_closed(ConnectionId connection) {
  for (auto& [broker, channel] : channels_) {
    if (channel.connection != connection) continue;
    channel.connection.reset();
    if (channel.unanswered.empty()) return true;
    channel.reconnect = set_timer(kReconnectBackoff, [this, b = broker] {
      stats_.pushes_resent += channels_.at(b).unanswered.size();
      open_channel(b);
    });
    return true;
  }
  return false;
}

// A broker answers its pushes in the order they came on the connection.
void ZkController::channel_answered(ConnectionId connection) {
  for (auto& [broker, channel] : channels_) {
    if (channel.connection != connection) continue;
    assert(!channel.unanswered.empty());  // a broker answers only what its controller sent
    if (!channel.unanswered.empty()) channel.unanswered.pop_front();
    return;
  }
}

// ControllerChannelManager.removeBroker: its thread stops, what it had not sent goes.
void ZkController::remove_channels(const std::vector<BrokerId>& brokers) {
  for (const BrokerId b : brokers) {
    const auto it = channels_.find(b);
    if (it == channels_.end()) continue;
    if (it->second.connection) close(*it->second.connection);
    if (it->second.reconnect) cancel_timer(*it->second.reconnect);
    channels_.erase(it);
  }
}

void ZkController::close_channels() {
  std::vector<BrokerId> brokers;
  for (const auto& [b, channel] : channels_) brokers.push_back(b);
  remove_channels(brokers);
}

}  // namespace ksim::models
