#pragma once
// The consumer groups of a run: the consumption checker's report per
// group.id, the end-to-end verdict (the producers' delivery combined with
// the group's processing); a figure table applied to each group, and one to
// a consume-transform-produce group's output; as JSON and text.
#include <algorithm>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/report/figure_table.hpp"
#include "models/check/consumption_checker.hpp"
#include "models/check/delivery_checker.hpp"
#include "models/check/transform_checker.hpp"
#include "models/coordinator/group_conversion.hpp"

namespace ksim::app {

class Cluster;

struct GroupFigures {
  std::string group;
  std::vector<std::string> members;
  models::ConsumptionReport report;
  // KIP-848's online migration: the group's conversions between the protocols (broker knowledge).
  std::vector<models::GroupConversion> conversions;
  std::int64_t protocol_upgrades() const { return std::count_if(conversions.begin(), conversions.end(), [](const auto& c) { return c.to_consumer; }); }
  std::int64_t protocol_downgrades() const { return std::ssize(conversions) - protocol_upgrades(); }
  // End to end: each acknowledged record processed (at least once), no
  // record processed twice even if the producer wrote it twice (at most once).
  std::optional<models::TransformReport> transform;  // a consume-transform-produce application's output
  bool end_to_end_at_most_once = false;
  bool end_to_end_at_least_once = false;
  bool end_to_end_exactly_once() const {
    // A transform's processing may go back after an abort: what counts is its committed output.
    return end_to_end_at_most_once && end_to_end_at_least_once && (transform || report.out_of_order == 0);
  }
  // What the group's guarantees were checked over, when it was nothing: the
  // checker's reason ("nothing consumed") or the run's ("no fault fired");
  // end to end also the producers' ("nothing acknowledged").
  std::string vacuous, end_to_end_vacuous;
  Guarantees consumption() const {
    return {report.at_most_once(), report.at_least_once(), report.exactly_once(), vacuous, report.incomplete()};
  }
  Guarantees end_to_end() const {
    const std::string incomplete = transform ? "" : report.incomplete();
    return {end_to_end_at_most_once, end_to_end_at_least_once, end_to_end_exactly_once(), end_to_end_vacuous, incomplete};
  }
};

const Section<GroupFigures>& group_section();
const Section<models::TransformReport>& transform_output_section();

// A group's consumers, and the topic a consume-transform-produce application
// among them writes to: what its figures are checked over, from a run
// (group_inputs) or from a recorded history (ksim check).
struct GroupInput {
  models::ConsumerGroupSpec spec;
  std::optional<std::int32_t> output_topic;
  std::vector<models::GroupConversion> conversions;  // from a run only: a recorded history has none
};
std::vector<GroupInput> group_inputs(const Cluster& cluster);

// `vacuous`: the run's reason its guarantees were checked over nothing ("no
// fault fired"), "" when none.
std::vector<GroupFigures> group_figures(const std::vector<GroupInput>& groups, const models::ConsumptionHistory& consumption,
                                        const models::DeliveryHistory& history, const models::FinalLogs& logs,
                                        const models::DeliveryReport& delivery, const std::string& vacuous);
nlohmann::ordered_json groups_json(const std::vector<GroupFigures>& groups);
void print_groups(const std::vector<GroupFigures>& groups, std::ostream& out);

}  // namespace ksim::app
