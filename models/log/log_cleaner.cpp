#include "models/log/log_cleaner.hpp"

#include <algorithm>
#include <cassert>
#include <map>

#include "models/log/partition_log.hpp"

namespace ksim::models {

namespace {

// The index of the segment containing `offset` (the last one starting at or below it).
std::size_t cleaner_segment_of(const std::vector<LogSegment>& segments, Offset offset) {
  const auto it = std::upper_bound(segments.begin(), segments.end(), offset,
                                   [](Offset o, const LogSegment& s) { return o < s.base_offset; });
  return it == segments.begin() ? 0 : static_cast<std::size_t>(it - segments.begin() - 1);
}

// A run of a batch's records, [from, from + count) by index, as a batch of its own.
RecordBatch cleaner_run_of(const RecordBatch& batch, std::int32_t from, std::int32_t count) {
  RecordBatch run = batch;
  run.base_offset = batch.base_offset + from;
  run.record_count = count;
  run.first_record = batch.first_record + static_cast<std::uint64_t>(from);
  run.run_start = batch.run_start + from;
  if (batch.base_sequence >= 0) run.base_sequence = batch.base_sequence + from;
  // The records' share of the batch's bytes (the header goes with the first run).
  run.bytes = std::max<std::uint64_t>(1, batch.bytes * static_cast<std::uint64_t>(count) /
                                             static_cast<std::uint64_t>(batch.record_count));
  return run;
}

}  // namespace

std::size_t offset_map_keys(std::uint64_t dedupe_buffer_bytes, int threads, double load_factor) {
  assert(threads > 0);
  constexpr std::uint64_t kBytesPerEntry = 16 + 8;  // SkimpyOffsetMap: MD5 hash and offset
  const std::uint64_t slots = dedupe_buffer_bytes / static_cast<std::uint64_t>(threads) / kBytesPerEntry;
  return std::max<std::size_t>(1, static_cast<std::size_t>(static_cast<double>(slots) * load_factor));
}

LogToClean log_to_clean(const PartitionLog& log, Offset last_stable_offset, SimTime now) {
  const auto& segments = log.segments();
  const LogConfig& config = log.config();
  LogToClean ltc;
  Offset first_dirty = log.first_dirty_offset();
  if (first_dirty < log.log_start_offset() || first_dirty > log.log_end_offset()) first_dirty = log.log_start_offset();
  ltc.first_dirty_offset = first_dirty;
  const LogSegment& active = segments.back();
  Offset uncleanable = std::min(last_stable_offset, active.base_offset);
  const std::size_t first_dirty_segment = cleaner_segment_of(segments, first_dirty);
  if (config.min_compaction_lag_ms > 0) {
    for (std::size_t i = first_dirty_segment; i + 1 < segments.size(); ++i) {
      if (segments[i].largest_timestamp > now - config.min_compaction_lag_ms) {
        uncleanable = std::min(uncleanable, segments[i].base_offset);
        break;
      }
    }
  }
  uncleanable = std::max(first_dirty, uncleanable);
  // calculateCleanableBytes: the first uncleanable segment is the non-active one containing it, else the active one.
  const std::size_t uncleanable_segment = std::min(cleaner_segment_of(segments, uncleanable), segments.size() - 1);
  ltc.first_uncleanable_offset = segments[uncleanable_segment].base_offset;
  const Offset from = std::min(first_dirty, ltc.first_uncleanable_offset);
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const LogSegment& s = segments[i];
    const Offset end = i + 1 < segments.size() ? segments[i + 1].base_offset : log.log_end_offset() + 1;
    if (s.base_offset < first_dirty) ltc.clean_bytes += s.bytes;  // logSegments(-1, firstDirtyOffset)
    if (end > from && s.base_offset < ltc.first_uncleanable_offset) ltc.cleanable_bytes += s.bytes;
  }
  // maxCompactionDelay: a dirty, non-active segment's first batch older than now - max.compaction.lag.ms.
  if (config.max_compaction_lag_ms != kNever) {
    for (std::size_t i = first_dirty_segment; i + 1 < segments.size(); ++i) {
      const SimTime first = segments[i].first_timestamp;
      if (first > 0 && first < now - config.max_compaction_lag_ms) ltc.need_compaction_now = true;
    }
  }
  return ltc;
}

CleanedLog PartitionLog::compute_cleaning(const LogToClean& cleanable, const RecordKeyOf& key_of,
                                          std::size_t max_map_keys, SimTime now) const {
  assert(max_map_keys > 0);
  assert(cleanable.first_uncleanable_offset <= segments_.back().base_offset && "the active segment is never cleaned");
  const Offset first_dirty = cleanable.first_dirty_offset;
  const Offset upper = cleanable.first_uncleanable_offset;
  const std::span<const RecordBatch> live = batches();
  const auto kept_whole = [](const RecordBatch& b) { return b.is_control() || b.transactional; };

  // buildOffsetMap: the latest offset of each key in [first dirty, first uncleanable).
  CleanedLog cleaned;
  cleaned.log_rewrites = rewrites_;
  CleanerStats& stats = cleaned.stats;
  stats.first_dirty_offset = first_dirty;
  std::map<std::int64_t, Offset> map;
  Offset latest = -1;
  for (const RecordBatch& b : live) {
    if (b.base_offset >= upper || stats.map_full) break;
    if (b.next_offset() <= first_dirty) continue;
    stats.bytes_read += b.bytes;
    stats.records_read += static_cast<std::uint64_t>(b.record_count);
    if (kept_whole(b)) continue;
    for (std::int32_t i = 0; i < b.record_count; ++i) {
      const Offset offset = b.base_offset + i;
      const RecordKey key = key_of(b, i);
      if (offset < first_dirty || key.key < 0) continue;
      if (map.size() >= max_map_keys) {
        stats.map_full = true;
        break;
      }
      map[key.key] = offset;
      latest = offset;
    }
  }
  const Offset end = stats.map_full ? latest + 1 : std::max(first_dirty, upper);
  stats.end_offset = end;
  stats.keys_mapped = map.size();
  // Every segment holding an offset below `end` is rewritten whole (groupSegmentsBySize over logSegments(0, end)).
  const auto first_kept_segment =
      std::lower_bound(segments_.begin(), segments_.end(), end, [](const LogSegment& s, Offset o) {
        return s.base_offset < o;
      });
  assert(first_kept_segment != segments_.end() && "the active segment is never rewritten");
  cleaned.cut = first_kept_segment->base_offset;

  // The last batch of each idempotent producer is kept (Kafka keeps its header for the producer's state).
  std::map<ProducerId, Offset> last_of_producer;
  for (const RecordBatch& b : live) {
    if (b.producer_id != kNoProducerId && !b.is_control()) last_of_producer[b.producer_id] = b.base_offset;
  }

  // cleanSegments over every segment below the cut: shouldRetainRecord.
  std::vector<RecordBatch>& rewritten = cleaned.batches;
  for (const RecordBatch& b : live) {
    if (b.base_offset >= cleaned.cut) break;
    stats.bytes_read += b.bytes;
    stats.records_read += static_cast<std::uint64_t>(b.record_count);
    const bool producer_last = b.producer_id != kNoProducerId && last_of_producer[b.producer_id] == b.base_offset;
    if (b.base_offset >= end || kept_whole(b) || producer_last) {
      rewritten.push_back(b);
      continue;
    }
    const LogSegment& segment = segments_[cleaner_segment_of(segments_, b.base_offset)];
    const bool deletes_expired = segment.delete_horizon >= 0 && now >= segment.delete_horizon;
    // Runs of kept and of removed records, in offset order.
    std::int32_t start = 0;
    bool run_kept = true;
    const auto flush = [&](std::int32_t to) {
      if (to == start) return;
      if (!run_kept) {
        stats.removed.push_back(cleaner_run_of(b, start, to - start));
      } else {
        rewritten.push_back(start == 0 && to == b.record_count ? b : cleaner_run_of(b, start, to - start));
      }
    };
    for (std::int32_t i = 0; i < b.record_count; ++i) {
      const Offset offset = b.base_offset + i;
      const RecordKey key = key_of(b, i);
      bool keep = true;
      if (offset < end && key.key >= 0) {
        const auto found = map.find(key.key);
        const bool latest_of_key = found == map.end() || offset >= found->second;
        keep = latest_of_key && (!key.tombstone || !deletes_expired);
        if (!keep) {
          ++stats.records_removed;
          if (key.tombstone) ++stats.tombstones_removed;
        }
      }
      if (keep != run_kept) {
        flush(i);
        start = i;
        run_kept = keep;
      }
    }
    flush(b.record_count);
  }

  // The segments below the cut take their new sizes; one with tombstones left gets its delete horizon.
  std::size_t next_batch = 0;
  for (auto s = segments_.begin(); s != first_kept_segment; ++s) {
    const Offset segment_end = std::next(s)->base_offset;
    CleanedLog::Segment after{0, s->delete_horizon};
    bool tombstones = false;
    for (; next_batch < rewritten.size() && rewritten[next_batch].base_offset < segment_end; ++next_batch) {
      const RecordBatch& b = rewritten[next_batch];
      after.bytes += b.bytes;
      if (s->delete_horizon >= 0) continue;
      for (std::int32_t i = 0; i < b.record_count && !tombstones; ++i) tombstones = key_of(b, i).tombstone;
    }
    stats.bytes_before += s->bytes;
    stats.bytes_after += after.bytes;
    if (tombstones) after.delete_horizon = saturating_add(now, config().delete_retention_ms);
    cleaned.segments.push_back(after);
  }
  return cleaned;
}

// UnifiedLog.replaceSegments: the cleaned segments take the place of those below the cut.
CleanerStats PartitionLog::replace_cleaned(CleanedLog cleaned) {
  assert(cleaned.log_rewrites == rewrites_ && "the log changed under the cleaning");
  assert(cleaned.segments.size() < segments_.size());
  for (std::size_t i = 0; i < cleaned.segments.size(); ++i) {
    LogSegment& segment = segments_[i];
    size_bytes_ = size_bytes_ - segment.bytes + cleaned.segments[i].bytes;
    segment.bytes = cleaned.segments[i].bytes;
    segment.delete_horizon = cleaned.segments[i].delete_horizon;
  }
  assert(segments_[cleaned.segments.size()].base_offset == cleaned.cut);
  const std::span<const RecordBatch> live = batches();
  const auto kept = std::lower_bound(live.begin(), live.end(), cleaned.cut,
                                     [](const RecordBatch& b, Offset o) { return b.base_offset < o; });
  cleaned.batches.insert(cleaned.batches.end(), kept, live.end());
  batches_ = std::move(cleaned.batches);
  first_ = 0;
  first_dirty_offset_ = cleaned.stats.end_offset;
  ++rewrites_;
  return std::move(cleaned.stats);
}

}  // namespace ksim::models
