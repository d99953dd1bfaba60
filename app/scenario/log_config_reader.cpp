// Kafka's LogConfig (storage/.../log/LogConfig.java) as scenario keys: the
// ranges are Kafka's (segment.bytes at least 1 MiB from 4.1, at least 14 before,
// LegacyRecord.RECORD_OVERHEAD_V0; retention.ms and retention.bytes -1 for no limit).
#include "app/scenario/log_config_reader.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "app/scenario/config_messages.hpp"

namespace ksim::app {

using config::Bytes;
using config::Duration;
using config::MapReader;

namespace {

// A retention time: -1 is no limit (kNever), as Kafka's retention.ms and log.retention.ms.
std::optional<SimTime> read_retention_time(MapReader& config, std::string_view key) {
  if (!config.has(key)) return std::nullopt;
  if (config.get<std::string>(key, "") == "-1") return kNever;
  return config.get<Duration>(key, 0, {1, kNever});
}

// Kafka's whole-unit keys (log.roll.hours, log.retention.minutes, log.retention.hours): an integer
// of `unit`, -1 no limit where `unlimited`; read only when given, so the resolved scenario keeps Kafka's form.
std::optional<SimTime> read_whole_units(MapReader& config, std::string_view key, SimTime unit, bool unlimited) {
  if (!config.has(key)) return std::nullopt;
  const std::int64_t n = config.get<std::int64_t>(key, 0, {unlimited ? -1 : 1, INT32_MAX});
  if (n == -1) return kNever;
  if (n == 0) throw config.error(key, "must be -1 (no limit) or at least 1");
  return n * unit;
}

// cleanup.policy: delete, compact, or both (a list): whether "delete" and "compact" are in it.
void read_cleanup_policy(MapReader& config, std::string_view key, models::LogConfig& log) {
  if (!config.has(key)) return;
  bool deletes = false;
  bool compacts = false;
  std::string policy = config.get<std::string>(key, "");
  std::erase(policy, ' ');
  std::size_t start = 0;
  while (start <= policy.size()) {
    const std::size_t comma = std::min(policy.find(',', start), policy.size());
    const std::string item = policy.substr(start, comma - start);
    if (item == "delete") {
      deletes = true;
    } else if (item == "compact") {
      compacts = true;
    } else {
      throw config.error(key, "must be delete, compact or delete,compact (" + config::detail::single_quoted(item) + " is neither)");
    }
    start = comma + 1;
  }
  log.delete_enabled = deletes;
  log.compact_enabled = compacts;
}

// The compaction configs (TopicConfig; their broker defaults in CleanerConfig
// and ServerLogConfigs): `prefix` is "" for a topic's names, "log.cleaner." for
// the brokers' (log.cleaner.min.cleanable.ratio, log.cleaner.delete.retention.ms, ...).
void read_compaction(MapReader& config, bool broker, models::LogConfig& log) {
  const std::string prefix = broker ? "log.cleaner." : "";
  log.min_cleanable_dirty_ratio = config.get<double>(broker ? "log.cleaner.min.cleanable.ratio" : "min.cleanable.dirty.ratio",
                                                     log.min_cleanable_dirty_ratio, {0.0, 1.0});
  log.min_compaction_lag_ms = config.get<Duration>(prefix + "min.compaction.lag.ms", log.min_compaction_lag_ms, {0, kNever});
  log.max_compaction_lag_ms = config.get<Duration>(prefix + "max.compaction.lag.ms", log.max_compaction_lag_ms, {1, kNever});
  log.delete_retention_ms = config.get<Duration>(prefix + "delete.retention.ms", log.delete_retention_ms, {0, kNever});
  if (log.max_compaction_lag_ms < log.min_compaction_lag_ms) {
    // LogConfig.validateValues: "conflict topic config setting max.compaction.lag.ms < min.compaction.lag.ms".
    throw config.error(prefix + "max.compaction.lag.ms", "must not be less than " + prefix + "min.compaction.lag.ms");
  }
}

// A retention size: a size (256KB, 1GiB) or -1, no limit (retention.bytes, log.retention.bytes).
std::int64_t read_retention_bytes(MapReader& config, std::string_view key, std::int64_t fallback) {
  if (!config.has(key)) return fallback;
  if (config.get<std::string>(key, "") == "-1") return -1;
  return static_cast<std::int64_t>(config.get<Bytes>(key, 0, {0, INT64_MAX}));
}

// local.retention.ms / log.local.retention.ms (KIP-405): -2 takes retention.ms, -1 is no limit.
void read_local_retention(MapReader& config, std::string_view ms_key, std::string_view bytes_key, models::LogConfig& log) {
  if (config.has(ms_key)) {
    const std::string text = config.get<std::string>(ms_key, "");
    log.local_retention_ms = text == "-2"   ? models::LogConfig::kUseRetention
                             : text == "-1" ? kNever
                                            : config.get<Duration>(ms_key, 0, {0, kNever});
  }
  if (config.has(bytes_key)) {
    const std::string text = config.get<std::string>(bytes_key, "");
    log.local_retention_bytes = text == "-2" ? models::LogConfig::kUseRetention
                                             : read_retention_bytes(config, bytes_key, log.local_retention_bytes);
  }
}

// LogConfig.validateRemoteStorageRetentionSize / RetentionTime and
// validateNoRemoteStorageForCompactedTopic, for a topic with remote.storage.enable.
void check_tiered(MapReader& config, const models::LogConfig& log) {
  if (!log.remote_storage_enable) {
    for (const char* key : {"local.retention.ms", "local.retention.bytes"}) {
      if (config.has(key)) config.warn(key, "has no effect without remote.storage.enable: true (KIP-405)");
    }
    return;
  }
  if (log.compact_enabled) {
    throw config.error("remote.storage.enable", "is refused for a compacted topic (cleanup.policy has compact): "
                                                "Kafka says \"Remote log storage is unsupported for the compacted topics\"");
  }
  if (log.retention_ms != kNever && log.effective_local_retention_ms() > log.retention_ms) {
    throw config.error(config.has("local.retention.ms") ? "local.retention.ms" : "retention.ms",
                       "local.retention.ms must not be more than retention.ms (Kafka's LogConfig refuses it)");
  }
  if (log.retention_bytes >= 0 &&
      (log.effective_local_retention_bytes() < 0 || log.effective_local_retention_bytes() > log.retention_bytes)) {
    throw config.error(config.has("local.retention.bytes") ? "local.retention.bytes" : "retention.bytes",
                       "local.retention.bytes must not be more than retention.bytes (Kafka's LogConfig refuses it)");
  }
}

// segment.bytes or log.segment.bytes: Kafka 4.1+ refuses less than 1 MiB (its tests use the
// internal config internal.segment.bytes, which no release documents).
std::uint64_t read_segment_bytes(MapReader& config, std::string_view key, std::uint64_t fallback, std::uint64_t min) {
  if (min > 14 && config.has(key) && config.get<Bytes>(key, fallback, {14, INT32_MAX}) < min) {
    throw config.error(key, "must be at least 1MiB on Kafka 4.1+ (LogConfig: \"Value must be at least 1048576\"); "
                            "before 4.1 at least 14 bytes (set kafka_version for an older release)");
  }
  return config.get<Bytes>(key, fallback, {min, INT32_MAX});
}

}  // namespace

// The brokers' log.* defaults of the topic's segment and retention configs
// (LogConfig.SERVER_CONFIG_DEF): log.roll.ms over log.roll.hours, log.retention.ms
// over .minutes over .hours, as KafkaConfig.logRollTimeMillis and logRetentionTimeMillis.
models::LogConfig read_log_defaults(MapReader& broker_config, std::uint64_t min_segment_bytes) {
  models::LogConfig log;
  log.segment_bytes = read_segment_bytes(broker_config, "log.segment.bytes", log.segment_bytes, min_segment_bytes);
  if (const auto t = read_whole_units(broker_config, "log.roll.hours", minutes(60), false)) log.segment_ms = *t;
  if (broker_config.has("log.roll.ms")) log.segment_ms = broker_config.get<Duration>("log.roll.ms", 0, {1, kNever});
  if (const auto t = read_whole_units(broker_config, "log.retention.hours", minutes(60), true)) log.retention_ms = *t;
  if (const auto t = read_whole_units(broker_config, "log.retention.minutes", minutes(1), true)) log.retention_ms = *t;
  if (const auto t = read_retention_time(broker_config, "log.retention.ms")) log.retention_ms = *t;
  log.retention_bytes = read_retention_bytes(broker_config, "log.retention.bytes", log.retention_bytes);
  read_cleanup_policy(broker_config, "log.cleanup.policy", log);
  read_compaction(broker_config, true, log);
  read_local_retention(broker_config, "log.local.retention.ms", "log.local.retention.bytes", log);
  return log;
}

models::LogConfig read_topic_log_config(MapReader& config, const models::LogConfig& defaults,
                                        std::uint64_t min_segment_bytes) {
  models::LogConfig log = defaults;
  log.segment_bytes = read_segment_bytes(config, "segment.bytes", log.segment_bytes, min_segment_bytes);
  log.segment_ms = config.get<Duration>("segment.ms", log.segment_ms, {1, kNever});
  if (const auto retention = read_retention_time(config, "retention.ms")) log.retention_ms = *retention;
  log.retention_bytes = read_retention_bytes(config, "retention.bytes", log.retention_bytes);
  read_cleanup_policy(config, "cleanup.policy", log);
  read_compaction(config, false, log);
  log.remote_storage_enable = config.get<bool>("remote.storage.enable", log.remote_storage_enable);
  read_local_retention(config, "local.retention.ms", "local.retention.bytes", log);
  check_tiered(config, log);
  return log;
}

// CleanerConfig; Kafka's ranges: threads at least 1, the dedupe buffer at least 1 MiB a thread.
void read_log_cleaner_config(MapReader& in, models::BrokerConfig& c) {
  c.log_cleaner_enable = in.get<bool>("log.cleaner.enable", c.log_cleaner_enable);
  c.log_cleaner_backoff = in.get<Duration>("log.cleaner.backoff.ms", c.log_cleaner_backoff, {1, kNever});
  c.log_cleaner_threads = in.get<std::int32_t>("log.cleaner.threads", c.log_cleaner_threads, {1, 1000});
  c.log_cleaner_dedupe_buffer_size =
      in.get<Bytes>("log.cleaner.dedupe.buffer.size", c.log_cleaner_dedupe_buffer_size, {1ULL << 20, 1ULL << 40});
  if (c.log_cleaner_dedupe_buffer_size / static_cast<std::uint64_t>(c.log_cleaner_threads) < (1ULL << 20)) {
    throw in.error("log.cleaner.dedupe.buffer.size", "must be at least 1MiB per cleaner thread (log.cleaner.threads)");
  }
  c.log_cleaner_io_buffer_load_factor =
      in.get<double>("log.cleaner.io.buffer.load.factor", c.log_cleaner_io_buffer_load_factor, {0.01, 1.0});
  c.log_cleaner_io_max_bytes_per_second = static_cast<double>(
      in.get<Bytes>("log.cleaner.io.max.bytes.per.second", 0, {1, static_cast<std::uint64_t>(INT64_MAX)}));
}

}  // namespace ksim::app
