#pragma once
// The report's availability section: for every incident of any kind (and
// for none), how long partitions could not accept writes at their
// producers' acks and min.insync.replicas, how long they could not be read,
// and how many records waited (models/check/availability_tracker.hpp has
// the definitions); a figure table, as JSON and text.
#include <ostream>

#include <nlohmann/json.hpp>

#include "app/report/figure_table.hpp"
#include "models/check/availability_tracker.hpp"

namespace ksim::app {

const Section<models::AvailabilityFigures>& availability_section();

void add_availability_json(const models::AvailabilityFigures& a, nlohmann::ordered_json& j);
void print_availability(const models::AvailabilityFigures& a, std::ostream& out);

}  // namespace ksim::app
