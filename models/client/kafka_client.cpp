#include "models/client/kafka_client.hpp"

#include <algorithm>
#include <limits>

#include "models/client/exponential_backoff.hpp"
#include "models/protocol/group_messages.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

KafkaClient::KafkaClient(Simulation& sim, std::string name, HostId host,
                         std::shared_ptr<const ClusterDirectory> directory, ModelEventBus& events,
                         std::int32_t main_topic, ClientTimeouts timeouts)
    : Node(sim, std::move(name), host),
      directory_(std::move(directory)),
      events_(events),
      timeouts_(timeouts),
      main_topic_(main_topic),
      main_topic_leaders_(static_cast<std::size_t>(directory_->topics[static_cast<std::size_t>(main_topic)].partitions),
                          kNoBroker),
      main_topic_epochs_(main_topic_leaders_.size(), 0),
      metadata_rng_(sim.stream(this->name() + "/metadata")),
      reconnect_rng_(sim.stream(this->name() + "/reconnect")),
      least_loaded_rng_(sim.stream(this->name() + "/least-loaded")) {
  set_connect_timeout(timeouts_.connection_setup_timeout);
}

bool KafkaClient::ensure_connected(BrokerId broker) {
  BrokerLink& l = link(broker);
  if (l.connected) return true;
  if (now() < l.retry_at) return false;
  l.connection = connect(directory_->broker_nodes[static_cast<std::size_t>(broker)]);
  l.connected = true;
  l.established = false;
  l.last_connect_attempt = now();
  return true;
}

void KafkaClient::disconnect_timed_out(ConnectionId connection) {
  close(connection);
  on_connection_closed(connection);
}

int KafkaClient::requests_in_flight(BrokerId broker) const {
  const auto it = links_.find(broker);
  if (it == links_.end() || !it->second.connected) return 0;
  return it->second.in_flight + (metadata_in_flight_ && metadata_connection_ == it->second.connection ? 1 : 0);
}

bool KafkaClient::can_send_more(BrokerId broker) const { return requests_in_flight(broker) < 100; }

std::optional<BrokerId> KafkaClient::least_loaded_broker() {
  const auto brokers = static_cast<BrokerId>(directory_->broker_nodes.size());
  if (brokers == 0) return std::nullopt;
  const auto offset = static_cast<BrokerId>(least_loaded_rng_.below(static_cast<std::uint64_t>(brokers)));
  std::optional<BrokerId> ready, connecting, can_connect;
  int fewest = std::numeric_limits<int>::max();
  SimTime oldest_attempt = 0;
  for (BrokerId i = 0; i < brokers; ++i) {
    const BrokerId broker = (offset + i) % brokers;
    const auto it = links_.find(broker);
    const BrokerLink* l = it == links_.end() ? nullptr : &it->second;
    if (l && l->established && can_send_more(broker)) {
      const int in_flight = requests_in_flight(broker);
      if (in_flight == 0) return broker;
      if (in_flight < fewest) {
        fewest = in_flight;
        ready = broker;
      }
    } else if (l && l->connected && !l->established) {
      connecting = broker;
    } else if (!l || (!l->connected && now() >= l->retry_at)) {
      const SimTime attempt = l ? l->last_connect_attempt : 0;
      if (!can_connect || oldest_attempt > attempt) {
        can_connect = broker;
        oldest_attempt = attempt;
      }
    }
  }
  if (ready) return ready;
  if (connecting) return connecting;
  return can_connect;
}

// ClusterConnectionStates.disconnected: the next connect waits
// reconnect.backoff.ms x 2^(failed attempts), 20% jitter, capped at
// reconnect.backoff.max.ms; ready() resets the count.
void KafkaClient::link_closed(BrokerLink& l) {
  l.connected = false;
  l.established = false;
  l.retry_at = now() + exponential_backoff(timeouts_.reconnect_backoff, timeouts_.reconnect_backoff_max,
                                           l.failed_attempts++, reconnect_rng_);
}

void KafkaClient::on_connected(ConnectionId connection) {
  for (auto& [broker, l] : links_) {
    if (!l.connected || l.connection != connection) continue;
    l.established = true;
    l.failed_attempts = 0;
    if (metadata_awaits_connection_ && metadata_connection_ == connection) {
      metadata_awaits_connection_ = false;
      send_metadata_request();
    }
    on_link_ready(broker);
    return;
  }
}

BrokerId KafkaClient::leader_of(TopicPartition tp) const {
  if (tp.topic == main_topic_) return main_topic_leaders_[static_cast<std::size_t>(tp.partition)];
  const auto it = metadata_.find(tp);
  return it == metadata_.end() ? kNoBroker : it->second.leader;
}

Epoch KafkaClient::leader_epoch_of(TopicPartition tp) const {
  if (tp.topic == main_topic_) return main_topic_epochs_[static_cast<std::size_t>(tp.partition)];
  const auto it = metadata_.find(tp);
  return it == metadata_.end() ? 0 : it->second.leader_epoch;
}

// Metadata.timeToAllowUpdate: the backoff of its attempts (none failed: backoff(0))
// and of its equivalent answers (backoff(count - 1)), one jitter drawn for both.
SimTime KafkaClient::metadata_refresh_allowed_at() {
  if (last_metadata_update_ == kNever) return now();
  const int attempts = std::max(0, equivalent_responses_ - 1);
  return last_metadata_update_ +
         exponential_backoff(timeouts_.retry_backoff, timeouts_.retry_backoff_max, attempts, metadata_rng_);
}

// Asks any broker (bootstrap.servers, in turn) for the partitions' leaders.
void KafkaClient::refresh_metadata() {
  if (metadata_in_flight_ || metadata_refresh_scheduled_) return;
  const SimTime allowed_at = metadata_refresh_allowed_at();
  if (now() < allowed_at) {
    metadata_refresh_scheduled_ = true;
    metadata_refresh_timer_ = set_timer(allowed_at - now(), [this] {
      metadata_refresh_scheduled_ = false;
      refresh_metadata();
    });
    return;
  }
  const std::optional<BrokerId> broker = least_loaded_broker();
  if (!broker) {  // DefaultMetadataUpdater.maybeUpdate: no node available, try again after reconnect.backoff.ms
    metadata_refresh_scheduled_ = true;
    metadata_refresh_timer_ = set_timer(timeouts_.reconnect_backoff, [this] {
      metadata_refresh_scheduled_ = false;
      refresh_metadata();
    });
    return;
  }
  ensure_connected(*broker);
  const std::int64_t correlation = metadata_correlation_ = next_correlation_id();
  metadata_in_flight_ = true;
  metadata_connection_ = link(*broker).connection;
  // NetworkClient.maybeUpdate only starts the connect; the request is built
  // (with the topics known then) once the connection is ready.
  metadata_awaits_connection_ = !link(*broker).established;
  if (!metadata_awaits_connection_) send_metadata_request();
  // request.timeout.ms applies to every request (here from the connect on): its
  // connection is closed, and another broker asked.
  set_timer(timeouts_.request_timeout, [this, correlation] {
    if (!metadata_in_flight_ || metadata_correlation_ != correlation) return;
    metadata_in_flight_ = false;
    metadata_awaits_connection_ = false;
    disconnect_timed_out(metadata_connection_);
    refresh_metadata();
  });
}

void KafkaClient::send_metadata_request() {
  auto request = std::make_unique<MetadataRequest>();
  request->correlation_id = metadata_correlation_;
  request->topic = main_topic_named_ ? main_topic_ : -1;
  request->allow_auto_topic_creation = allow_auto_topic_creation_;
  send(metadata_connection_, std::move(request));
}

// Metadata.requestUpdateForNewTopics: a topic the application just named is
// asked for at once, without the backoff of the answers before.
void KafkaClient::refresh_metadata_for_new_topic() {
  last_metadata_update_ = kNever;
  equivalent_responses_ = 0;
  if (metadata_refresh_scheduled_) {
    cancel_timer(metadata_refresh_timer_);
    metadata_refresh_scheduled_ = false;
  }
  refresh_metadata();
}

void KafkaClient::name_main_topic() {
  main_topic_named_ = true;
  refresh_metadata_for_new_topic();
}

void KafkaClient::apply_metadata(const MetadataResponse& response) {
  metadata_in_flight_ = false;
  last_metadata_update_ = now();
  ++equivalent_responses_;  // Metadata.update; updateLatestMetadata resets it on news
  bool leaderless = false;
  for (const PartitionState& state : response.partitions) {
    const bool seen = metadata_.contains(state.partition);
    auto& known = metadata_[state.partition];
    if (!seen || state.leader_epoch > known.leader_epoch) equivalent_responses_ = 0;
    if (state.leader_epoch >= known.leader_epoch) {  // never go back to an older leader
      if (state.leader_epoch != known.leader_epoch || state.leader != known.leader) ++metadata_version_;
      known = state;
    }
    leaderless |= known.leader == kNoBroker;
    if (state.partition.topic == main_topic_) {
      main_topic_known_ = true;
      main_topic_leaders_[static_cast<std::size_t>(state.partition.partition)] = known.leader;
      main_topic_epochs_[static_cast<std::size_t>(state.partition.partition)] = known.leader_epoch;
    }
  }
  const bool was_missing = main_topic_missing_;
  main_topic_missing_ = !main_topic_known_ && std::find(response.missing_topics.begin(), response.missing_topics.end(),
                                                        main_topic_) != response.missing_topics.end();
  if (main_topic_missing_ != was_missing) ++metadata_version_;
  const bool incomplete = std::find(main_topic_leaders_.begin(), main_topic_leaders_.end(), kNoBroker) !=
                          main_topic_leaders_.end();
  // The sender asks again for partitions without a leader; Metadata's backoff paces it.
  if (leaderless || (incomplete && main_topic_named_)) refresh_metadata();
}

void KafkaClient::update_partition_leadership(TopicPartition tp, BrokerId leader, Epoch epoch) {
  auto& known = metadata_[tp];
  const bool newer = epoch > known.leader_epoch || (epoch == known.leader_epoch && known.leader == kNoBroker);
  if (!newer) return;
  known.partition = tp;
  known.leader = leader;
  known.leader_epoch = epoch;
  ++metadata_version_;
  if (tp.topic == main_topic_) {
    main_topic_known_ = true;
    main_topic_missing_ = false;
    main_topic_leaders_[static_cast<std::size_t>(tp.partition)] = leader;
    main_topic_epochs_[static_cast<std::size_t>(tp.partition)] = epoch;
  }
}

std::vector<BrokerId> KafkaClient::connection_lost(ConnectionId connection) {
  std::vector<BrokerId> lost;
  for (auto& [broker, l] : links_) {
    if (l.connected && l.connection == connection) {
      link_closed(l);
      lost.push_back(broker);
    }
  }
  // NetworkClient fails the requests in flight on this connection only: a
  // metadata request to another broker still waits for its answer.
  if (connection == metadata_connection_) metadata_in_flight_ = metadata_awaits_connection_ = false;
  // DefaultMetadataUpdater.handleServerDisconnect: "the disconnect may be the
  // result of stale metadata, so request an update" (any connection's).
  refresh_metadata();
  return lost;
}

void KafkaClient::forget_connections_and_metadata() {
  links_.clear();
  metadata_.clear();
  main_topic_known_ = false;
  main_topic_missing_ = false;
  ++metadata_version_;
  std::fill(main_topic_leaders_.begin(), main_topic_leaders_.end(), kNoBroker);
  std::fill(main_topic_epochs_.begin(), main_topic_epochs_.end(), 0);
  metadata_in_flight_ = false;
  metadata_awaits_connection_ = false;
  last_metadata_update_ = kNever;
  equivalent_responses_ = 0;
  metadata_refresh_scheduled_ = false;  // its timer died with the process
}

std::optional<std::pair<std::int64_t, ConnectionId>> KafkaClient::send_find_coordinator(const std::string& key,
                                                                                        bool transaction) {
  const std::optional<BrokerId> broker = least_loaded_broker();
  if (!broker) return std::nullopt;
  ensure_connected(*broker);
  auto request = std::make_unique<FindCoordinatorRequest>();
  const std::int64_t correlation = request->correlation_id = next_correlation_id();
  request->group = key;
  request->transaction = transaction;
  const ConnectionId connection = link(*broker).connection;
  send(connection, std::move(request));
  return std::pair{correlation, connection};
}

}  // namespace ksim::models
