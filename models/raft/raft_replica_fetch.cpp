// RaftReplica: replication by fetching from the leader, the leader's fetch
// purgatory, the follower's high watermark, and the leader's appends and
// fsyncs (KafkaRaftClient.handleFetchRequest, tryCompleteFetchRequest,
// handleFetchResponse, maybeAppendBatches, flushLeaderLog; BatchAccumulator).
#include <algorithm>
#include <cassert>

#include "models/raft/raft_replica.hpp"

namespace ksim::models {

// handleFetchRequest: answered at once when there is something to say (an
// error, entries, a divergence), else held until the log grows or max wait passes.
void RaftReplica::handle_fetch(const MetadataFetchRequest& request) {
  assert(request.name() == MetadataFetchRequest::kName);
  assert(request.fetch_offset >= 0 && request.last_fetched_epoch >= 0);
  assert(request.last_fetched_epoch <= request.current_leader_epoch && "a fetcher's log is not ahead of its epoch");
  const ParkedFetch fetch{request.source,       request.correlation_id, request.current_leader_epoch,
                          request.fetch_offset, request.last_fetched_epoch, request.max_bytes,
                          host_.now() + request.max_wait, request.high_watermark};
  auto response = try_complete_fetch(fetch);
  if (response->error != Error::None || !response->entries.empty() || request.max_wait == 0 ||
      response->diverging_epoch || has_news_for(fetch)) {
    host_.send(fetch.replica, std::move(response));
    return;
  }
  parked_.push_back(fetch);
}

// tryCompleteFetchRequest: only the leader of the fetcher's epoch serves it. A
// fetch that matches the log records the fetcher's offset (the high watermark
// may move) and returns entries from it, committed or not.
std::unique_ptr<MetadataFetchResponse> RaftReplica::try_complete_fetch(const ParkedFetch& fetch) {
  auto response = std::make_unique<MetadataFetchResponse>();
  Error error = Error::None;
  if (fetch.current_leader_epoch < epoch()) {
    error = Error::FencedLeaderEpoch;
  } else if (fetch.current_leader_epoch > epoch()) {
    error = Error::UnknownLeaderEpoch;
  } else if (role_ != RaftRole::Leader) {
    error = Error::NotLeaderOrFollower;
  } else {
    response->diverging_epoch = log().diverging_epoch(fetch.fetch_offset, fetch.last_fetched_epoch);
    if (!response->diverging_epoch) {
      response->entries = log().read(fetch.fetch_offset, fetch.max_bytes);
      leader_state_->update_replica(fetch.replica, fetch.fetch_offset, host_.now());
    }
    response->high_watermark = leader_state_->high_watermark().value_or(-1);
  }
  response->correlation_id = fetch.correlation_id;
  response->source = id_;
  response->error = error;
  response->leader_epoch = epoch();
  response->leader_id = leader();
  return response;
}

// The fetch purgatory: held fetches are answered when the leader's log grew
// past them, their max wait passed, or this replica no longer leads (`all`).
void RaftReplica::answer_parked_fetches(bool all) {
  if (parked_.empty()) return;
  std::vector<ParkedFetch> waiting;
  std::vector<ParkedFetch> due;
  for (const ParkedFetch& fetch : parked_) {
    const bool ready = all || role_ != RaftRole::Leader || host_.now() >= fetch.deadline ||
                       log().end_offset() > fetch.fetch_offset || has_news_for(fetch);
    (ready ? due : waiting).push_back(fetch);
  }
  parked_ = std::move(waiting);
  for (const ParkedFetch& fetch : due) host_.send(fetch.replica, try_complete_fetch(fetch));
}

// KIP-1166: the leader's high watermark is past the one the fetcher sent.
bool RaftReplica::has_news_for(const ParkedFetch& fetch) const {
  if (!config_.fetch_carries_high_watermark || role_ != RaftRole::Leader) return false;
  const std::optional<Offset> hw = leader_state_->high_watermark();
  return hw && *hw > fetch.high_watermark;
}

SimTime RaftReplica::parked_fetch_deadline() const {
  SimTime deadline = kNever;
  for (const ParkedFetch& fetch : parked_) deadline = std::min(deadline, fetch.deadline);
  return deadline;
}

// A voter's fetch offset is durable: it flushes what it appended before it
// fetches again (appendAsFollower), and the leader counts that offset.
bool RaftReplica::flush_before_fetch() const { return is_voter() || config_.followers_always_flush; }

// buildFetchRequest at the log's end. When a request may go next, or kNever while a flush must finish first.
SimTime RaftReplica::maybe_send_fetch(RaftNodeId to) {
  if (flush_before_fetch() && log().flushed_end_offset() < log().end_offset()) {
    maybe_start_flush();
    return kNever;  // the flush's completion is a deadline of its own
  }
  if (requests_.is_ready(to, host_.now())) {
    auto request = std::make_unique<MetadataFetchRequest>();
    request->current_leader_epoch = epoch();
    request->fetch_offset = log().end_offset();
    request->last_fetched_epoch = log().last_epoch();
    request->max_wait = config_.fetch_max_wait;
    request->max_bytes = config_.fetch_max_bytes;
    if (config_.fetch_carries_high_watermark) request->high_watermark = high_watermark_.value_or(-1);
    send_request(to, std::move(request));
    ++stats_.fetches_sent;
  }
  return requests_.ready_at(to);
}

// maybeSendAnyVoterFetch: an observer that knows no (live) leader asks a
// random ready voter, one request at a time; the answer names the leader.
SimTime RaftReplica::send_fetch_to_any_voter() {
  const SimTime now = host_.now();
  if (!requests_.any_awaiting(now)) {
    const std::size_t start = host_.random().below(voters_.size());
    for (std::size_t i = 0; i < voters_.size(); ++i) {
      const RaftNodeId voter = voters_[(start + i) % voters_.size()];
      if (voter == id_ || !requests_.is_ready(voter, now)) continue;
      maybe_send_fetch(voter);
      break;
    }
  }
  SimTime next = kNever;
  for (const RaftNodeId voter : voters_) {
    if (voter != id_ && !requests_.is_ready(voter, now)) next = std::min(next, requests_.ready_at(voter));
  }
  return next;
}

// handleFetchResponse: truncate to a diverging epoch, or append what came and
// take the leader's high watermark (up to this log's end).
void RaftReplica::handle_fetch_response(const MetadataFetchResponse& response) {
  assert(response.name() == MetadataFetchResponse::kName);
  handle_response(response, [&] {
    assert(role_ == RaftRole::Follower && response.source == leader() && "only the leader serves a fetch");
    if (response.diverging_epoch) {
      const Offset before = log().end_offset();
      const Offset end = state_.log().truncate_to_end_offset(*response.diverging_epoch);
      assert((!high_watermark_ || end >= *high_watermark_) && "never truncates committed entries");
      if (flush_target_ > end) flush_target_ = end;
      ++stats_.truncations;
      stats_.truncated_entries += static_cast<std::uint64_t>(before - end);
    } else {
      if (!response.entries.empty()) {
        assert(response.entries.front().offset == log().end_offset());
        state_.log().append_entries(response.entries);
      }
      if (response.high_watermark >= 0) update_follower_high_watermark(response.high_watermark);
    }
    fetch_deadline_ = host_.now() + config_.fetch_timeout;
    fetched_from_leader_ = true;
  });
}

// updateFollowerHighWatermark: FollowerState's high watermark only grows.
void RaftReplica::update_follower_high_watermark(Offset leader_high_watermark) {
  const Offset hw = std::min(log().end_offset(), leader_high_watermark);
  assert((!high_watermark_ || hw >= *high_watermark_) && "a follower's high watermark never goes back");
  if (!high_watermark_ || hw > *high_watermark_) high_watermark_ = hw;
}

// maybeAppendBatches: after the linger, the appends go to the log as their
// batches; held fetches see them at once, before the flush.
void RaftReplica::drain_appends() {
  for (const auto& batch : pending_) state_.log().append_batch(epoch(), batch);
  pending_.clear();
  linger_deadline_ = kNever;
  assert(next_offset_ == log().end_offset());
  answer_parked_fetches(false);
  maybe_start_flush();
}

// One fsync at a time, of the log as it ends when it starts.
void RaftReplica::maybe_start_flush() {
  if (flush_target_ >= 0 || log().flushed_end_offset() >= log().end_offset()) return;
  flush_target_ = log().end_offset();
  flush_done_at_ = host_.now() + config_.fsync_latency;
  complete_flush_if_due();
}

// The fsync completed: the leader's flushed end counts towards the high watermark.
void RaftReplica::complete_flush_if_due() {
  if (flush_target_ < 0 || host_.now() < flush_done_at_) return;
  state_.log().flushed(flush_target_);
  flush_target_ = -1;
  flush_done_at_ = kNever;
  if (role_ == RaftRole::Leader) leader_state_->update_local(log().flushed_end_offset());
}

}  // namespace ksim::models
