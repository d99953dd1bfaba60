#pragma once
// One replica's log of a partition: record batches at consecutive offsets in
// segments (Kafka's LogSegment), the log start offset (LSO, the first offset
// retention kept), the log end offset (LEO), the high watermark (HW), the
// leader epoch cache of KIP-101, and the durable prefix (what survives a power loss).
//
// Segments roll on segment.bytes and segment.ms (UnifiedLog.maybeRoll,
// LogSegment.shouldRoll); retention deletes whole segments from the oldest,
// never past the HW (UnifiedLog.deleteOldSegments): the batches leave memory
// (a start index into the batches, compacted as it grows).
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "models/log/log_cleaner.hpp"
#include "models/protocol/log_config.hpp"
#include "models/protocol/kafka_types.hpp"

namespace ksim::models {

// A segment's place and size; its batches are the log's from base_offset to the next segment's.
struct LogSegment {
  Offset base_offset = 0;
  std::uint64_t bytes = 0;
  SimTime first_timestamp = -1;    // the first batch's timestamp (LogSegment.rollingBasedTimestamp); -1 when empty
  SimTime largest_timestamp = -1;  // the largest batch timestamp (LogSegment.largestTimestamp); -1 when empty
  // KIP-534: when the cleaner first rewrote this segment with tombstones in it,
  // plus delete.retention.ms; its tombstones go at a cleaning after it. -1: not yet.
  SimTime delete_horizon = -1;
};

// Why segments were deleted (Kafka's SegmentDeletionReason).
enum class SegmentDeletion { RetentionMs, RetentionBytes, LogStartOffset };

// What one deleteOldSegments pass removed.
struct DeletedSegments {
  int segments = 0;
  std::uint64_t bytes = 0;
  Offset log_start_before = 0;
  Offset log_start_after = 0;
  SegmentDeletion reason = SegmentDeletion::RetentionMs;
  std::vector<RecordBatch> batches;  // the batches deleted, in offset order
};

class PartitionLog {
 public:
  PartitionLog() { segments_.push_back({}); }

  // The segment and retention configs (default: Kafka's); `config` must outlive the log.
  void configure(const LogConfig* config) { config_ = config; }
  const LogConfig& config() const { return config_ ? *config_ : LogConfig::kafka_defaults(); }

  Offset log_start_offset() const { return log_start_offset_; }  // the first offset still in the log
  Offset log_end_offset() const { return log_end_offset_; }  // next offset to be written
  Offset high_watermark() const { return high_watermark_; }
  std::uint64_t size_bytes() const { return size_bytes_; }
  // The batches still in the log, from the log start offset; valid until the log next changes.
  std::span<const RecordBatch> batches() const { return {batches_.data() + first_, batches_.size() - first_}; }
  bool empty() const { return first_ == batches_.size(); }
  const std::vector<LogSegment>& segments() const { return segments_; }  // oldest first; the last is active
  // Batch slots held in memory, deleted ones not yet compacted away included (for tests of memory).
  std::size_t batch_slots() const { return batches_.capacity(); }

  // The leader appends: assigns base_offset = LEO, stamps leader_epoch = epoch,
  // and starts a new epoch in the cache if `epoch` is newer than the latest.
  // Returns the batch as stored.
  const RecordBatch& append_as_leader(RecordBatch batch, Epoch epoch);
  // A follower appends a batch fetched from the leader, offsets and epoch as they are.
  // Precondition: batch.base_offset == log_end_offset().
  void append_as_follower(const RecordBatch& batch);

  // Batches from the one containing `offset` (or from the LEO) onwards,
  // up to `max_bytes` in total but always at least one batch if there is any
  // (as Kafka does, so a large batch cannot stall replication).
  // Optionally only batches ending at or before `upper_bound` (exclusive).
  // The view is valid until the log next changes. Precondition: LSO <= offset <= LEO.
  std::span<const RecordBatch> read(Offset offset, std::uint64_t max_bytes, Offset upper_bound = INT64_MAX) const;
  // The batch containing `offset`, if any (none below the log start offset).
  const RecordBatch* batch_at(Offset offset) const;

  // The HW may go down only by truncation; set_high_watermark asserts hw <= LEO and
  // raises it to the log start offset (UnifiedLog.updateHighWatermark).
  void set_high_watermark(Offset hw);

  // Removes every batch with base_offset >= offset, and epoch cache entries starting
  // at or after it; LEO becomes `offset` (rounded down to a batch boundary), and the
  // HW and the flushed offset are capped at the new LEO. Below the log start offset:
  // truncate_fully_and_start_at(offset), as UnifiedLog.truncateTo does.
  void truncate_to(Offset offset);
  // UnifiedLog.truncateFullyAndStartAt: every batch and segment goes, the log
  // (LSO, LEO, HW) starts again at `offset` with an empty epoch cache. The bytes removed.
  std::uint64_t truncate_fully_and_start_at(Offset offset);

  // --- retention (UnifiedLog.deleteOldSegments) ---
  // Deletes the segments below the log start offset, then those over
  // retention.bytes, then those whose largest timestamp is more than
  // retention.ms before `now`: whole segments from the oldest, each only if
  // the next one starts at or below the HW; when all go, an empty segment is
  // rolled at the LEO first. The log start offset moves to the first segment left.
  // With remote.storage.enable (KIP-405) this is the local log: local.retention.*
  // apply, a segment goes only once remote storage holds it to its end
  // (`highest_remote_offset`, UnifiedLog.isSegmentEligibleForDeletion), and an
  // active segment past retention is rolled so that it can be copied.
  std::vector<DeletedSegments> delete_old_segments(SimTime now, Offset highest_remote_offset = -1);
  // UnifiedLog.maybeIncrementLogStartOffset: a follower takes its leader's log
  // start offset, capped at its own HW; segments wholly below it go at the next
  // delete_old_segments. True when it moved.
  bool maybe_increment_log_start_offset(Offset offset);

  // --- compaction (log_cleaner.hpp, LogCleaner's Cleaner) ---
  // The cleaner's checkpoint (cleaner-offset-checkpoint): where the dirty section starts.
  Offset first_dirty_offset() const { return first_dirty_offset_; }
  // Cleaner.doClean: maps the latest offset of each key in [first dirty,
  // first uncleanable) (at most `max_map_keys` keys), then rewrites every
  // segment below the map's end keeping the latest record of each key;
  // tombstones go once their segment's delete horizon has passed. Offsets
  // stay (gaps appear); the log start offset does not move. Transactional
  // batches, markers and the last batch of each idempotent producer are kept whole.
  CleanerStats clean(const LogToClean& cleanable, const RecordKeyOf& key_of, std::size_t max_map_keys, SimTime now) {
    return replace_cleaned(compute_cleaning(cleanable, key_of, max_map_keys, now));
  }
  // clean() in two steps, as the cleaner writes the cleaned segments before
  // it swaps them in: computed from the log as it is, then put in place.
  CleanedLog compute_cleaning(const LogToClean& cleanable, const RecordKeyOf& key_of, std::size_t max_map_keys,
                              SimTime now) const;
  // Precondition: rewrites() is what it was when `cleaned` was computed.
  CleanerStats replace_cleaned(CleanedLog cleaned);
  // Counts the changes to what lies below the log end (a truncation, segments
  // deleted, the log start moved, a cleaning): a cleaning computed at one count
  // may replace the log's segments only at the same (LogCleanerManager.abortCleaning).
  std::uint32_t rewrites() const { return rewrites_; }

  // --- leader epoch cache (KIP-101) ---
  Epoch latest_epoch() const { return latest_epoch_; }  // -1 when the cache is empty
  Epoch last_batch_epoch() const { return last_batch_epoch_; }  // the last batch's leader epoch; -1 when empty
  // The largest cached epoch <= `epoch` and where it ends; nullopt when no cached epoch is <= `epoch`.
  std::optional<EpochEndOffset> end_offset_for_epoch(Epoch epoch) const;
  // The cache, as (epoch, start offset) pairs in increasing order.
  const std::vector<std::pair<Epoch, Offset>>& epoch_cache() const { return epochs_; }
  // KIP-405's TierStateMachine: an empty log takes the epochs of the remote
  // segments below its start (LeaderEpochFileCache.assign of the checkpoint read
  // from remote storage). Precondition: empty(), `epochs` in increasing order.
  void restore_epochs(std::vector<std::pair<Epoch, Offset>> epochs);

  // --- durability ---
  Offset flushed_offset() const { return flushed_offset_; }  // offsets below are on stable storage
  std::int64_t unflushed_records() const;
  void mark_flushed(Offset offset);  // monotonic; capped at LEO
  // A power loss: everything not flushed is gone (truncate_to(flushed_offset)).
  void lose_unflushed();

 private:
  void assign_epoch(Epoch epoch, Offset start_offset);
  bool should_roll(const RecordBatch& batch) const;
  void roll();
  // Deletes the oldest segments while `deletable(segment)` holds (UnifiedLog.deletableSegments).
  template <typename Predicate>
  DeletedSegments delete_segments(Predicate deletable, SegmentDeletion reason, Offset highest_remote_offset = INT64_MAX);
  void drop_batches_below(Offset offset, std::vector<RecordBatch>* deleted);
  void recompute_last_segment();

  std::vector<RecordBatch> batches_;  // [first_, end) are in the log; before first_: deleted, to be compacted away
  std::uint32_t first_ = 0;
  std::uint32_t rewrites_ = 0;  // 32 bits each, so that the counter costs no memory
  std::vector<LogSegment> segments_;  // never empty; a handful (a deque's first block is 0.5 KiB per replica)
  std::vector<std::pair<Epoch, Offset>> epochs_;
  const LogConfig* config_ = nullptr;
  // The LEO and the epochs are read on every fetch and append: kept here
  // rather than read from the vectors' last elements, which are rarely in cache.
  Offset log_start_offset_ = 0;
  Offset log_end_offset_ = 0;
  Epoch latest_epoch_ = -1;
  Epoch last_batch_epoch_ = -1;
  Offset high_watermark_ = 0;
  Offset flushed_offset_ = 0;
  Offset first_dirty_offset_ = 0;
  std::uint64_t size_bytes_ = 0;
};

std::string_view to_string(SegmentDeletion reason);

}  // namespace ksim::models
