// The share consumer's lifecycle and membership (ShareHeartbeatRequestManager,
// ShareMembershipManager); fetching and the application: share_consumer_fetch.cpp.
#include "models/client/share_consumer/share_consumer.hpp"

#include <cassert>

#include "sim/core/simulation.hpp"

namespace ksim::models {

std::string_view to_string(ShareConsumerState state) {
  switch (state) {
    case ShareConsumerState::Joining: return "joining";
    case ShareConsumerState::Polling: return "polling";
    case ShareConsumerState::Processing: return "processing";
    case ShareConsumerState::Committing: return "committing";
    case ShareConsumerState::Closing: return "closing";
  }
  return "?";
}

// Joining -> Polling once assigned; Polling -> Processing with records;
// Processing -> Committing (commitSync) or Polling; Committing -> Polling;
// any -> Closing; Polling/Processing/Committing -> Joining after losing the group.
bool legal(ShareConsumerState from, ShareConsumerState to) {
  using S = ShareConsumerState;
  if (to == S::Closing) return from != S::Closing;
  switch (from) {
    case S::Joining: return to == S::Polling;
    case S::Polling: return to == S::Processing || to == S::Joining;
    case S::Processing: return to == S::Committing || to == S::Polling || to == S::Joining;
    case S::Committing: return to == S::Polling || to == S::Joining;
    case S::Closing: return false;
  }
  return false;
}

ShareConsumer::ShareConsumer(Simulation& sim, std::string name, HostId host, std::uint32_t index,
                             ShareConsumerConfig config, ShareConsumerWorkload workload,
                             std::shared_ptr<const ClusterDirectory> directory, ModelEventBus& events,
                             ShareHistory& history)
    : KafkaClient(sim, std::move(name), host, directory, events, workload.topic,
                  ClientTimeouts{config.request_timeout, config.retry_backoff, config.reconnect_backoff,
                                 config.retry_backoff_max, config.reconnect_backoff_max, config.connection_setup_timeout}),
      index_(index),
      config_(std::move(config)),
      workload_(std::move(workload)),
      history_(history) {}

void ShareConsumer::to(ShareConsumerState next) {
  assert(legal(state_, next) && "ShareConsumerState transition");
  state_ = next;
}

void ShareConsumer::on_start() {
  // A new member id per process (the client makes its own, a UUID in Kafka).
  member_id_ = name() + "/" + std::to_string(incarnation());
  history_.members[member_id_] = {index_, now()};
  refresh_metadata();
  find_coordinator();
}

void ShareConsumer::on_crash(CrashKind kind) {
  if (kind != CrashKind::Shutdown) history_.crashes.emplace_back(index_, now());
  forget_connections_and_metadata();
  state_ = ShareConsumerState::Joining;
  member_epoch_ = 0;
  assignment_.clear();
  coordinator_ = kNoBroker;
  find_correlation_ = -1;
  heartbeat_correlation_ = -1;
  fetch_in_flight_.clear();
  fetch_connection_.clear();
  buffer_.clear();
  in_process_.clear();
  next_to_process_ = 0;
  pending_acks_.clear();
  acks_in_flight_.clear();
  wake_scheduled_ = false;
  retry_pending_ = false;
}

// KafkaShareConsumer.close(): acknowledge what is pending, close the share
// sessions (the leaders release the member's records), leave the group.
void ShareConsumer::on_shutdown_requested() {
  if (state_ == ShareConsumerState::Closing) return;
  to(ShareConsumerState::Closing);
  send_acknowledgements(true, true);
  if (coordinator_ != kNoBroker) send_heartbeat(kLeaveMemberEpoch);
  if (acks_in_flight_.empty() && heartbeat_correlation_ < 0) return crash(CrashKind::Shutdown);
  set_timer(config_.request_timeout, [this] { crash(CrashKind::Shutdown); });
}

void ShareConsumer::finish_close() {
  if (state_ == ShareConsumerState::Closing && acks_in_flight_.empty() && heartbeat_correlation_ < 0) {
    crash(CrashKind::Shutdown);
  }
}

void ShareConsumer::on_message(ConnectionId, MessagePtr message) {
  const ApiMessage& m = api_message(*message);
  switch (m.api_key()) {
    case ApiKey::Metadata:
      apply_metadata(message_as<MetadataResponse>(m));
      return send_fetches();
    case ApiKey::FindCoordinator: return handle_find_coordinator(message_as<FindCoordinatorResponse>(m));
    case ApiKey::ShareGroupHeartbeat: return handle_heartbeat(message_as<ShareGroupHeartbeatResponse>(m));
    case ApiKey::ShareFetch: return handle_share_fetch(message_as<ShareFetchResponse>(m));
    case ApiKey::ShareAcknowledge: return handle_share_acknowledge(message_as<ShareAcknowledgeResponse>(m));
    default: break;  // a share consumer sends nothing else
  }
  unexpected_message(name(), m);
}

// A lost connection fails what was in flight on it: records a lost ShareFetch
// acquired come back when their locks expire; lost acknowledgements too.
int ShareConsumer::requests_in_flight(BrokerId broker) const {
  return KafkaClient::requests_in_flight(broker) + (fetch_in_flight_.contains(broker) ? 1 : 0);
}

void ShareConsumer::on_connection_closed(ConnectionId connection) {
  if (coordinator_ != kNoBroker && connection == coordinator_connection_) coordinator_lost();
  if (find_correlation_ >= 0 && connection == find_connection_) {
    find_correlation_ = -1;  // the FindCoordinator in flight failed with it
    set_timer(config_.retry_backoff, [this] { find_coordinator(); });
  }
  const std::vector<BrokerId> lost = connection_lost(connection);
  for (const BrokerId broker : lost) {
    fetch_in_flight_.erase(broker);
    for (auto it = acks_in_flight_.begin(); it != acks_in_flight_.end();) {
      it = it->second == broker ? acks_in_flight_.erase(it) : std::next(it);
    }
  }
  if (state_ == ShareConsumerState::Closing) return finish_close();
  if (state_ == ShareConsumerState::Committing && acks_in_flight_.empty()) {
    to(ShareConsumerState::Polling);  // commitSync failed with the connection: the next poll goes on
    wake_app();
  }
  if (coordinator_ == kNoBroker) set_timer(config_.retry_backoff, [this] { find_coordinator(); });
  if (retry_pending_) return;
  retry_pending_ = true;
  set_timer(config_.retry_backoff, [this] {
    retry_pending_ = false;
    refresh_metadata();
    wake_app();
  });
}

void ShareConsumer::find_coordinator() {
  if (find_correlation_ >= 0 || coordinator_ != kNoBroker || state_ == ShareConsumerState::Closing) return;
  if (const auto sent = send_find_coordinator(config_.group_id)) {
    const std::int64_t correlation = find_correlation_ = sent->first;
    find_connection_ = sent->second;
    set_timer(config_.request_timeout, [this, correlation] {
      if (find_correlation_ != correlation) return;
      find_correlation_ = -1;
      disconnect_timed_out(find_connection_);
      find_coordinator();
    });
    return;
  }
  set_timer(config_.retry_backoff, [this] { find_coordinator(); });
}

void ShareConsumer::handle_find_coordinator(const FindCoordinatorResponse& response) {
  if (response.correlation_id != find_correlation_) return;
  find_correlation_ = -1;
  if (response.error != Error::None || !ensure_connected(response.coordinator)) {
    set_timer(config_.retry_backoff, [this] { find_coordinator(); });
    return;
  }
  coordinator_ = response.coordinator;
  coordinator_connection_ = link(coordinator_).connection;
  send_heartbeat(member_epoch_);
}

void ShareConsumer::coordinator_lost() {
  coordinator_ = kNoBroker;
  heartbeat_correlation_ = -1;
  set_timer(config_.retry_backoff, [this] { find_coordinator(); });
}

void ShareConsumer::send_heartbeat(std::int32_t epoch) {
  if (coordinator_ == kNoBroker) return find_coordinator();
  auto request = std::make_unique<ShareGroupHeartbeatRequest>();
  heartbeat_correlation_ = request->correlation_id = next_correlation_id();
  request->group = config_.group_id;
  request->member_id = member_id_;
  request->member_epoch = epoch;
  request->topics = {workload_.topic};
  send(coordinator_connection_, std::move(request));
}

void ShareConsumer::handle_heartbeat(const ShareGroupHeartbeatResponse& response) {
  if (response.correlation_id != heartbeat_correlation_) return;
  heartbeat_correlation_ = -1;
  if (state_ == ShareConsumerState::Closing) return finish_close();
  switch (response.error) {
    case Error::None: break;
    case Error::UnknownMemberId:  // the coordinator forgot the member (a session timeout, a new coordinator)
    case Error::FencedMemberEpoch:
      member_epoch_ = kJoinMemberEpoch;
      set_timer(config_.retry_backoff, [this] { send_heartbeat(member_epoch_); });
      return;
    default:  // NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS
      coordinator_lost();
      return;
  }
  member_epoch_ = response.member_epoch;
  assignment_ = response.assignment;
  set_timer(response.heartbeat_interval, [this, token = ++heartbeat_token_] {
    if (token == heartbeat_token_ && heartbeat_correlation_ < 0) send_heartbeat(member_epoch_);
  });
  if (state_ == ShareConsumerState::Joining && !assignment_.empty()) {
    to(ShareConsumerState::Polling);
    wake_app();
  }
}

}  // namespace ksim::models
