// A follower's side of replication: replica fetchers (one request in flight
// per fetcher, all of its partitions from one leader), appending what comes
// back, and truncating where the leader says the logs diverge.
#include <algorithm>
#include <cassert>

#include "models/broker/broker.hpp"
#include "models/broker/broker_fetcher.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

// num.replica.fetchers: partitions are spread over a leader's fetchers by hash.
Broker::Fetcher& Broker::fetcher_for(BrokerId leader, TopicPartition tp) {
  const int index = static_cast<int>((static_cast<std::uint32_t>(tp.topic) * 31u + static_cast<std::uint32_t>(tp.partition)) %
                                     static_cast<std::uint32_t>(config_.num_replica_fetchers));
  for (auto& f : fetchers_) {
    if (f->leader == leader && f->index == index) return *f;
  }
  auto fetcher = std::make_unique<Fetcher>();
  fetcher->leader = leader;
  fetcher->index = index;
  fetchers_.push_back(std::move(fetcher));
  return *fetchers_.back();
}

void Broker::add_to_fetcher(Replica& r) {
  Fetcher& f = fetcher_for(r.state().leader, r.tp());
  f.delayed.erase(r.tp());  // a new fetch state (addPartitions), ready at once, sent whole
  if (f.in_flight) f.readded_in_flight.insert(r.tp());
  f.partitions.push_back(fetch_position(r));
  in_fetcher_[static_cast<std::size_t>(global_index(r.tp()))] = true;
  f.same_partitions = false;
  ++f.altered;  // sent whole in the next request
  if (!applying_metadata_) send_fetch(f);  // else once the whole update is applied
}

void Broker::remove_from_fetchers(TopicPartition tp) {
  const auto index = static_cast<std::size_t>(global_index(tp));
  const bool listed = in_fetcher_[index];
  in_fetcher_[index] = false;
  for (auto& f : fetchers_) {
    std::size_t removed = listed ? std::erase_if(f->partitions, [tp](const auto& p) { return p.partition == tp; }) : 0;
    const auto delay = f->delayed.find(tp);
    if (delay != f->delayed.end()) {
      if (delay->second.left_out) removed = 0;  // the session already forgot it
      f->delayed.erase(delay);
    }
    f->forgotten += removed;
    if (removed > 0) f->same_partitions = false;
  }
}

// Where a follower's replica fetches from: its log end, in its leader's epoch.
FetchRequest::PartitionData Broker::fetch_position(const Replica& r) const {
  FetchRequest::PartitionData p;
  p.partition = r.tp();
  p.fetch_offset = r.log().log_end_offset();
  p.current_leader_epoch = r.state().leader_epoch;
  // Without KIP-101 there is no epoch to compare: the follower trusts its log;
  // before KIP-279 it compared once, after it became a follower.
  const bool compare = config_.mechanisms.has(Mechanism::LeaderEpochTruncation) &&
                       (config_.mechanisms.has(Mechanism::RepeatedEpochLookups) || !r.epoch_checked);
  p.last_fetched_epoch = compare ? r.log().last_batch_epoch() : -1;
  return p;
}

// After applying fetched data: the partition's next request, if it asks for something else.
void Broker::update_fetch_position(Fetcher& f, const Replica& r, std::size_t& cursor) {
  // Responses list partitions in request order: look from the previous one on.
  const auto is_it = [&](const FetchRequest::PartitionData& p) { return p.partition == r.tp(); };
  auto it = std::find_if(f.partitions.begin() + static_cast<std::ptrdiff_t>(std::min(cursor, f.partitions.size())),
                         f.partitions.end(), is_it);
  if (it == f.partitions.end()) it = std::find_if(f.partitions.begin(), f.partitions.end(), is_it);
  if (it == f.partitions.end()) return;  // no longer fetched here
  cursor = static_cast<std::size_t>(it - f.partitions.begin());
  const FetchRequest::PartitionData next = fetch_position(r);
  if (*it == next) return;
  *it = next;
  ++f.altered;  // once per response at most: each partition is listed once
}

void Broker::send_fetch(Fetcher& f) {
  if (f.partitions.empty() || f.in_flight || f.appending) return;
  std::erase_if(f.delayed, [&](const auto& d) {
    if (d.second.until > now()) return false;
    if (d.second.left_out) {  // back in the session, whole
      ++f.altered;
      f.same_partitions = false;
    }
    return true;
  });
  hold_throttled_partitions(f);
  // RemoteLeaderEndPoint.buildFetch: only the partitions ready for fetch; with
  // none, the thread waits for the first delay to end (or a partition added).
  const auto ready = [&](const FetchRequest::PartitionData& p) { return !f.delayed.contains(p.partition); };
  if (std::none_of(f.partitions.begin(), f.partitions.end(), ready)) return wake_fetcher_at(f);
  if (!f.connected) {
    f.connection = connect(directory_->broker_nodes[static_cast<std::size_t>(f.leader)]);
    f.connected = true;
    f.session_open = false;  // a new connection: a new session
  }
  auto request = std::make_unique<FetchRequest>();
  request->correlation_id = f.correlation_id = next_correlation_id_++;
  request->replica_id = id_;
  request->max_wait = config_.replica_fetch_wait_max;
  request->min_bytes = config_.replica_fetch_min_bytes;
  request->max_bytes = config_.replica_fetch_response_max_bytes;
  request->partition_max_bytes = config_.replica_fetch_max_bytes;
  if (f.delayed.empty()) {
    request->partitions = f.partitions;
  } else {
    std::copy_if(f.partitions.begin(), f.partitions.end(), std::back_inserter(request->partitions), ready);
    for (auto& [tp, delay] : f.delayed) {
      if (delay.left_out) continue;
      delay.left_out = true;  // the session forgets it
      ++f.forgotten;
      f.same_partitions = false;
    }
  }
  // KIP-227: an incremental request carries only the partitions added or whose fetch state changed.
  request->incremental = f.session_open;
  request->same_partitions = f.session_open && f.same_partitions;
  if (f.session_open) {
    const std::size_t listed = request->partitions.size();
    request->unchanged_partitions = static_cast<std::uint32_t>(listed - std::min(f.altered, listed));
    request->forgotten_partitions = static_cast<std::uint32_t>(f.forgotten);
  }
  f.session_open = true;
  f.same_partitions = true;
  f.altered = 0;
  f.forgotten = 0;
  f.in_flight = true;
  Fetcher* fp = &f;
  const std::int64_t correlation = f.correlation_id;
  f.request_timeout = set_timer(config_.replica_socket_timeout + config_.replica_fetch_wait_max, [this, fp, correlation] {
    // No answer to this request: give up on the connection and start again after a backoff.
    // (A timer of an earlier request, failed with its connection, must not cut a newer one.)
    if (!fp->in_flight || fp->correlation_id != correlation) return;
    fp->in_flight = false;
    fp->readded_in_flight.clear();
    if (fp->connected) close(fp->connection);
    fp->connected = false;
    fetch_failed(*fp);
  });
  send(f.connection, std::move(request));
}

void Broker::handle_fetch_response(ConnectionId connection, const FetchResponse& response) {
  Fetcher* f = nullptr;
  for (auto& candidate : fetchers_) {
    if (candidate->connected && candidate->connection == connection && candidate->correlation_id == response.correlation_id) {
      f = candidate.get();
    }
  }
  if (!f || !f->in_flight) return;  // a stale response
  f->in_flight = false;
  const std::set<TopicPartition> readded = std::move(f->readded_in_flight);
  f->readded_in_flight.clear();
  cancel_timer(f->request_timeout);
  // Partitions left out of the response had nothing new (KIP-227).
  std::size_t cursor = 0;
  SimTime appended_at = now();
  std::vector<std::size_t> got_data;  // indexes in f->partitions, in response order
  const auto& partitions = response.partitions;
  for (std::size_t i = 0; i < partitions.size(); ++i) {
    constexpr std::size_t kAhead = 4;
    if (i + kAhead < partitions.size()) prefetch_replica(partitions[i + kAhead].partition);
    const auto& data = partitions[i];
    Replica* r = replica(data.partition);
    if (!r || !r->is_follower() || r->state().leader != f->leader || !replica_online(*r)) continue;
    if (readded.contains(data.partition)) continue;  // asked for in an earlier fetch state
    if (data.error == Error::OffsetOutOfRange && data.log_start_offset > r->log().log_end_offset()) {
      restart_at_leader_start(*r, data.log_start_offset);
      update_fetch_position(*f, *r, cursor);
      continue;
    }
    if (data.error == Error::OffsetMovedToTieredStorage && build_remote_aux_state(*r, data)) {
      update_fetch_position(*f, *r, cursor);
      // TierStateMachine runs on the fetcher thread: it reads the remote segment's leader-epoch checkpoint
      // and producer snapshot (RemoteStorageManager.fetchIndex, two requests to the store), one partition
      // after another, before the thread builds its next fetch.
      appended_at = std::max(appended_at, now()) + 2 * config_.remote_log.store_latency;
      continue;
    }
    if (data.error != Error::None) {
      delay_after_error(*f, *r);
      continue;
    }
    apply_fetched(*r, data, appended_at);
    update_fetch_position(*f, *r, cursor);
    if (!data.batches.empty() && cursor < f->partitions.size() && f->partitions[cursor].partition == data.partition) {
      got_data.push_back(cursor);
    }
  }
  move_to_end(*f, got_data);
  if (appended_at > now()) {
    // AbstractFetcherThread.processFetchRequest appends before the next
    // request is built: the follower's log end, which the leader learns
    // from that request, waits for its own disk.
    f->appending = true;
    f->appended = set_timer(appended_at - now(), [this, f] {
      f->appending = false;
      send_fetch(*f);
    });
  } else {
    send_fetch(*f);
  }
}

// AbstractFetcherThread.processFetchRequest moves each partition that got data
// to the end of its list (PartitionStates.updateAndMoveToEnd), and the
// leader's incremental session does the same with its own order
// (IncrementalFetchContext): a response budget (replica.fetch.response.max.bytes)
// goes round robin over the partitions instead of to the first in the list.
// The leader reads in request order, so rotating the request rotates both.
void Broker::move_to_end(Fetcher& f, const std::vector<std::size_t>& got_data) {
  if (got_data.empty() || got_data.size() == f.partitions.size()) return;  // all or none: the order stays
  std::vector<bool> moved(f.partitions.size(), false);
  for (const std::size_t i : got_data) moved[i] = true;
  std::vector<FetchRequest::PartitionData> rotated;
  rotated.reserve(f.partitions.size());
  for (std::size_t i = 0; i < f.partitions.size(); ++i) {
    if (!moved[i]) rotated.push_back(std::move(f.partitions[i]));
  }
  for (const std::size_t i : got_data) rotated.push_back(std::move(f.partitions[i]));
  f.partitions = std::move(rotated);
}

// processFetchRequest's partitionsWithError, delayed replica.fetch.backoff.ms
// (NOT_LEADER_OR_FOLLOWER, UNKNOWN_LEADER_EPOCH, FENCED_LEADER_EPOCH: the
// leader's metadata lags ours, or ours lags). Kafka stops fetching a
// partition fenced at the epoch it asked with until new metadata
// (onPartitionFenced -> markPartitionFailed); ksim retries it after the
// backoff, and new metadata re-adds it at once in both.
void Broker::delay_after_error(Fetcher& f, const Replica& r) {
  f.delayed[r.tp()].until = now() + config_.replica_fetch_backoff;
}

void Broker::apply_fetched(Replica& r, const FetchResponse::PartitionData& data, SimTime& returns_at) {
  r.epoch_checked = true;
  if (data.diverging_epoch) {
    // KIP-279 (2.0): truncate to the smaller of the leader's and our own end
    // of the epoch the leader answered for. Before it (OffsetsForLeaderEpoch
    // v0 answered an offset alone), to the leader's offset: a follower whose
    // last epoch the leader never had keeps that epoch's records below it.
    Offset truncate_at = data.diverging_epoch->end_offset;
    if (data.diverging_epoch->epoch >= 0 && config_.mechanisms.has(Mechanism::RepeatedEpochLookups)) {
      if (const auto own = r.log().end_offset_for_epoch(data.diverging_epoch->epoch)) {
        truncate_at = std::min(truncate_at, own->end_offset);
      } else if (!r.log().epoch_cache().empty()) {
        // Every epoch this log has is newer than the leader's: the logs part
        // where this log's first epoch starts (otherwise it would keep data
        // the leader never had, and diverge again on every fetch).
        truncate_at = std::min(truncate_at, r.log().epoch_cache().front().second);
      }
    }
    truncate_at = std::min(truncate_at, r.log().log_end_offset());
    const Offset from = r.log().log_end_offset();
    r.truncate_to(truncate_at);
    publish(LogTruncated{id_, r.tp(), from, truncate_at, TruncationCause::Divergence});
    r.drop_durability_above_log_end();
    return;
  }
  if (!data.batches.empty() && data.batches.front().base_offset < r.log().log_end_offset() &&
      data.batches.front().next_offset() > r.log().log_end_offset()) {
    // Without leader epochs (pre-KIP-101) the follower may have fetched from
    // inside a leader's batch: its own log diverged there. It keeps the
    // leader's batch from its start, and never notices what came before.
    const Offset from = r.log().log_end_offset();
    r.truncate_to(data.batches.front().base_offset);
    publish(LogTruncated{id_, r.tp(), from, r.log().log_end_offset(), TruncationCause::InsideBatch});
  }
  std::uint64_t appended = 0;
  for (const RecordBatch& batch : data.batches) {
    // Not contiguous: a stale response; but for the gaps a compacted leader's cleaner left.
    const bool compacted_gap = batch.base_offset > r.log().log_end_offset() && r.log().config().compact_enabled;
    if (batch.base_offset != r.log().log_end_offset() && !compacted_gap) break;
    if (!write_to_disk(r, batch.bytes, batch.record_count, returns_at)) return;
    r.append_as_follower(batch);
    appended += batch.bytes;
  }
  if (follower_throttled(r)) follower_quota_.record(appended, now());  // ReplicaFetcherThread.processPartitionData
  r.leader_high_watermark = data.high_watermark;
  maybe_flush(r, returns_at);
  r.follow_high_watermark(data.high_watermark);
  // UnifiedLog.maybeIncrementLogStartOffset(leaderLogStartOffset) in processPartitionData.
  if (data.log_start_offset > r.log().log_start_offset()) note_deleted(r, r.follow_log_start_offset(data.log_start_offset, now()));
  r.producers.forget_replicated(r.log().high_watermark());
}

// KIP-73 (RemoteLeaderEndPoint.shouldFollowerThrottle): while the follower
// quota is exceeded, a throttled replica that is not in sync (its log end
// behind the leader's high watermark of the last response) is left out of the
// request, and asked for again in the next; with nothing else to fetch, the
// thread backs off replica.fetch.backoff.ms (AbstractFetcherThread.maybeFetch).
void Broker::hold_throttled_partitions(Fetcher& f) {
  if (!follower_quota_.enabled() || !follower_quota_.exceeded(now())) return;
  std::vector<TopicPartition> held;
  bool others = false;
  for (const auto& p : f.partitions) {
    if (f.delayed.contains(p.partition)) continue;
    const Replica* r = replica(p.partition);
    const bool in_sync = r && r->leader_high_watermark >= 0 && r->log().log_end_offset() >= r->leader_high_watermark;
    if (r && follower_throttled(*r) && !in_sync) {
      held.push_back(p.partition);
    } else {
      others = true;
    }
  }
  const SimTime until = others ? now() : now() + config_.replica_fetch_backoff;
  for (const TopicPartition tp : held) f.delayed[tp].until = until;
}

// A request that failed (no answer, a lost connection) delays all the fetcher's partitions.
void Broker::fetch_failed(Fetcher& f) {
  for (const auto& p : f.partitions) f.delayed[p.partition].until = now() + config_.replica_fetch_backoff;
  wake_fetcher_at(f);
}

void Broker::wake_fetcher_at(Fetcher& f) {
  SimTime first = kNever;
  for (const auto& [tp, delay] : f.delayed) first = std::min(first, delay.until);
  if (first == kNever || (f.wake_at <= first && f.wake_at > now())) return;
  cancel_timer(f.wake);
  f.wake_at = first;
  Fetcher* fp = &f;
  f.wake = set_timer(std::max<SimTime>(0, first - now()), [this, fp] {  // a backoff already over: at once
    fp->wake_at = kNever;
    send_fetch(*fp);
  });
}

}  // namespace ksim::models
