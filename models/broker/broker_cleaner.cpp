// The log cleaner on a broker (Kafka's LogCleaner): for logs with
// cleanup.policy=compact, its threads take the filthiest cleanable log
// (LogCleanerManager.grabFilthiestCompactedLog: the largest dirty ratio among
// those over min.cleanable.dirty.ratio or due by max.compaction.lag.ms),
// clean it (Cleaner.doClean, PartitionLog::clean) and look again; with none
// they sleep log.cleaner.backoff.ms. Every replica, leader or follower,
// cleans its own log, as in Kafka. A cleaning takes no simulated time here
// (its disk reads and writes are not charged); the old segment files leave the
// disk file.delete.delay.ms later (UnifiedLog.replaceSegments, asyncDeleteSegment).
#include "models/broker/broker.hpp"

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
  // A cleaning takes no time: the threads clean back to back until no log is cleanable
  // (bounded: each cleaning moves the log's first dirty offset on).
  for (std::size_t round = 0; round <= 4 * replicas_.size(); ++round) {
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
    free_disk_later(filthiest->log_dir, stats.bytes_before - stats.bytes_after);
  }
  set_timer(config_.log_cleaner_backoff, [this] { cleaner_tick(); });
}

}  // namespace ksim::models
