#pragma once
// The segment and retention configs of a log (Kafka's LogConfig): the
// brokers' log.* defaults and a topic's own segment.bytes, segment.ms,
// retention.ms, retention.bytes and cleanup.policy.
#include "app/scenario/config_reader.hpp"
#include "models/protocol/kafka_config.hpp"
#include "models/protocol/log_config.hpp"

namespace ksim::app {

// brokers.config: log.segment.bytes, log.roll.ms (over log.roll.hours),
// log.retention.ms (over .minutes, over .hours), log.retention.bytes, log.cleanup.policy.
// `min_segment_bytes`: Kafka's lower bound of log.segment.bytes and segment.bytes
// (1 MiB from 4.1, LogConfig; 14 before, LegacyRecord.RECORD_OVERHEAD_V0).
models::LogConfig read_log_defaults(config::MapReader& broker_config, std::uint64_t min_segment_bytes);
// A topic's config: its own keys over the brokers' defaults.
models::LogConfig read_topic_log_config(config::MapReader& topic_config, const models::LogConfig& defaults,
                                        std::uint64_t min_segment_bytes);
// brokers.config: the log cleaner's log.cleaner.enable, .backoff.ms, .threads, .dedupe.buffer.size,
// .io.buffer.load.factor and .io.max.bytes.per.second.
void read_log_cleaner_config(config::MapReader& broker_config, models::BrokerConfig& c);

}  // namespace ksim::app
