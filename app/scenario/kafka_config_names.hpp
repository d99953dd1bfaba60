#pragma once
// The names of Kafka's real configs, per kind, as in the release ksim
// models: what a `config:` map may hold that ksim does not model.
#include <string>
#include <string_view>
#include <vector>

#include "app/scenario/config_reader.hpp"

namespace ksim::app {

enum class KafkaConfigKind { Producer, Consumer, Broker, Topic };

const std::vector<std::string>& kafka_config_names(KafkaConfigKind kind);  // sorted
std::string_view to_string(KafkaConfigKind kind);  // "producer"

// A section's Kafka config map, `config:`: Kafka's names of `kind` that ksim
// does not read are reported as not modelled (or ignored and listed), and a
// `config_file:` beside it (a .properties file, relative to the scenario)
// gives defaults for its keys; `config:` wins. The map records the value it
// resolves for every key read (config::MapReader::resolved).
config::MapReader kafka_config(config::MapReader& section, KafkaConfigKind kind);

}  // namespace ksim::app
