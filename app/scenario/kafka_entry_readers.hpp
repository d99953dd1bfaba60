#pragma once
// What the readers of a scenario's Kafka entries share (scenario_kafka.cpp,
// consumer_reader.cpp, controller_reader.cpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/scenario/config_reader.hpp"
#include "app/scenario/release_reader.hpp"
#include "app/scenario/scenario.hpp"

namespace ksim::app {

// The `topic` key (default: the first topic), as an index into `topics`.
std::int32_t read_topic_index(config::MapReader& in, const std::vector<models::TopicSpec>& topics);
// A client's `start`: a time, or `ready` (also when absent): once the cluster
// is ready for clients (models/check/cluster_readiness.hpp); nullopt then.
std::optional<SimTime> read_client_start(config::MapReader& in);
// The controller section's configs (controller_reader.cpp), with brokers.config's broker.session.timeout.ms.
models::ControllerConfig read_controller_config(config::MapReader controller, config::MapReader broker_config,
                                                const std::optional<HardwareProfile>& profile,
                                                const models::Mechanisms& m);
// The controllers section: the quorum's size and its controller.quorum.* configs.
void read_controllers(config::MapReader& root, KafkaSpec& kafka);
// `zookeeper:` and zookeeper.session.timeout.ms, for releases before KRaft (controller_reader.cpp).
void read_zookeeper(config::MapReader& root, config::MapReader broker_config, const models::Mechanisms& cluster,
                    KafkaSpec& kafka);
// A consumers entry, with the defaults and mechanisms of its release.
KafkaSpec::ConsumerGroup read_consumer(config::MapReader in, const std::vector<models::TopicSpec>& topics,
                                       const std::vector<std::string>& racks, const ReleaseSpec& release);
// A consumers entry with share_group (KIP-932, share_consumer_reader.cpp).
KafkaSpec::ShareConsumerGroup read_share_consumer(config::MapReader in, const std::vector<models::TopicSpec>& topics,
                                                  const std::vector<std::string>& racks, const ReleaseSpec& release);

}  // namespace ksim::app
