// The share consumer's fetching (ShareConsumeRequestManager), its
// application's poll loop and its acknowledgements (implicit and explicit,
// KIP-932's "Acknowledgement in the share consumer").
#include <algorithm>
#include <cassert>

#include "models/client/share_consumer/share_consumer.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

void ShareConsumer::wake_app() {
  if (state_ != ShareConsumerState::Polling || wake_scheduled_) return;
  wake_scheduled_ = true;
  set_timer(0, [this] { poll(); });
}

bool ShareConsumer::poison(const AcquiredRecord& record) const {
  return workload_.poison_every > 0 && record.record % workload_.poison_every == workload_.poison_every - 1;
}

// KafkaShareConsumer.poll(): up to max.poll.records of the acquired records;
// with none buffered it sends ShareFetches (carrying pending acknowledgements)
// and waits for their answers.
void ShareConsumer::poll() {
  wake_scheduled_ = false;
  if (state_ != ShareConsumerState::Polling) return;
  if (buffer_.empty()) return send_fetches();
  const auto take = std::min(buffer_.size(), static_cast<std::size_t>(config_.max_poll_records));
  in_process_.assign(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(take));
  buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(take));
  next_to_process_ = 0;
  for (const AcquiredRecord& r : in_process_) {
    history_.client_events.push_back(
        {index_, r.partition, r.offset, r.writer, r.record, r.delivery_count, false, poison(r), now()});
  }
  to(ShareConsumerState::Processing);
  process_next();
}

void ShareConsumer::process_next() {
  if (state_ != ShareConsumerState::Processing) return;
  if (next_to_process_ >= in_process_.size()) return finished_processing();
  const SimTime delay = workload_.processing_time.sample(rng());
  set_timer(delay, [this] {
    if (state_ != ShareConsumerState::Processing) return;
    const AcquiredRecord& r = in_process_[next_to_process_++];
    const bool failed = poison(r);
    history_.client_events.push_back({index_, r.partition, r.offset, r.writer, r.record, r.delivery_count, true, failed, now()});
    if (!failed) ++processed_;
    // Explicit mode acknowledges each record as it is done; implicit mode
    // accepts the whole poll's records (below, as the next poll would).
    if (config_.acknowledgement_mode == ShareAcknowledgementMode::Explicit) {
      const AcknowledgeType type = failed ? workload_.poison_acknowledge : AcknowledgeType::Accept;
      pending_acks_[leader_of(r.partition)].push_back({r.partition, r.offset, type});
    }
    process_next();
  });
}

void ShareConsumer::finished_processing() {
  if (config_.acknowledgement_mode == ShareAcknowledgementMode::Implicit) {
    for (const AcquiredRecord& r : in_process_) {
      pending_acks_[leader_of(r.partition)].push_back({r.partition, r.offset, AcknowledgeType::Accept});
    }
  }
  in_process_.clear();
  if (workload_.commit_sync && send_acknowledgements(true, false)) {
    to(ShareConsumerState::Committing);  // commitSync(): until every leader answered
    return;
  }
  send_acknowledgements(false, false);
  to(ShareConsumerState::Polling);
  wake_app();
}

// One ShareFetch per leader of the assigned partitions, with the
// acknowledgements pending for it.
void ShareConsumer::send_fetches() {
  if (state_ != ShareConsumerState::Polling) return;
  std::map<BrokerId, std::vector<TopicPartition>> by_leader;
  for (const TopicPartition tp : assignment_) {
    const BrokerId leader = leader_of(tp);
    if (leader != kNoBroker) by_leader[leader].push_back(tp);
  }
  bool unreachable = false;
  for (auto& [broker, partitions] : by_leader) {
    if (fetch_in_flight_.contains(broker)) continue;
    if (!ensure_connected(broker)) {
      unreachable = true;
      continue;
    }
    auto request = std::make_unique<ShareFetchRequest>();
    const std::int64_t correlation = request->correlation_id = next_correlation_id();
    request->group = config_.group_id;
    request->member_id = member_id_;
    request->partitions = std::move(partitions);
    request->max_records = config_.max_poll_records;
    request->max_wait = config_.fetch_max_wait;
    if (const auto acks = pending_acks_.find(broker); acks != pending_acks_.end()) {
      request->acknowledgements = std::move(acks->second);
      pending_acks_.erase(acks);
    }
    fetch_in_flight_[broker] = correlation;
    send(link(broker).connection, std::move(request));
  }
  if (unreachable || by_leader.size() < assignment_.size()) {
    // A partition without a known leader, or a leader not reachable yet: try again.
    if (!retry_pending_) {
      retry_pending_ = true;
      set_timer(config_.retry_backoff, [this] {
        retry_pending_ = false;
        refresh_metadata();
        send_fetches();
      });
    }
  }
}

void ShareConsumer::handle_share_fetch(const ShareFetchResponse& response) {
  const auto in_flight = std::find_if(fetch_in_flight_.begin(), fetch_in_flight_.end(),
                                      [&](const auto& f) { return f.second == response.correlation_id; });
  if (in_flight == fetch_in_flight_.end()) return;
  fetch_in_flight_.erase(in_flight);
  if (!response.partition_errors.empty()) refresh_metadata();  // NOT_LEADER_OR_FOLLOWER: the leader moved
  if (state_ == ShareConsumerState::Closing) {  // acquired while closing: the closing session releases them
    return;
  }
  buffer_.insert(buffer_.end(), response.records.begin(), response.records.end());
  if (state_ == ShareConsumerState::Polling && !buffer_.empty()) return wake_app();
  if (state_ == ShareConsumerState::Polling) send_fetches();  // nothing came: ask the leaders not asked yet
}

bool ShareConsumer::send_acknowledgements(bool now_or_never, bool close_session) {
  bool sent = false;
  std::vector<BrokerId> leaders;
  for (const auto& [broker, acks] : pending_acks_) leaders.push_back(broker);
  if (close_session) {
    for (const auto& [broker, link] : links()) {
      if (link.connected && std::find(leaders.begin(), leaders.end(), broker) == leaders.end()) leaders.push_back(broker);
    }
  }
  for (const BrokerId broker : leaders) {
    if (broker == kNoBroker) continue;
    // They go with the next ShareFetch to this leader, if one will go: a leader
    // of no assigned partition (the assignment moved) gets a ShareAcknowledge
    // (ShareConsumeRequestManager: acknowledgements for nodes not fetched from).
    const bool fetched_from = std::any_of(assignment_.begin(), assignment_.end(),
                                          [&](const TopicPartition tp) { return leader_of(tp) == broker; });
    if (!now_or_never && !fetch_in_flight_.contains(broker) && fetched_from) continue;
    if (!ensure_connected(broker)) continue;
    auto request = std::make_unique<ShareAcknowledgeRequest>();
    const std::int64_t correlation = request->correlation_id = next_correlation_id();
    request->group = config_.group_id;
    request->member_id = member_id_;
    request->close_session = close_session;
    if (const auto acks = pending_acks_.find(broker); acks != pending_acks_.end()) {
      request->acknowledgements = std::move(acks->second);
      pending_acks_.erase(acks);
    }
    acks_in_flight_[correlation] = broker;
    send(link(broker).connection, std::move(request));
    sent = true;
  }
  return sent;
}

void ShareConsumer::handle_share_acknowledge(const ShareAcknowledgeResponse& response) {
  if (acks_in_flight_.erase(response.correlation_id) == 0) return;
  if (state_ == ShareConsumerState::Closing) return finish_close();
  if (state_ == ShareConsumerState::Committing && acks_in_flight_.empty()) {
    to(ShareConsumerState::Polling);
    wake_app();
  }
}

}  // namespace ksim::models
