#pragma once
// Tiered storage (KIP-405) in a scenario: the brokers' RemoteLogManagerConfig
// keys in brokers.config, the remote store's latency and bandwidth in
// brokers.remote_storage, and the checks Kafka makes of a topic with
// remote.storage.enable.
#include "app/scenario/config_reader.hpp"
#include "models/protocol/kafka_config.hpp"
#include "models/protocol/kafka_release.hpp"

namespace ksim::app {

// remote.log.storage.system.enable, remote.log.manager.task.interval.ms,
// remote.fetch.max.wait.ms, remote.log.reader.threads,
// remote.log.manager.copier.thread.pool.size (before 3.6: errors); and
// brokers.remote_storage: {latency, bandwidth}.
models::RemoteLogConfig read_remote_log_config(config::MapReader& brokers, config::MapReader& broker_config,
                                               const models::Mechanisms& m);
// A topic with remote.storage.enable needs Kafka 3.6+ and brokers with
// remote.log.storage.system.enable (KafkaConfig refuses it otherwise).
void check_tiered_topic(config::MapReader& topic_config, const models::TopicSpec& topic, const models::RemoteLogConfig& c,
                        const models::Mechanisms& m);

}  // namespace ksim::app
