#include "app/report/report_compaction.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace ksim::app {

namespace {

using CR = models::CompactionReport;
using U = FigureUnit;

constexpr Figure<CR> kCompactionFigures[] = {
    {.name = "cleanings", .value = of<&CR::cleanings>, .label = "cleanings", .expect = ExpectAs::Count,
     .description = "logs the log cleaner compacted (every replica's: each cleans its own log)"},
    {.name = "bytes_before", .value = of<&CR::bytes_before>, .unit = U::Bytes, .label = "segments rewritten"},
    {.name = "bytes_after", .value = of<&CR::bytes_after>, .unit = U::Bytes, .label = "after cleaning"},
    {.name = "records_removed", .value = of<&CR::records_removed>, .label = "records removed",
     .expect = ExpectAs::Count,
     .description = "records the cleanings removed, every replica's (superseded by a later record of their key, or "
                    "tombstones past delete.retention.ms)",
     .expect_key = "compaction_records_removed"},
    {.name = "tombstones_removed", .value = of<&CR::tombstones_removed>, .label = "tombstones removed",
     .expect = ExpectAs::Count, .description = "tombstones (null values) among the records removed, every replica's"},
    {.name = "map_full_cleanings", .value = of<&CR::map_full_cleanings>, .label = "cut short by the offset map"},
    {.name = "aborted_cleanings", .value = of<&CR::aborted_cleanings>, .label = "aborted", .expect = ExpectAs::Count,
     .description = "cleanings of user topics whose result was dropped because the log changed while they ran "
                    "(truncated, its start moved by retention, deleted or moved): the segments stay as they were"},
    {.name = "internal_cleanings", .value = of<&CR::internal_cleanings>, .label = "internal topics' cleanings",
     .expect = ExpectAs::Count,
     .description = "cleanings of __consumer_offsets and __transaction_state (compacted, every replica's; not in "
                    "cleanings)"},
    {.name = "internal_records_removed", .value = of<&CR::internal_records_removed>,
     .label = "coordinator records removed", .expect = ExpectAs::Count,
     .description = "offset commits, group and transaction records those cleanings removed (superseded by a later "
                    "record of their key)"},
    {.name = "committed_compacted", .value = of<&CR::compacted>, .label = "committed records compacted away", .new_line = true},
    {.name = "keys", .value = of<&CR::keys>, .label = "keys", .expect = ExpectAs::Count,
     .description = "keys (by partition) of compacted topics with a committed write", .expect_key = "compacted_keys"},
    {.name = "tombstone_keys", .value = of<&CR::tombstone_keys>, .label = "deleted (latest write a tombstone)"},
    {.name = "latest_removed", .value = of<&CR::latest_removed>, .label = "latest values removed",
     .expect = ExpectAs::Count,
     .description = "keys whose latest committed write, a value, is gone from the final leader's log: compaction "
                    "removed what it must keep (Kafka keeps the last value of every key)"},
    {.name = "latest_kept",
     .value = [](const CR& c) { return figure_value(Held{c.latest_removed == 0, c.vacuous}); },
     .unit = U::Held, .expect = ExpectAs::Flag,
     .description = "the final leaders' logs hold the latest committed value of every key of the compacted topics "
                    "(vacuous when no topic compacts or nothing was cleaned)"},
};

constexpr Section<CR> kCompactionSection{"compaction", SectionScope::Kafka, "compaction", kCompactionFigures};

}  // namespace

const Section<models::CompactionReport>& compaction_section() { return kCompactionSection; }

void add_compaction_json(const models::CompactionReport& c, nlohmann::ordered_json& j) { add_json(kCompactionSection, c, j); }

void print_compaction(const models::CompactionReport& c, std::ostream& out) {
  if (c.vacuous == "no compacted topic" && c.internal_cleanings == 0) return;
  fmt::print(out, "  compaction (the log cleaner){}\n", c.vacuous.empty() ? "" : ": " + c.vacuous);
  print_figures(kCompactionSection, c, out);
}

}  // namespace ksim::app
