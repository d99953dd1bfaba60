#pragma once
// A producer's Kafka configs (`config:` under Kafka's names), and the checks
// that need its topic.
#include "app/scenario/config_reader.hpp"
#include "models/protocol/kafka_config.hpp"
#include "models/protocol/kafka_types.hpp"

namespace ksim::app {

// The producer section's `config:` map, with the defaults of its release's `mechanisms`.
models::ProducerConfig read_producer_config(config::MapReader& group, const models::Mechanisms& mechanisms);

// An idempotent producer cannot write to a topic of record format v0 or v1 (an error at its key).
void check_record_format(config::MapReader& group, const models::ProducerConfig& c, const models::TopicSpec& topic);

}  // namespace ksim::app
