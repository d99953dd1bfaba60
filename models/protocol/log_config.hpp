#pragma once
// A log's segment and retention configs (Kafka's LogConfig): the topic-level
// segment.bytes, segment.ms, retention.bytes, retention.ms and cleanup.policy,
// whose defaults are the brokers' log.segment.bytes, log.roll.ms (log.roll.hours),
// log.retention.bytes and log.retention.ms (log.retention.hours); and the
// compaction configs of TopicConfig / CleanerConfig: min.cleanable.dirty.ratio
// (log.cleaner.min.cleanable.ratio), min.compaction.lag.ms and
// max.compaction.lag.ms (log.cleaner.*), delete.retention.ms
// (log.cleaner.delete.retention.ms). Tiered storage (KIP-405, 3.6+):
// remote.storage.enable, local.retention.ms and local.retention.bytes
// (log.local.retention.*), -2 meaning retention.ms / retention.bytes.
#include <cstdint>

#include "sim/events/time.hpp"

namespace ksim::models {

struct LogConfig {
  static constexpr SimTime kWeek = 168LL * 3600 * 1'000'000'000;
  std::uint64_t segment_bytes = 1ULL << 30;  // segment.bytes (log.segment.bytes): 1 GiB
  SimTime segment_ms = kWeek;                // segment.ms (log.roll.ms, log.roll.hours): 168 hours
  std::int64_t retention_bytes = -1;         // retention.bytes (log.retention.bytes): -1, no limit
  SimTime retention_ms = kWeek;              // retention.ms (log.retention.ms, .minutes, .hours): 168 hours; kNever for -1
  bool delete_enabled = true;                // cleanup.policy contains "delete"
  bool compact_enabled = false;              // cleanup.policy contains "compact" (LogConfig.compact)
  double min_cleanable_dirty_ratio = 0.5;    // min.cleanable.dirty.ratio (log.cleaner.min.cleanable.ratio)
  SimTime min_compaction_lag_ms = 0;         // min.compaction.lag.ms (log.cleaner.min.compaction.lag.ms)
  SimTime max_compaction_lag_ms = kNever;    // max.compaction.lag.ms (log.cleaner.max.compaction.lag.ms): Long.MAX_VALUE
  SimTime delete_retention_ms = 86'400'000'000'000;  // delete.retention.ms (log.cleaner.delete.retention.ms): 1 day
  bool remote_storage_enable = false;        // remote.storage.enable (KIP-405)
  static constexpr std::int64_t kUseRetention = -2;  // local.retention.*'s -2: as retention.*
  SimTime local_retention_ms = kUseRetention;        // local.retention.ms (log.local.retention.ms); kNever for -1
  std::int64_t local_retention_bytes = kUseRetention;  // local.retention.bytes (log.local.retention.bytes)

  // UnifiedLog.localRetentionMs / localRetentionSize: what the local log keeps
  // (the whole retention without tiered storage).
  SimTime effective_local_retention_ms() const {
    return remote_storage_enable && local_retention_ms != kUseRetention ? local_retention_ms : retention_ms;
  }
  std::int64_t effective_local_retention_bytes() const {
    return remote_storage_enable && local_retention_bytes != kUseRetention ? local_retention_bytes : retention_bytes;
  }

  // Whether retention may delete a segment within a week of simulated time:
  // with Kafka's defaults it never does (retention.ms is a week, retention.bytes unlimited).
  bool deletes_within_a_week() const {
    return delete_enabled && (effective_local_retention_bytes() >= 0 || effective_local_retention_ms() < kWeek);
  }

  // The defaults everywhere: no segment ever rolls or expires in a run of less than a week under 1 GiB.
  static const LogConfig& kafka_defaults() {
    static const LogConfig defaults;
    return defaults;
  }
};

}  // namespace ksim::models
