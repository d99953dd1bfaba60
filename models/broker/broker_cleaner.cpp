// The log cleaner on a broker (Kafka's LogCleaner): for logs with
// cleanup.policy=compact, its threads take the filthiest cleanable log
// (LogCleanerManager.grabFilthiestCompactedLog: the largest dirty ratio among
// those over min.cleanable.dirty.ratio or due by max.compaction.lag.ms),
// clean it (Cleaner.doClean, PartitionLog::clean) and look again; with none
// they sleep log.cleaner.backoff.ms. Every replica, leader or follower,
// cleans its own log, as in Kafka. A cleaning takes its I/O's time on the log
// dir's disk (Cleaner.buildOffsetMap reads the dirty section, cleanSegments
// reads every segment up to the first uncleanable offset and writes what it
// keeps, then flushes it), reading through the page cache, and its thread takes
// the next log only then. Simplified: the cleaned log replaces the old one when
// the cleaning starts, not when it ends. The old segment files leave the disk
// file.delete.delay.ms later (UnifiedLog.replaceSegments, asyncDeleteSegment).
#include "models/broker/broker.hpp"

#include <algorithm>
#include <cassert>

#include "models/protocol/record_keys.hpp"

namespace ksim::models {

// The cleaner runs when log.cleaner.enable and a user topic compacts: the
// internal topics are not cleaned (docs/kafka-model.md), and without a
// compacted topic there is nothing to clean.
void Broker::start_cleaner() {
  if (!config_.log_cleaner_enable || !directory_->record_keys) return;
  bool compacts = false;
  for (std::size_t t = 0; t < directory_->topics.size(); ++t) {
    const auto topic = static_cast<std::int32_t>(t);
    if (topic == directory_->offsets_topic || topic == directory_->transaction_topic) continue;
    compacts |= directory_->topics[t].log.compact_enabled;
  }
  if (compacts) set_timer(config_.log_cleaner_backoff, [this] { cleaner_tick(); });
}

void Broker::cleaner_tick() {
  const std::size_t map_keys = offset_map_keys(config_.log_cleaner_dedupe_buffer_size, config_.log_cleaner_threads,
                                               config_.log_cleaner_io_buffer_load_factor);
  const RecordKeyStore& keys = *directory_->record_keys;
  // Each of the log.cleaner.threads threads takes the filthiest log left; they all look again once the
  // last of their cleanings is done (or after log.cleaner.backoff.ms when no log was cleanable).
  SimTime done = now();
  bool cleaned = false;
  for (std::int32_t thread = 0; thread < config_.log_cleaner_threads; ++thread) {
    Replica* filthiest = nullptr;
    LogToClean best;
    for (auto& [tp, r] : replicas_) {
      const bool internal = tp.topic == directory_->offsets_topic || tp.topic == directory_->transaction_topic;
      // A replica moving to another log dir is not cleaned (KIP-113: LogManager.abortAndPauseCleaning).
      if (internal || !replica_online(r) || !r.log().config().compact_enabled || r.future) continue;
      const LogToClean ltc = log_to_clean(r.log(), last_stable_offset(r), now());
      if (ltc.total_bytes() == 0 || !ltc.cleanable(r.log().config())) continue;
      if (!filthiest || ltc.cleanable_ratio() > best.cleanable_ratio()) {
        filthiest = &r;
        best = ltc;
      }
    }
    if (!filthiest) break;
    const TopicPartition tp = filthiest->tp();
    const CleanerStats stats = filthiest->clean(
        best, [&keys, tp](const RecordBatch& b, std::int32_t i) { return keys.of(b, tp, i); }, map_keys, now());
    assert(stats.bytes_after <= stats.bytes_before);
    publish(LogCleaned{id_, tp, stats.first_dirty_offset, stats.end_offset, stats.bytes_before, stats.bytes_after,
                       stats.records_removed, stats.tombstones_removed});
    if (compaction_history_) {
      compaction_history_->cleaned(tp, stats.removed);
      ++compaction_history_->cleanings;
      compaction_history_->bytes_before += stats.bytes_before;
      compaction_history_->bytes_after += stats.bytes_after;
      compaction_history_->records_removed += stats.records_removed;
      compaction_history_->tombstones_removed += stats.tombstones_removed;
      compaction_history_->map_full_cleanings += stats.map_full ? 1 : 0;
    }
    done = std::max(done, charge_cleaning_io(*filthiest, best, stats));
    cleaned |= stats.end_offset > stats.first_dirty_offset;  // it moved the log's checkpoint on
  }
  if (cleaned) {
    set_timer(std::max<SimTime>(done - now(), 1), [this] { cleaner_tick(); });
  } else {
    set_timer(config_.log_cleaner_backoff, [this] { cleaner_tick(); });
  }
}

// A cleaning's I/O, and when it is done: the dirty section read for the offset map and every segment up
// to the first uncleanable offset read again (through the page cache: from disk if the log's start is no
// longer cached), the kept bytes written as new segment files and flushed (Cleaner.cleanSegments:
// cleaned.flush()). The old files leave the disk later; a write the disk refuses (full, failed) is not
// charged, and only what the cleaning removed is freed.
SimTime Broker::charge_cleaning_io(const Replica& r, const LogToClean& plan, const CleanerStats& stats) {
  const SimTime read = cache_read_done(r, r.log().log_start_offset(), plan.cleanable_bytes + plan.total_bytes());
  Disk& disk = log_dirs_[r.log_dir].disk;
  const auto file = static_cast<std::uint64_t>(global_index(r.tp()));
  const Disk::Write write = disk.write(stats.bytes_after, now(), file);
  if (write.status != Disk::Status::Ok) {
    free_disk_later(r.log_dir, stats.bytes_before - stats.bytes_after);
    return read;
  }
  free_disk_later(r.log_dir, stats.bytes_before);
  return std::max({read, write.returns_at, disk.flush(now(), file)});
}

}  // namespace ksim::models
