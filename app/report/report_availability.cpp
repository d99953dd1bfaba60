#include "app/report/report_availability.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

namespace ksim::app {

namespace {

using AvailabilityRow = models::AvailabilityFigures;
using U = FigureUnit;

constexpr Figure<AvailabilityRow> kAvailability[] = {
    {.name = "writes.partitions", .value = [](const AvailabilityRow& a) { return figure_value(a.writes.partitions); },
     .label = "could not accept writes: partitions", .new_line = true, .expect = ExpectAs::Count,
     .description = "partitions that could not accept writes at their producers' acks and min.insync.replicas, "
                    "at least once",
     .expect_key = "write_unavailable_partitions"},
    {.name = "writes.longest_s", .value = [](const AvailabilityRow& a) { return figure_value(to_seconds(a.writes.longest)); },
     .unit = U::Seconds, .label = "longest", .expect = ExpectAs::Bound,
     .description = "the longest time one partition could not accept writes (a duration)",
     .expect_key = "write_unavailable"},
    {.name = "writes.partition_s", .value = [](const AvailabilityRow& a) { return figure_value(a.writes.partition_s); },
     .unit = U::PartitionSeconds, .label = "total", .expect = ExpectAs::Bound,
     .description = "the time partitions could not accept writes, summed over partitions",
     .expect_key = "write_unavailable_partition_s"},
    {.name = "writes.records_waited", .value = [](const AvailabilityRow& a) { return figure_value(a.writes.records_waited); },
     .unit = U::Records, .label = "records sent meanwhile", .expect = ExpectAs::Count,
     .description = "records handed to the producers for partitions while they could not accept writes",
     .expect_key = "records_waited"},
    {.name = "writes.still_unavailable", .value = [](const AvailabilityRow& a) { return figure_value(a.writes.still_unavailable); },
     .label = "at the end"},
    {.name = "reads.partitions", .value = [](const AvailabilityRow& a) { return figure_value(a.reads.partitions); },
     .label = "could not be read: partitions", .new_line = true, .expect = ExpectAs::Count,
     .description = "partitions that could not be read (no reachable leader) at least once",
     .expect_key = "read_unavailable_partitions"},
    {.name = "reads.longest_s", .value = [](const AvailabilityRow& a) { return figure_value(to_seconds(a.reads.longest)); },
     .unit = U::Seconds, .label = "longest", .expect = ExpectAs::Bound,
     .description = "the longest time one partition could not be read (a duration)", .expect_key = "read_unavailable"},
    {.name = "reads.partition_s", .value = [](const AvailabilityRow& a) { return figure_value(a.reads.partition_s); },
     .unit = U::PartitionSeconds, .label = "total", .expect = ExpectAs::Bound,
     .description = "the time partitions could not be read, summed over partitions",
     .expect_key = "read_unavailable_partition_s"},
    {.name = "reads.still_unavailable", .value = [](const AvailabilityRow& a) { return figure_value(a.reads.still_unavailable); },
     .label = "at the end"},
};

constexpr Section<AvailabilityRow> kAvailabilitySection{"availability", SectionScope::Kafka, "availability", kAvailability};

nlohmann::ordered_json cost_json(const models::UnavailabilityCost& c, bool writes) {
  nlohmann::ordered_json j{{"partitions", c.partitions},
                           {"longest_s", to_seconds(c.longest)},
                           {"partition_s", c.partition_s},
                           {"still_unavailable", c.still_unavailable}};
  if (writes) j["records_waited"] = c.records_waited;
  return j;
}

std::string cost_text(const models::UnavailabilityCost& c) {
  if (c.partitions == 0) return "none";
  return fmt::format("{} partitions, longest {:.3f}s, {:.3f} partition-s{}", c.partitions, to_seconds(c.longest),
                     c.partition_s, c.still_unavailable ? fmt::format(", {} at the end", c.still_unavailable) : "");
}

std::string incident_text(const models::AvailabilityIncident& i) {
  if (i.fault.empty()) return "with no fault";
  return fmt::format("{} at {:.3f}s{}{}", i.fault, to_seconds(i.at),
                     i.duration > 0 ? fmt::format(" for {:.3f}s", to_seconds(i.duration)) : "",
                     i.nodes.empty() ? "" : fmt::format(" ({})", fmt::join(i.nodes, ", ")));
}

}  // namespace

const Section<models::AvailabilityFigures>& availability_section() { return kAvailabilitySection; }

void add_availability_json(const models::AvailabilityFigures& a, nlohmann::ordered_json& j) {
  add_json(kAvailabilitySection, a, j);
  nlohmann::ordered_json incidents = nlohmann::ordered_json::array();
  for (const models::AvailabilityIncident& i : a.incidents) {
    incidents.push_back({{"fault", i.fault.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(i.fault)},
                         {"nodes", i.nodes},
                         {"at_s", to_seconds(i.at)},
                         {"duration_s", to_seconds(i.duration)},
                         {"writes", cost_json(i.writes, true)},
                         {"reads", cost_json(i.reads, false)}});
  }
  j["availability"]["incidents"] = incidents;
}

void print_availability(const models::AvailabilityFigures& a, std::ostream& out) {
  if (a.incidents.empty()) {
    fmt::print(out, "  availability: every partition could accept writes and be read throughout\n");
    return;
  }
  print_figures(kAvailabilitySection, a, out);
  for (const models::AvailabilityIncident& i : a.incidents) {
    fmt::print(out, "  {}: writes {}", incident_text(i), cost_text(i.writes));
    if (i.writes.records_waited > 0) fmt::print(out, " ({} records sent meanwhile)", i.writes.records_waited);
    fmt::print(out, "; reads {}\n", cost_text(i.reads));
  }
}

}  // namespace ksim::app
