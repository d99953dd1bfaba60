// Retention on a broker (Kafka's LogManager.cleanupLogs, the
// "kafka-log-retention" task): every log.retention.check.interval.ms, after
// log.initial.task.delay.ms, each online replica deletes its old segments
// (UnifiedLog.deleteOldSegments, partition_log.hpp). Leaders and followers
// apply retention to their own logs, as Kafka does; a follower also takes its
// leader's log start offset from each fetch response, and one that fetched
// below it starts again there (AbstractFetcherThread.handleOutOfRangeError).
#include "models/broker/broker.hpp"

namespace ksim::models {

// The retention task runs when a topic's retention can delete anything within
// a week; with Kafka's defaults (retention.ms of 168 hours, retention.bytes
// -1) it would delete nothing in such a run, and ksim leaves the task out.
void Broker::start_retention() {
  bool deletes = false;
  for (const TopicSpec& t : directory_->topics) deletes |= t.log.deletes_within_a_week();
  if (deletes) set_timer(config_.log_initial_task_delay, [this] { retention_tick(); });
}

// Under tiered storage (KIP-405) a replica's local log deletes only what the
// remote store holds, and follows the remote log's start (UnifiedLog's
// maybeIncrementLogStartOffset also moves the local log start).
void Broker::retention_tick() {
  for (auto& [tp, r] : replicas_) {
    if (!replica_online(r)) continue;
    const Offset remote_start = tiered(r) ? directory_->remote_storage->log_start_offset(tp) : 0;
    if (remote_start > r.log().log_start_offset()) {
      note_deleted(r, r.follow_log_start_offset(remote_start, now(), highest_remote_offset(r)));
    }
    const bool mutated = config_.mutations.tiered_delete_before_copy;  // test-only: deletes what was not copied
    std::vector<DeletedSegments> deleted = r.delete_old_segments(now(), mutated ? INT64_MAX : highest_remote_offset(r));
    if (deleted.empty()) continue;
    note_deleted(r, std::move(deleted));
    if (r.is_leader()) changed(r);  // the followers' sessions send the new log start offset
  }
  set_timer(config_.log_retention_check_interval, [this] { retention_tick(); });
}

void Broker::note_deleted(Replica& r, std::vector<DeletedSegments> deleted) {
  for (const DeletedSegments& d : deleted) {
    publish(SegmentsDeleted{id_, r.tp(), d.log_start_before, d.log_start_after, d.bytes, to_string(d.reason)});
    // Under tiered storage the remote store still holds them: its expiration tells the history.
    if (retention_history_ && !tiered(r)) retention_history_->segments_deleted(r.tp(), d.batches);
    free_disk_later(r.log_dir, d.bytes);
  }
}

// UnifiedLog.deleteSegmentFiles: the segment files are renamed *.deleted and
// removed file.delete.delay.ms later; their bytes use the disk until then.
void Broker::free_disk_later(std::size_t log_dir, std::uint64_t bytes) {
  if (bytes == 0) return;
  deleting_.emplace_back(log_dir, bytes);
  set_timer(config_.file_delete_delay, [this] {
    if (deleting_.empty()) return;  // a crash deleted them already
    const auto [dir, freed] = deleting_.front();
    deleting_.erase(deleting_.begin());
    log_dirs_[dir].disk.release(freed);
  });
}

// A restart removes the *.deleted files left (LogManager.loadLogs).
void Broker::free_deleting_now() {
  for (const auto& [dir, bytes] : deleting_) log_dirs_[dir].disk.release(bytes);
  deleting_.clear();
}

void Broker::restart_at_leader_start(Replica& r, Offset leader_log_start_offset) {
  const Offset from = r.log().log_end_offset();
  const std::uint64_t removed = r.truncate_fully_and_start_at(leader_log_start_offset);
  publish(LogTruncated{id_, r.tp(), from, leader_log_start_offset, TruncationCause::OutOfRange});
  r.durability.clear();
  r.producers = ProducerStateTable{};
  free_disk_later(r.log_dir, removed);
}

}  // namespace ksim::models
