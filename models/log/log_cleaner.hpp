#pragma once
// Log compaction (cleanup.policy=compact), after Kafka's log cleaner:
// LogCleanerManager.cleanableOffsets and grabFilthiestCompactedLog choose the
// log and its cleanable range (LogToClean), Cleaner.doClean builds the offset
// map of the dirty section (buildOffsetMap, SkimpyOffsetMap) and rewrites the
// log below its end keeping the latest record of each key
// (shouldRetainRecord), tombstones until their delete horizon (KIP-534).
// The rewrite itself is PartitionLog::clean (log_cleaner.cpp).
#include <cstdint>
#include <functional>
#include <vector>

#include "models/protocol/kafka_types.hpp"
#include "models/protocol/log_config.hpp"
#include "models/protocol/record_keys.hpp"

namespace ksim::models {

class PartitionLog;

// LogToClean: the log's clean and cleanable bytes, by whole segments.
struct LogToClean {
  Offset first_dirty_offset = 0;        // the cleaner's checkpoint (or the log start offset)
  Offset first_uncleanable_offset = 0;  // a segment's base: nothing at or past it is cleaned
  std::uint64_t clean_bytes = 0;        // segments below the first dirty offset
  std::uint64_t cleanable_bytes = 0;    // segments from the first dirty offset's to the first uncleanable
  bool need_compaction_now = false;     // max.compaction.lag.ms passed for a dirty segment
  std::uint64_t total_bytes() const { return clean_bytes + cleanable_bytes; }
  double cleanable_ratio() const {
    return total_bytes() == 0 ? 0.0 : static_cast<double>(cleanable_bytes) / static_cast<double>(total_bytes());
  }
  // grabFilthiestCompactedLog's filter: due by max.compaction.lag.ms, or dirtier than min.cleanable.dirty.ratio.
  bool cleanable(const LogConfig& config) const {
    return (need_compaction_now && cleanable_bytes > 0) || cleanable_ratio() > config.min_cleanable_dirty_ratio;
  }
};

// LogCleanerManager.cleanableOffsets, calculateCleanableBytes and
// maxCompactionDelay: the first dirty offset (the checkpoint, reset to the log
// start offset when out of the log) and the first uncleanable one, the least of
// the last stable offset, the active segment's base and, with
// min.compaction.lag.ms, the first dirty segment with a record newer than
// now - lag; rounded down to its segment's base.
LogToClean log_to_clean(const PartitionLog& log, Offset last_stable_offset, SimTime now);

// The key of record i of a batch (the record's bytes; record_keys.hpp).
using RecordKeyOf = std::function<RecordKey(const RecordBatch&, std::int32_t)>;

// CleanerStats, and the records the cleaning removed (runs of consecutive offsets).
struct CleanerStats {
  Offset first_dirty_offset = 0;
  Offset end_offset = 0;  // the new first dirty offset: the map's last offset + 1
  std::uint64_t bytes_before = 0;  // of the segments rewritten
  std::uint64_t bytes_after = 0;
  std::uint64_t records_removed = 0;   // superseded by a later record of their key, tombstones included
  std::uint64_t tombstones_removed = 0;  // of which tombstones (superseded, or past their delete horizon)
  std::uint64_t keys_mapped = 0;
  bool map_full = false;  // the dirty section had more keys than the map holds
  std::uint64_t records_read = 0;  // by buildOffsetMap and cleanInto: what the cleaner's CPU goes through
  std::uint64_t bytes_read = 0;    // the dirty section, then every rewritten segment
  std::vector<RecordBatch> removed;
};

// A cleaning computed from the log as it was when it started (Cleaner.cleanSegments
// writes the .cleaned files), to replace the segments below `cut` once its I/O is
// done (UnifiedLog.replaceSegments) if the log was not rewritten meanwhile.
struct CleanedLog {
  CleanerStats stats;
  Offset cut = 0;                    // the first segment base at or past stats.end_offset
  std::vector<RecordBatch> batches;  // what the segments below `cut` keep, in offset order
  struct Segment {
    std::uint64_t bytes = 0;
    SimTime delete_horizon = -1;
  };
  std::vector<Segment> segments;     // the new size and tombstone horizon of each segment below `cut`
  std::uint32_t log_rewrites = 0;    // PartitionLog::rewrites() when it was computed
};

// SkimpyOffsetMap's capacity: log.cleaner.dedupe.buffer.size split over
// log.cleaner.threads, 24 bytes a slot (an MD5 hash and an offset), filled to
// log.cleaner.io.buffer.load.factor.
std::size_t offset_map_keys(std::uint64_t dedupe_buffer_bytes, int threads, double load_factor);

}  // namespace ksim::models
