// Tiered storage on a broker (KIP-405, Kafka 3.6+; Kafka's RemoteLogManager,
// TierStateMachine and DelayedRemoteFetch). Every
// remote.log.manager.task.interval.ms a leader copies its rolled segments
// below the last stable offset to the remote store, one at a time and in
// order (RLMCopyTask), and deletes the remote segments past retention.ms or
// retention.bytes, which moves the partition's log start offset
// (RLMExpirationTask). The local log keeps only local.retention.* of what was
// copied (partition_log.cpp). A consumer fetching below the leader's local log
// start reads from the remote store on a reader thread, and its fetch waits
// for that read up to remote.fetch.max.wait.ms; a follower fetching there is
// answered OFFSET_MOVED_TO_TIERED_STORAGE and starts at the leader's local log
// start with the leader epochs and producer state of the remote segments
// below it.
#include <algorithm>

#include "models/broker/broker.hpp"
#include "models/log/remote_log.hpp"

namespace ksim::models {

bool Broker::tiered(const Replica& r) const {
  return directory_->remote_storage && topic(r.tp()).log.remote_storage_enable;
}

// UnifiedLog.logStartOffset: the partition's log start; under tiered storage
// the remote log's, at most the local one (which follows it at the next retention check).
Offset Broker::log_start_of(const Replica& r) const {
  if (!tiered(r)) return r.log().log_start_offset();
  return std::min(directory_->remote_storage->log_start_offset(r.tp()), r.log().log_start_offset());
}

Offset Broker::highest_remote_offset(const Replica& r) const {
  return tiered(r) ? directory_->remote_storage->highest_offset(r.tp()) : -1;
}

std::optional<Offset> Broker::remote_covered_end(TopicPartition tp) const {
  const Replica* r = replica(tp);
  if (!r || !tiered(*r)) return std::nullopt;
  const RemoteStorage& store = *directory_->remote_storage;
  return std::max(store.highest_offset(tp) + 1, store.log_start_offset(tp));
}

void Broker::start_remote_log_manager() {
  if (!directory_->remote_storage || !config_.remote_log.system_enable) return;
  set_timer(config_.remote_log.task_interval, [this] { remote_log_tick(); });
}

void Broker::remote_log_tick() {
  for (auto& [tp, r] : replicas_) {
    if (!tiered(r) || !replica_online(r) || !r.is_leader()) continue;
    expire_remote_segments(r);
    copy_next_segment(r);
  }
  set_timer(config_.remote_log.task_interval, [this] { remote_log_tick(); });
}

// RLMCopyTask.copyLogSegmentsToRemote: the first rolled segment holding
// offsets past the highest copied, if the next one starts at or below the last
// stable offset (candidateLogSegments); its copy runs on a copier thread
// (the store's latency and bandwidth), then the next one.
void Broker::copy_next_segment(Replica& r) {
  if (remote_log_.copying.contains(r.tp())) return;
  const PartitionLog& log = r.log();
  const Offset copied = highest_remote_offset(r);
  const Offset from = std::max(copied + 1, log_start_of(r));
  const auto& segments = log.segments();
  const Offset lso = last_stable_offset(r);
  for (std::size_t i = 0; i + 1 < segments.size(); ++i) {
    const Offset next_base = segments[i + 1].base_offset;
    if (next_base <= from) continue;  // wholly copied
    if (next_base > lso || segments[i].base_offset > from) return;  // not committed yet; or a gap: nothing to copy
    RemoteLogSegment segment;
    segment.base_offset = segments[i].base_offset;
    segment.end_offset = next_base - 1;
    segment.bytes = segments[i].bytes;
    segment.largest_timestamp = segments[i].largest_timestamp;
    segment.copied_by = id_;
    segment.leader_epoch = r.leader_epoch();
    const auto batches = log.read(std::max(segment.base_offset, log.log_start_offset()), UINT64_MAX, next_base);
    segment.batches.assign(batches.begin(), batches.end());
    const SimTime done = remote_log_.copier.run(now(), config_.remote_log.transfer_time(segment.bytes));
    remote_log_.copying.emplace(r.tp(), std::move(segment));
    set_timer(done - now(), [this, tp = r.tp(), incarnation = remote_log_.incarnation] {
      if (incarnation != remote_log_.incarnation) return;
      const auto node = remote_log_.copying.extract(tp);
      copy_finished(tp, std::move(node.mapped()));
    });
    return;
  }
}

// The copy is in the store (COPY_SEGMENT_FINISHED) if this broker still leads
// in the epoch it copied in; local retention may now delete the segment.
void Broker::copy_finished(TopicPartition tp, RemoteLogSegment segment) {
  Replica* r = replica(tp);
  if (!r || !replica_online(*r) || !r->is_leader() || r->leader_epoch() != segment.leader_epoch) return;
  RemotePartitionLog& remote = directory_->remote_storage->log(tp);
  if (segment.end_offset <= remote.highest_offset()) return;  // another leader copied it meanwhile
  ++remote_log_.stats.segments_copied;
  remote_log_.stats.bytes_copied += segment.bytes;
  publish(SegmentCopiedToRemote{id_, tp, segment.base_offset, segment.end_offset, segment.bytes});
  remote.add(std::move(segment));
  copy_next_segment(*r);
}

// RLMExpirationTask.cleanupExpiredRemoteLogSegments: remote segments past the
// topic's retention.ms, or over retention.bytes counting the local segments
// not yet copied, go; the log start offset moves past them, and every
// replica's local log follows it at its next retention check.
void Broker::expire_remote_segments(Replica& r) {
  const LogConfig& c = r.log().config();
  if (!c.delete_enabled) return;
  RemotePartitionLog& remote = directory_->remote_storage->log(r.tp());
  std::uint64_t local_only = 0;  // UnifiedLog.onlyLocalLogSegmentsSize
  for (const LogSegment& s : r.log().segments()) {
    if (s.base_offset > remote.highest_offset()) local_only += s.bytes;
  }
  const Offset before = remote.log_start_offset();
  std::vector<RemoteLogSegment> deleted = remote.expire(now(), c.retention_ms, c.retention_bytes, local_only);
  if (deleted.empty()) return;
  std::uint64_t bytes = 0;
  for (const RemoteLogSegment& s : deleted) {
    bytes += s.bytes;
    if (retention_history_) retention_history_->segments_deleted(r.tp(), s.batches);
  }
  remote_log_.stats.segments_expired += deleted.size();
  remote_log_.stats.bytes_expired += bytes;
  publish(RemoteSegmentsDeleted{id_, r.tp(), before, remote.log_start_offset(), bytes});
  note_deleted(r, r.follow_log_start_offset(remote.log_start_offset(), now(), remote.highest_offset()));
  changed(r);  // the followers' sessions send the new log start offset
}

// ReplicaManager.readFromLocalLog for a consumer below the local log start:
// the first such partition of the fetch is read from the remote store on a
// reader thread (RemoteLogManager.asyncRead, one segment), and the fetch is
// answered once that read is done (DelayedRemoteFetch); past
// remote.fetch.max.wait.ms it is answered without the partition's records.
// Other partitions needing the remote store get no records in this fetch.
void Broker::read_remote_for_consumer(const FetchRequest::PartitionData& p, const Replica& r, const FetchRequest& request,
                                      FetchResponse& response, std::uint64_t& bytes) {
  FetchResponse::PartitionData& data = answer(response, p.partition);
  data.high_watermark = r.log().high_watermark();
  data.log_start_offset = log_start_of(r);
  if (!answering_ || remote_read_in_fetch_) return;  // only checking whether it may complete; or a second remote partition
  remote_read_in_fetch_ = true;
  const std::uint64_t budget = request.max_bytes > bytes ? request.max_bytes - bytes : 0;
  const RemotePartitionLog* remote = directory_->remote_storage->find(r.tp());
  const auto batches = remote ? remote->read(p.fetch_offset, std::max<std::uint64_t>(1, std::min(request.partition_max_bytes, budget)))
                              : std::span<const RecordBatch>{};
  std::uint64_t read = 0;
  for (const RecordBatch& b : batches) read += b.bytes;
  const SimTime done = remote_log_.reader.run(now(), config_.remote_log.transfer_time(read));
  // remote.fetch.max.wait.ms (3.8+); before KIP-1018 the fetch's own max wait.
  const SimTime max_wait = config_.remote_log.fetch_max_wait >= 0 ? config_.remote_log.fetch_max_wait : request.max_wait;
  const SimTime deadline = saturating_add(now(), max_wait);
  RemoteLogStats& stats = remote_log_.stats;
  if (done > deadline) {
    ++stats.remote_reads_timed_out;
    reads_done_at_ = std::max(reads_done_at_, deadline);
    return;
  }
  ++stats.remote_reads;
  stats.remote_read_bytes += read;
  stats.remote_read_wait_total += done - now();
  stats.remote_read_wait_max = std::max(stats.remote_read_wait_max, done - now());
  data.batches.assign(batches.begin(), batches.end());
  bytes += read;
  reads_done_at_ = std::max(reads_done_at_, done);
  if (request.read_committed && !data.batches.empty()) {
    for (const auto& a : r.producers.aborted_between(data.batches.front().base_offset, data.batches.back().next_offset())) {
      data.aborted_transactions.emplace_back(a.producer_id, a.first_offset);
    }
  }
}

// TierStateMachine.start and buildRemoteLogAuxState: the follower fetched below
// the leader's local log start. It starts again after the remote segment
// holding the offset before that start, with the leader epochs and the
// producer state of the remote segments (their leader-epoch checkpoint and
// producer snapshot), and fetches the rest from the leader.
bool Broker::build_remote_aux_state(Replica& r, const FetchResponse::PartitionData& data) {
  const RemotePartitionLog* remote = directory_->remote_storage ? directory_->remote_storage->find(r.tp()) : nullptr;
  const Offset leader_local_start = data.local_log_start_offset;
  const RemoteLogSegment* segment = remote && leader_local_start > 0 ? remote->segment_containing(leader_local_start - 1) : nullptr;
  // RemoteStorageException: "Couldn't build the state from remote store"; the fetcher retries after a backoff.
  if (!segment) return false;
  const Offset next = segment->end_offset + 1;
  restart_at_leader_start(r, next);
  std::vector<std::pair<Epoch, Offset>> epochs;
  for (const RecordBatch& b : remote->batches_between(remote->log_start_offset(), next)) {
    if (epochs.empty() || b.leader_epoch > epochs.back().first) epochs.emplace_back(b.leader_epoch, b.base_offset);
    r.producers.record(b);
  }
  r.restore_epochs(std::move(epochs));
  ++remote_log_.stats.aux_state_builds;
  return true;
}

}  // namespace ksim::models
