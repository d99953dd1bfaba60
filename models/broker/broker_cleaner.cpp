// The log cleaner on a broker (Kafka's LogCleaner): for logs with
// cleanup.policy=compact, its threads take the filthiest cleanable log
// (LogCleanerManager.grabFilthiestCompactedLog: the largest dirty ratio among
// those over min.cleanable.dirty.ratio or due by max.compaction.lag.ms),
// clean it (Cleaner.doClean, PartitionLog::clean) and look again; with none
// they sleep log.cleaner.backoff.ms. Every replica, leader or follower,
// cleans its own log, as in Kafka. A cleaning takes its I/O's time on the log
// dir's disk (Cleaner.buildOffsetMap reads the dirty section, cleanSegments
// reads every segment it rewrites and writes what it keeps, then flushes it),
// reading through the page cache, at most log.cleaner.io.max.bytes.per.second
// over all the threads (the Throttler they share), and with a CPU model its
// thread's CPU time; its thread takes the next log only then. The cleaned
// segments replace the log's when the cleaning is done (replaceSegments), unless
// the log was truncated, deleted, moved or its start moved meanwhile (Kafka
// aborts the cleaning then: LogCleanerManager.abortAndPauseCleaning). The old
// segment files leave the disk file.delete.delay.ms later (asyncDeleteSegment).
#include "models/broker/broker.hpp"

#include <algorithm>
#include <cassert>

#include "models/coordinator/coordinator_records.hpp"
#include "models/protocol/record_keys.hpp"

namespace ksim::models {

// The cleaner runs when log.cleaner.enable and a topic compacts: a user topic
// with cleanup.policy=compact, or __consumer_offsets and __transaction_state
// (always compacted: GroupCoordinator's and TransactionStateManager's topic configs).
void Broker::start_cleaner() {
  if (!config_.log_cleaner_enable) return;
  const bool compacts = std::any_of(directory_->topics.begin(), directory_->topics.end(),
                                    [](const TopicSpec& t) { return t.log.compact_enabled; });
  if (compacts) set_timer(config_.log_cleaner_backoff, [this] { cleaner_tick(); });
}

// The key of record i of a batch of `tp`: what a user producer drew, or a coordinator record's key.
RecordKeyOf Broker::cleaner_keys(TopicPartition tp) const {
  if (tp.topic == directory_->offsets_topic || tp.topic == directory_->transaction_topic) {
    CoordinatorRecordStore* store = directory_->coordinator_records.get();
    assert(store);
    return [store](const RecordBatch& b, std::int32_t i) {
      return b.writer == kCoordinatorWriter && !b.is_control() ? store->key(coordinator_record_id(b), b.run_start + i)
                                                                : RecordKey{};
    };
  }
  const RecordKeyStore* keys = directory_->record_keys.get();
  assert(keys);
  return [keys, tp](const RecordBatch& b, std::int32_t i) { return keys->of(b, tp, i); };
}

void Broker::cleaner_tick() {
  const std::size_t map_keys = offset_map_keys(config_.log_cleaner_dedupe_buffer_size, config_.log_cleaner_threads,
                                               config_.log_cleaner_io_buffer_load_factor);
  const auto being_cleaned = [this](TopicPartition tp) {
    return std::any_of(cleaner_.cleanings.begin(), cleaner_.cleanings.end(),
                       [tp](const LogCleanerState::Cleaning& c) { return c.tp == tp; });
  };
  // Each of the log.cleaner.threads threads takes the filthiest log left; they all look again once the
  // last of their cleanings is done (or after log.cleaner.backoff.ms when no log was cleanable).
  cleaner_.cleanings.clear();  // the last turn's are all finished: the turn ended after them
  SimTime done = now();
  bool progress = false;
  for (std::int32_t thread = 0; thread < config_.log_cleaner_threads; ++thread) {
    const Replica* filthiest = nullptr;
    LogToClean best;
    for (const auto& [tp, r] : replicas_) {
      // A replica moving to another log dir is not cleaned (KIP-113: LogManager.abortAndPauseCleaning).
      if (!replica_online(r) || !r.log().config().compact_enabled || r.future || being_cleaned(tp)) continue;
      const LogToClean ltc = log_to_clean(r.log(), last_stable_offset(r), now());
      if (ltc.total_bytes() == 0 || !ltc.cleanable(r.log().config())) continue;
      if (!filthiest || ltc.cleanable_ratio() > best.cleanable_ratio()) {
        filthiest = &r;
        best = ltc;
      }
    }
    if (!filthiest) break;
    const TopicPartition tp = filthiest->tp();
    CleanedLog cleaned = filthiest->log().compute_cleaning(best, cleaner_keys(tp), map_keys, now());
    assert(cleaned.stats.bytes_after <= cleaned.stats.bytes_before);
    progress |= cleaned.stats.end_offset > cleaned.stats.first_dirty_offset;  // it moves the log's checkpoint on
    const SimTime finished = start_cleaning(*filthiest, static_cast<std::size_t>(thread), std::move(cleaned));
    done = std::max(done, finished);
    set_timer(finished - now(), [this, thread] { finish_cleaning(static_cast<std::size_t>(thread)); });
  }
  // The turn's cleanings finish first (their timers were set before, at no later a time).
  const SimTime turn = std::max<SimTime>(done - now(), 1);
  set_timer(progress ? turn : std::max(turn, config_.log_cleaner_backoff), [this] { cleaner_tick(); });
}

// A cleaning's costs, and when it is done: the I/O of the dirty section read for the offset map and of
// every segment it rewrites read again (through the page cache: from disk if the log's start is no longer
// cached), the kept bytes written as new segment files and flushed (Cleaner.cleanSegments:
// cleaned.flush()); no faster than the Throttler allows (maybeThrottle on every read and write, shared by
// the threads: a rate over all of them); with a CPU model, its thread's time for every record read (the
// key hashed into the map, then looked up) and byte copied, at the append path's costs (LogValidator
// reads and copies records alike). A write the disk refuses (full, failed) is not charged.
SimTime Broker::start_cleaning(const Replica& r, std::size_t thread, CleanedLog cleaned) {
  const CleanerStats& stats = cleaned.stats;
  SimTime done = cache_read_done(r, r.log().log_start_offset(), stats.bytes_read);
  Disk& disk = log_dirs_[r.log_dir].disk;
  const auto file = static_cast<std::uint64_t>(global_index(r.tp()));
  const Disk::Write write = disk.write(stats.bytes_after, now(), file);
  const bool written = write.status == Disk::Status::Ok;
  if (written) done = std::max({done, write.returns_at, disk.flush(now(), file)});
  if (config_.log_cleaner_io_max_bytes_per_second > 0) {
    const double io = static_cast<double>(stats.bytes_read + (written ? stats.bytes_after : 0));
    const SimTime from = std::max(now(), cleaner_.throttled_until);
    cleaner_.throttled_until =
        from + static_cast<SimTime>(io / config_.log_cleaner_io_max_bytes_per_second * static_cast<double>(seconds(1)));
    done = std::max(done, cleaner_.throttled_until);
  }
  if (cleaner_.threads) {
    const BrokerCpuCosts& cost = config_.cpu_costs;
    const SimTime cpu = static_cast<SimTime>(stats.records_read) * cost.record +
                        static_cast<SimTime>(cost.ns_per_byte * static_cast<double>(stats.bytes_read + stats.bytes_after));
    done = std::max(done, cleaner_.threads->run(now(), cpu, thread));
  }
  assert(cleaner_.cleanings.size() == thread);
  cleaner_.cleanings.push_back({r.tp(), r.log_dir, written, false, std::move(cleaned)});
  return done;
}

// UnifiedLog.replaceSegments, or the cleaning aborted: the log was truncated, its start moved, it was
// deleted, moved to another dir or is moving, or its dir failed since the cleaning started.
void Broker::finish_cleaning(std::size_t thread) {
  LogCleanerState::Cleaning& c = cleaner_.cleanings.at(thread);
  assert(!c.finished);
  c.finished = true;
  const CleanerStats& planned = c.cleaned.stats;
  const auto found = replicas_.find(c.tp);
  Replica* r = found == replicas_.end() ? nullptr : &found->second;
  const bool internal = c.tp.topic == directory_->offsets_topic || c.tp.topic == directory_->transaction_topic;
  if (!r || !replica_online(*r) || r->future || r->log_dir != c.log_dir ||
      r->log().rewrites() != c.cleaned.log_rewrites) {
    if (c.written) log_dirs_[c.log_dir].disk.release(planned.bytes_after);  // the .cleaned files go
    if (!internal && compaction_history_) ++compaction_history_->aborted_cleanings;
    return;
  }
  // The old segments go file.delete.delay.ms later; a write the disk refused frees what was removed.
  free_disk_later(r->log_dir, c.written ? planned.bytes_before : planned.bytes_before - planned.bytes_after);
  const CleanerStats stats = r->replace_cleaned(std::move(c.cleaned));
  publish(LogCleaned{id_, c.tp, stats.first_dirty_offset, stats.end_offset, stats.bytes_before, stats.bytes_after,
                     stats.records_removed, stats.tombstones_removed});
  if (internal && compaction_history_) {  // not workload records: counted apart
    ++compaction_history_->internal_cleanings;
    compaction_history_->internal_records_removed += stats.records_removed;
  } else if (compaction_history_) {  // the user topics' records, for the checkers
    compaction_history_->cleaned(c.tp, stats.removed);
    ++compaction_history_->cleanings;
    compaction_history_->bytes_before += stats.bytes_before;
    compaction_history_->bytes_after += stats.bytes_after;
    compaction_history_->records_removed += stats.records_removed;
    compaction_history_->tombstones_removed += stats.tombstones_removed;
    compaction_history_->map_full_cleanings += stats.map_full ? 1 : 0;
  }
}

void Broker::drop_cleanings() {
  for (const LogCleanerState::Cleaning& c : cleaner_.cleanings) {
    if (c.written && !c.finished) log_dirs_[c.log_dir].disk.release(c.cleaned.stats.bytes_after);
  }
  cleaner_.cleanings.clear();
}

}  // namespace ksim::models
