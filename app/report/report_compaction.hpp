#pragma once
// What the log cleaner did (cleanup.policy=compact) and whether it kept the
// latest write of every key: in the JSON under "compaction", in the text
// report's cluster part when a topic compacts.
#include <ostream>

#include <nlohmann/json.hpp>

#include "app/report/figure_table.hpp"
#include "models/check/compaction_checker.hpp"

namespace ksim::app {

const Section<models::CompactionReport>& compaction_section();
void add_compaction_json(const models::CompactionReport& c, nlohmann::ordered_json& j);
void print_compaction(const models::CompactionReport& c, std::ostream& out);

}  // namespace ksim::app
