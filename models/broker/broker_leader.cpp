// A partition leader's side of replication: serving follower fetches (with a
// purgatory for replica.fetch.wait.max.ms), tracking followers, advancing the
// high watermark and keeping the ISR (Kafka's Partition and ReplicaManager).
#include <algorithm>
#include <cassert>

#include "models/broker/broker.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

namespace {

bool asks_for(const FetchRequest& request, TopicPartition tp) {
  return std::any_of(request.partitions.begin(), request.partitions.end(), [&](const auto& p) { return p.partition == tp; });
}

}  // namespace

void Broker::handle_fetch(ConnectionId connection, std::unique_ptr<FetchRequest> request) {
  ++(request->replica_id == kNoBroker ? consumer_fetches_ : follower_fetches_);
  FetchSession* session = config_.fetch_sessions ? &session_for(connection, *request) : nullptr;
  std::uint64_t bytes = 0;
  bool must_answer = false;
  answering_ = true;
  auto response = read_for_fetch(*request, session, true, bytes, must_answer);
  answering_ = false;
  if (must_answer || bytes >= request->min_bytes || request->max_wait == 0) {
    send_fetch_when_read(connection, request->replica_id, std::move(response));
    return;
  }
  const std::uint64_t id = next_pending_id_++;
  const SimTime wait = request->max_wait;
  if (request->replica_id == kNoBroker) ++consumer_fetches_waiting_;
  fetch_purgatory_.emplace(id, PendingFetch{connection, std::move(request), TimerId{}});
  fetch_purgatory_.at(id).timeout = set_timer(wait, [this, id] { answer_fetch(id); });
}

// `record_fetch`: the fetch as it arrives, which records the follower's
// position; a parked fetch read again when it may complete does not.
std::unique_ptr<FetchResponse> Broker::read_for_fetch(const FetchRequest& request, FetchSession* session,
                                                      bool record_fetch, std::uint64_t& bytes, bool& must_answer) {
  reads_done_at_ = now();
  remote_read_in_fetch_ = false;
  auto response = std::make_unique<FetchResponse>();
  response->correlation_id = request.correlation_id;
  const bool consumer = request.replica_id == kNoBroker;
  // A follower session learns only from reads that record the follower's position.
  const bool learn = session && (consumer || record_fetch);
  const auto& partitions = request.partitions;
  for (std::size_t i = 0; i < partitions.size(); ++i) {
    constexpr std::size_t kAhead = 8;  // sessions and counts are indexed by partition: ask for them early
    if (session && i + kAhead < partitions.size()) {
      const std::int32_t ahead = global_index(partitions[i + kAhead].partition);
      session->prefetch(ahead);
      __builtin_prefetch(&partition_changes_[static_cast<std::size_t>(ahead)]);
    }
    const auto& p = partitions[i];
    const std::int32_t global = global_index(p.partition);
    bool quiet = session && session->skips(global, p, partition_changes_[static_cast<std::size_t>(global)]);
    if (!quiet) {
      if (learn && !consumer && session->owes_catch_up(global)) catch_up(*session, global);
      Replica* r = replica(p.partition);
      if (!r || !replica_online(*r) || !r->is_leader()) {
        answer_error(*response, p.partition, Error::NotLeaderOrFollower);
        must_answer = true;
      } else if (p.current_leader_epoch >= 0 && p.current_leader_epoch != r->leader_epoch()) {
        // KIP-320: the fetcher's view of the leader is stale or ahead (a fetch without an epoch, before 2.1, is not checked)
        answer_error(*response, p.partition,
                     p.current_leader_epoch < r->leader_epoch() ? Error::FencedLeaderEpoch : Error::UnknownLeaderEpoch);
        must_answer = true;
      } else if (consumer) {
        quiet = read_for_consumer(p, *r, request, *response, bytes, must_answer);
      } else {
        quiet = read_for_follower(p, *r, request, record_fetch, *response, bytes, must_answer);
      }
      if (learn) session->settle(global, p, quiet, partition_changes_[static_cast<std::size_t>(global)]);
    }
    // A consumer's quiet partition is not in the response, but a full fetch still carries it on the wire (KIP-227).
    if (consumer && quiet && !request.incremental) ++response->unlisted_partitions;
  }
  if (learn && !consumer) session->fetched(now());
  return response;
}

// The response's entry for a partition, added at its end (responses keep the request's order).
FetchResponse::PartitionData& Broker::answer(FetchResponse& response, TopicPartition tp) {
  FetchResponse::PartitionData& data = response.partitions.emplace_back();
  data.partition = tp;
  return data;
}

// KIP-951 (KafkaApis.handleFetchRequest): NOT_LEADER_OR_FOLLOWER and
// FENCED_LEADER_EPOCH carry the leader this broker's metadata names.
FetchResponse::PartitionData& Broker::answer_error(FetchResponse& response, TopicPartition tp, Error error) {
  FetchResponse::PartitionData& data = answer(response, tp);
  data.error = error;
  if (error != Error::NotLeaderOrFollower && error != Error::FencedLeaderEpoch) return data;
  if (!config_.mechanisms.has(Mechanism::LeaderDiscovery)) return data;  // a broker before 3.7
  if (const auto hint = leader_hint(tp)) {
    data.current_leader = hint->first;
    data.current_leader_epoch = hint->second;
  }
  return data;
}

// The leader this broker's metadata names for a partition it does not lead: from its replica's state,
// or, for a partition a reassignment took from it, the state it last received (its metadata cache keeps
// the topic): KIP-951's currentLeader.
std::optional<std::pair<BrokerId, Epoch>> Broker::leader_hint(TopicPartition tp) const {
  const Replica* r = replica(tp);
  const PartitionState* state = r ? &r->state() : departed_state(tp);
  if (!state || state->leader == kNoBroker || state->leader == id_) return std::nullopt;
  return std::pair{state->leader, state->leader_epoch};
}

bool Broker::read_for_follower(const FetchRequest::PartitionData& p, Replica& r, const FetchRequest& request,
                               bool record_fetch, FetchResponse& response, std::uint64_t& bytes, bool& must_answer) {
  const PartitionLog& log = r.log();
  if (p.fetch_offset < log.log_start_offset()) {
    // UnifiedLog.read: below the log start offset, OFFSET_OUT_OF_RANGE; the
    // follower starts again at the leader's log start offset (handleOutOfRangeError).
    // KIP-405: below the local log start but not the remote log's,
    // OFFSET_MOVED_TO_TIERED_STORAGE (ReplicaManager.readFromLocalLog).
    const bool in_remote = tiered(r) && p.fetch_offset >= log_start_of(r);
    FetchResponse::PartitionData& data =
        answer_error(response, p.partition, in_remote ? Error::OffsetMovedToTieredStorage : Error::OffsetOutOfRange);
    data.log_start_offset = log_start_of(r);
    if (in_remote) data.local_log_start_offset = log.log_start_offset();
    must_answer = true;
    return false;
  }
  // Divergence (KIP-101, KIP-279, checked in the fetch since KAFKA-10554):
  // where does the follower's last epoch end in the leader's log?
  const bool same_epoch = p.last_fetched_epoch == log.latest_epoch() && p.fetch_offset <= log.log_end_offset();
  if (p.last_fetched_epoch >= 0 && !same_epoch) {
    const auto end = log.end_offset_for_epoch(p.last_fetched_epoch);
    if (!end || end->epoch != p.last_fetched_epoch || end->end_offset < p.fetch_offset) {
      answer(response, p.partition).diverging_epoch = end ? *end : EpochEndOffset{-1, log.log_start_offset()};
      must_answer = true;
      return false;
    }
  }
  if (p.fetch_offset > log.log_end_offset()) {
    // OFFSET_OUT_OF_RANGE: the follower has more than the leader; it truncates to the leader's end.
    answer(response, p.partition).diverging_epoch = EpochEndOffset{log.latest_epoch(), log.log_end_offset()};
    must_answer = true;
    return false;
  }
  // Partition.fetchRecords takes the high watermark before it records the
  // follower's fetch: an immediate answer carries the one from before it.
  const Offset high_watermark = log.high_watermark();
  const bool moved = record_fetch && update_follower(r, request.replica_id, p.fetch_offset);
  const std::uint64_t budget = request.max_bytes > bytes ? request.max_bytes - bytes : 0;
  // KIP-73: a throttled replica's records wait while the leader's replication quota is exceeded.
  const bool throttled = leader_throttled(r, request.replica_id);
  const bool has_data =
      budget > 0 && p.fetch_offset < log.log_end_offset() && !(throttled && leader_quota_.exceeded(now()));
  // Incremental fetch sessions (KIP-227): a partition with no news is left out.
  const FollowerState* follower = r.follower(request.replica_id);
  if (!has_data && follower && follower->high_watermark_sent == high_watermark) {
    return !moved && r.in_isr(request.replica_id) && p.fetch_offset == log.log_end_offset();
  }
  FetchResponse::PartitionData& data = answer(response, p.partition);
  if (has_data) {
    const std::uint64_t read = read_batches(r, data, p.fetch_offset, std::min(request.partition_max_bytes, budget));
    bytes += read;
    if (throttled) leader_quota_.record(read, now());
  }
  data.high_watermark = high_watermark;
  data.log_start_offset = log_start_of(r);
  return false;
}

// The partition's batches from `offset` into `data`, through the page cache; the bytes read.
std::uint64_t Broker::read_batches(const Replica& r, FetchResponse::PartitionData& data, Offset offset,
                                   std::uint64_t max_bytes, Offset upper_bound) {
  const auto batches = r.log().read(offset, max_bytes, upper_bound);
  data.batches.assign(batches.begin(), batches.end());
  std::uint64_t read = 0;
  for (const auto& b : batches) read += b.bytes;
  if (read > 0) read_through_cache(r, offset, read);
  return read;
}

// A consumer reads up to the high watermark, or with read_committed up to
// the last stable offset, with the aborted transactions of the range. True
// when there is nothing to read: the response does not list the partition.
bool Broker::read_for_consumer(const FetchRequest::PartitionData& p, const Replica& r, const FetchRequest& request,
                               FetchResponse& response, std::uint64_t& bytes, bool& must_answer) {
  const PartitionLog& log = r.log();
  // Out of range past the log's end (a new leader's high watermark may still
  // lag the old one's, and the consumer then waits for it), or below its start:
  // retention deleted it (UnifiedLog.read); the consumer applies auto.offset.reset.
  if (p.fetch_offset > log.log_end_offset() || p.fetch_offset < log_start_of(r)) {
    answer_error(response, p.partition, Error::OffsetOutOfRange).log_start_offset = log_start_of(r);
    must_answer = true;
    return false;
  }
  if (p.fetch_offset < log.log_start_offset()) {  // KIP-405: in the remote log only
    read_remote_for_consumer(p, r, request, response, bytes);
    must_answer = true;
    return false;
  }
  const std::uint64_t budget = request.max_bytes > bytes ? request.max_bytes - bytes : 0;
  const Offset upper = request.read_committed ? last_stable_offset(r) : log.high_watermark();
  if (p.fetch_offset >= upper) return true;
  FetchResponse::PartitionData& data = answer(response, p.partition);
  data.high_watermark = log.high_watermark();
  data.log_start_offset = log_start_of(r);
  if (budget == 0) return false;
  bytes += read_batches(r, data, p.fetch_offset, std::min(request.partition_max_bytes, budget), upper);
  if (request.read_committed && !data.batches.empty()) {
    for (const auto& a : r.producers.aborted_between(data.batches.front().base_offset, data.batches.back().next_offset())) {
      data.aborted_transactions.emplace_back(a.producer_id, a.first_offset);
    }
  }
  return false;
}

// KIP-98: the high watermark, held back by the oldest transaction that is
// open or whose marker is not replicated yet (UnifiedLog.lastStableOffset).
Offset Broker::last_stable_offset(const Replica& r) const {
  const Offset hw = r.log().high_watermark();
  const std::optional<Offset> unstable = r.producers.first_unstable_offset(hw);
  return unstable ? std::min(*unstable, hw) : hw;
}

// A consumer's parked fetch completes once enough committed data is there.
void Broker::wake_consumer_fetches(TopicPartition tp) {
  std::vector<std::uint64_t> ready;
  for (const auto& [id, pending] : fetch_purgatory_) {
    if (pending.request->replica_id != kNoBroker) continue;
    if (!asks_for(*pending.request, tp)) continue;
    std::uint64_t bytes = 0;
    bool must_answer = false;
    (void)read_for_fetch(*pending.request, existing_session(pending.connection, *pending.request), false, bytes,
                         must_answer);
    if (must_answer || bytes >= pending.request->min_bytes) ready.push_back(id);
  }
  for (const std::uint64_t id : ready) answer_fetch(id);
}

void Broker::send_fetch_response(ConnectionId connection, BrokerId follower, std::unique_ptr<FetchResponse> response) {
  for (const auto& data : response->partitions) {
    Replica* r = replica(data.partition);
    if (!r || data.error != Error::None) continue;
    r->record_high_watermark_sent(follower, data.high_watermark);
  }
  send(connection, std::move(response));
}

// A follower's fetch (Replica.updateFetchStateOrThrow, then Partition's
// maybeExpandIsr and maybeIncrementLeaderHW). An out-of-sync follower is
// considered for the ISR on every fetch (an earlier proposal may have been
// refused); the high watermark only moves when a follower's position does.
bool Broker::update_follower(Replica& r, BrokerId follower, Offset fetch_offset) {
  const FollowerState* state = r.follower(follower);
  if (!state) return false;
  // A fetch that takes the follower's position back (a request of its last
  // connection, delayed past those of its new one) changes the partition for
  // the follower's other sessions, which must read it again (fetch_session.hpp).
  if (fetch_offset < state->log_end_offset) changed(r);
  const bool moved = r.update_follower_fetch_state(follower, fetch_offset, now());
  maybe_expand_isr(r, follower);
  if (moved) maybe_advance_high_watermark(r);
  return moved;
}

// New data in the log completes the parked fetches of followers (consumers
// wait for the high watermark instead: wake_consumer_fetches; before
// KAFKA-1430 the append completed theirs too, with what the high watermark
// let them read).
void Broker::wake_fetches_at(SimTime at, std::vector<TopicPartition> partitions) {
  if (at <= now()) {
    for (const TopicPartition tp : partitions) wake_fetches(tp);
    return;
  }
  set_timer(at - now(), [this, partitions = std::move(partitions)] {
    for (const TopicPartition tp : partitions) wake_fetches(tp);
  });
}

void Broker::wake_fetches(TopicPartition tp) {
  std::vector<std::uint64_t> ready;
  const bool consumers_too = config_.consumer_fetch_completes_on_append && consumer_fetches_waiting_ > 0;
  for (auto& [id, pending] : fetch_purgatory_) {
    const bool consumer = pending.request->replica_id == kNoBroker;
    if (consumer && !consumers_too) continue;
    if (!asks_for(*pending.request, tp)) continue;
    if (consumer) {
      // Kafka 0.8.1's FetchRequestPurgatory.checkSatisfied: the bytes appended
      // since it parked, not the bytes it may read (those stop at the high watermark).
      const Replica* r = replica(tp);
      if (r && !r->log().empty()) pending.appended_bytes += r->log().batches().back().bytes;
      if (pending.appended_bytes < pending.request->min_bytes) continue;
    } else if (pending.request->min_bytes > 1 && !follower_fetch_satisfied(pending)) {
      continue;  // DelayedFetch.tryComplete, case G: replica.fetch.min.bytes not yet there
    }
    ready.push_back(id);
  }
  for (const std::uint64_t id : ready) answer_fetch(id);
}

// What the parked fetch would read now reaches its min bytes, or must be answered (an error, a divergence).
bool Broker::follower_fetch_satisfied(const PendingFetch& pending) {
  std::uint64_t bytes = 0;
  bool must_answer = false;
  (void)read_for_fetch(*pending.request, existing_session(pending.connection, *pending.request), false, bytes, must_answer);
  return must_answer || bytes >= pending.request->min_bytes;
}

// ReplicaManager.completeDelayedOperationsWhenNotPartitionLeader: the parked
// fetches listing a partition this broker no longer leads complete at once
// (DelayedFetch case A), answered NOT_LEADER_OR_FOLLOWER for it.
void Broker::complete_fetches_of(TopicPartition tp) {
  std::vector<std::uint64_t> listing;
  for (const auto& [id, pending] : fetch_purgatory_) {
    if (asks_for(*pending.request, tp)) listing.push_back(id);
  }
  for (const std::uint64_t id : listing) answer_fetch(id);
}

std::size_t Broker::parked_fetches_listing(TopicPartition tp) const {
  return static_cast<std::size_t>(std::count_if(fetch_purgatory_.begin(), fetch_purgatory_.end(),
                                                [&](const auto& entry) { return asks_for(*entry.second.request, tp); }));
}

void Broker::answer_fetch(std::uint64_t id) {
  const auto it = fetch_purgatory_.find(id);
  if (it == fetch_purgatory_.end()) return;
  cancel_timer(it->second.timeout);
  std::uint64_t bytes = 0;
  bool must_answer = false;
  answering_ = true;
  auto response = read_for_fetch(*it->second.request, existing_session(it->second.connection, *it->second.request),
                                 false, bytes, must_answer);
  answering_ = false;
  send_fetch_when_read(it->second.connection, it->second.request->replica_id, std::move(response));
  if (it->second.request->replica_id == kNoBroker) --consumer_fetches_waiting_;
  fetch_purgatory_.erase(it);
}

// The high watermark moved: produces waiting for it may complete, and consumers' parked fetches.
void Broker::maybe_advance_high_watermark(Replica& r) {
  if (!r.maybe_advance_high_watermark(topic(r.tp()).min_insync_replicas, strict_min_isr())) return;
  r.producers.forget_replicated(r.log().high_watermark());  // UnifiedLog.updateHighWatermarkMetadata
  changed(r);
  publish(HighWatermarkAdvanced{id_, r.tp(), r.log().high_watermark(), r.leader_epoch()});
  complete_produces(r.tp());
  if (consumer_fetches_waiting_ > 0 && !config_.consumer_fetch_completes_on_append) wake_consumer_fetches(r.tp());
  if (!parked_share_fetches_.empty()) wake_share_fetches(r.tp());
}

void Broker::maybe_expand_isr(Replica& r, BrokerId follower) {
  if (auto expanded = r.isr_with(follower, isr_eligible_)) propose_isr(r, std::move(*expanded));
}

// Kafka's isr-expiration task: drops followers that have not caught up for replica.lag.time.max.ms.
void Broker::shrink_isrs() {
  catch_up_all_sessions();
  for (auto& [tp, r] : replicas_) {
    if (!replica_online(r)) continue;
    if (auto kept = r.isr_without_lagging(now(), config_.replica_lag_time_max)) propose_isr(r, std::move(*kept));
  }
}

void Broker::propose_isr(Replica& r, std::vector<BrokerId> isr) {
  publish(IsrChangeProposed{id_, r.tp(), r.state().isr.size(), isr.size()});
  r.begin_isr_change(std::move(isr));
  changed(r);
  send_alter_partition(r);
}

// The pending change to the controller; sent again, unchanged, after the
// connection is lost (Kafka's NodeToControllerRequestThread puts a
// disconnected request back first in its queue: the partition stays pending).
void Broker::send_alter_partition(const Replica& r) {
  if (!controller_channel_ready()) return;  // sent once the metadata log's replica knows the leader
  const IsrProposal& proposal = *r.pending_isr_change();
  auto request = std::make_unique<AlterPartitionRequest>();
  request->leader = id_;
  request->partition = r.tp();
  request->leader_epoch = proposal.leader_epoch;
  request->partition_epoch = proposal.partition_epoch;
  request->new_isr = proposal.isr;
  send(controller_connection(), std::move(request));
}

void Broker::resend_alter_partitions() {
  for (auto& [tp, r] : replicas_) {
    if (r.is_leader() && r.isr_change_pending() && replica_online(r)) send_alter_partition(r);
  }
}

// Partition.submitAlterPartition's callback and handleAlterPartitionUpdate /
// handleAlterPartitionError. An answer to a change no longer pending is out of
// date and ignored: acting on it could drop a pending addition from the
// maximal ISR while the controller commits it.
void Broker::handle_alter_partition_response(const AlterPartitionResponse& response) {
  Replica* r = replica(response.state.partition);
  if (!r) return;
  const IsrProposal answered{response.proposed_isr, response.proposed_leader_epoch, response.proposed_partition_epoch};
  if (!r->answers_pending(answered)) {
    if (config_.mutations.stale_alter_partition_answer && r->isr_change_pending()) {
      // A test-only mutation (ModelMutations): the bug a763d60 fixed. The stale
      // answer ends the change pending, which stops holding the high watermark.
      r->end_isr_change();
      changed(*r);
      maybe_advance_high_watermark(*r);
      complete_produces(r->tp());
    }
    return;
  }
  if (response.error == Error::NotController) {
    if (zookeeper_mode()) return;  // sent again when the metadata names the controller
    return retry_controller_channel();
  }
  if (response.error == Error::IneligibleReplica || response.not_written) {
    r->end_isr_change();  // not applied: back to the committed ISR
    changed(*r);
  } else {
    // Committed, or refused as stale (FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION):
    // pending until newer metadata, which the response carries here.
    apply_partition_state(*r, response.state);
  }
  maybe_advance_high_watermark(*r);
  complete_produces(r->tp());
}

// --- the page cache ---------------------------------------------------

void Broker::note_cache_position(Replica& r, Offset first_offset) {
  if (config_.page_cache_bytes == 0) return;
  // A mark every 1/1024 of the cache, at least every MiB: marks enough to
  // place a read within 0.1% of the cache's size, few enough to search.
  const std::uint64_t mark_every = std::max<std::uint64_t>(1 << 20, config_.page_cache_bytes / 1024);
  if (!r.cache_marks.empty() && appended_bytes_ - r.newest_cache_mark.second < mark_every) return;
  r.newest_cache_mark = {first_offset, appended_bytes_};
  r.cache_marks.push_back(r.newest_cache_mark);
  // Marks wholly out of the cache are not needed, but the newest of them.
  // (Until they are dropped here, they place reads out of the cache as well.)
  const std::uint64_t cold_below = appended_bytes_ > config_.page_cache_bytes ? appended_bytes_ - config_.page_cache_bytes : 0;
  while (r.cache_marks.size() > 1 && r.cache_marks[1].second < cold_below) r.cache_marks.pop_front();
}

// Data is in the page cache if less than page_cache_bytes were appended to
// this broker after it (Linux evicts the least recently written first; reads
// do not refresh it here). A miss reads from the log dir's disk.
void Broker::read_through_cache(const Replica& r, Offset offset, std::uint64_t bytes) {
  if (!answering_ || config_.page_cache_bytes == 0) return;
  reads_done_at_ = std::max(reads_done_at_, cache_read_done(r, offset, bytes));
}

SimTime Broker::cache_read_done(const Replica& r, Offset offset, std::uint64_t bytes) {
  if (config_.page_cache_bytes == 0) return now();
  std::uint64_t position = 0;
  if (!r.cache_marks.empty() && offset >= r.newest_cache_mark.first) {
    position = r.newest_cache_mark.second;  // the usual read: the log's tail
  } else {
    std::size_t after = 0;  // the first mark after `offset` (upper_bound)
    for (std::size_t end = r.cache_marks.size(); after < end;) {
      const std::size_t mid = after + (end - after) / 2;
      if (offset < r.cache_marks[mid].first) end = mid; else after = mid + 1;
    }
    position = after == 0 ? 0 : r.cache_marks[after - 1].second;
  }
  if (appended_bytes_ - position <= config_.page_cache_bytes && position >= cache_floor_) return now();
  return log_dirs_[r.log_dir].disk.read(bytes, now());
}

void Broker::send_fetch_when_read(ConnectionId connection, BrokerId follower, std::unique_ptr<FetchResponse> response) {
  if (reads_done_at_ <= now()) return send_fetch_response(connection, follower, std::move(response));
  set_timer(reads_done_at_ - now(), [this, connection, follower, r = std::move(response)]() mutable {
    send_fetch_response(connection, follower, std::move(r));
  });
}

}  // namespace ksim::models
