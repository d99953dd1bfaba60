#pragma once
// A scenario with every default filled in, as one JSON object: what
// `ksim validate --resolved` prints and the ground-truth harness reads
// instead of parsing YAML, so that there is one reader and one set of
// defaults. docs/resolved-scenario.md documents the shape; keep the two in step.
//
// Times are integer nanoseconds (`*_ns`), except in the Kafka config maps
// (`config`), which hold what Kafka itself is given under each name: a
// `.ms` config in milliseconds. The Kafka configs are those the reader read
// (config::MapReader::resolved), so its names and defaults are the only table.
#include <nlohmann/json.hpp>

#include "app/scenario/scenario.hpp"

namespace ksim::app {

inline constexpr int kResolvedScenarioVersion = 1;

nlohmann::json resolved_scenario(const Scenario& scenario);

// A Kafka config map as Kafka is given it: durations under `.ms` names in
// milliseconds (a fraction when not whole; Long.MAX_VALUE for "never").
nlohmann::json kafka_config_json(const config::ResolvedValues& values);

}  // namespace ksim::app
