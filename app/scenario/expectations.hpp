#pragma once
// The `expect:` section of a scenario: what must hold at the end of a run.
//
// Every expectation names a figure of the report, and the figures live in
// the report's tables, one per section (app/report/figure_table.hpp), where
// each figure's name is written once. The report layer is above this one, so
// the reader cannot include those tables; instead whoever reads a scenario
// hands read_scenario the report's catalogue of the figures an expectation
// may name (app::expectation_catalogue(), app/report/report_expectations.hpp),
// and this header says only what such a catalogue is: names, how `expect:`
// compares each, in which unit, and which part of a scenario the figure
// needs. The same tables then check the expectations, write the JSON and
// print the text report.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "app/scenario/config_reader.hpp"

namespace ksim::app {

struct Scenario;

// What a figure measures: how the text report shows it and how the bound of
// an expectation on it is written.
enum class FigureUnit {
  Count,             // 12
  Records,           // 12 records
  Bytes,             // 16KiB
  Fraction,          // 97.3% (a bound: 0.973 or 97.3%)
  Milliseconds,      // 5.800ms (a bound: a duration, 250ms)
  Seconds,           // 6.001s (a bound: a duration)
  PartitionSeconds,  // 18.010 partition-s (a bound: a number)
  Ratio,             // 1.31 (a bound: a number)
  PerSecond,         // 350.0/s (a bound: a rate, 1000/s)
  RecordsPerSecond,  // 4826 records/s (a bound: a rate)
  BytesPerSecond,    // 23.154Mbps (a bound: a bandwidth)
  Held,              // a guarantee: held or VIOLATED
  Flag,              // yes or no
  Verdict,           // the strongest guarantee that held: exactly-once, at-least-once, at-most-once or none
  Text,              // a name or other text
  Names,             // a list of names; the text report and a count give how many
};

// Whether a bound in this unit can be read (a count, a quantity).
bool boundable(FigureUnit unit);

// How `expect:` may name a figure.
enum class ExpectAs {
  Nothing,    // it may not
  Count,      // KEY: 0, ">0", ">=3", "<10", "<=2" (a list's count is its length)
  Bound,      // max_KEY, min_KEY: a value in the figure's unit
  Flag,       // KEY: true or false
  Guarantee,  // KEY: none, at-most-once, at-least-once or exactly-once, the weakest that must hold
};

// What a scenario must have for a section's figures to exist, which is also
// where its expectations go: the run and Kafka's sections at the top of
// `expect:`, transactions under `transactions:`, a consumer group's under
// `groups: {GROUP: ...}`, a share group's (KIP-932) under `share_groups: {GROUP: ...}`;
// tiered storage's (KIP-405) at the top too, when a topic has remote.storage.enable.
enum class SectionScope { Run, Rpc, Kafka, Transactions, Group, ShareGroup, Tiered };

struct ExpectableFigure {
  std::string_view figure;  // its name in its section's table
  std::string_view key;     // its `expect:` key (for a bound, what follows max_ and min_)
  ExpectAs as = ExpectAs::Count;
  FigureUnit unit = FigureUnit::Count;
  std::string_view description;  // for docs/scenarios.md
};

struct ExpectableSection {
  std::string_view name;  // "delivery", "rpc workload", ...
  SectionScope scope = SectionScope::Run;
  std::vector<ExpectableFigure> figures;
};

using ExpectationCatalogue = std::vector<ExpectableSection>;

// A count's comparison: "0", ">0", ">=3", "<10", "<=2".
struct CountExpectation {
  std::string op = "==";  // "==", ">", ">=", "<", "<="
  std::uint64_t value = 0;
  bool holds(std::uint64_t actual) const;
  std::string text() const { return op == "==" ? std::to_string(value) : op + std::to_string(value); }
};

// One expectation as read, in the order the scenario wrote them.
struct Expectation {
  std::string name;     // its key path below `expect:`, which names its result: "lost", "groups.app.lag"
  std::string section;  // the report section whose table has the figure
  std::string group;    // for a consumer group's figure, the group.id
  std::string figure;   // the figure's name in that table
  ExpectAs as = ExpectAs::Count;
  CountExpectation count;  // Count
  bool at_most = false;    // Bound: max_ (true) or min_ (false)
  double bound = 0;        // Bound: in the figure's unit (a duration's bound in its unit, ms or s)
  bool flag = false;       // Flag
  std::string guarantee;   // Guarantee: "none", "at-most-once", "at-least-once" or "exactly-once"
};

// Reads `expect:` for `scenario` (read up to its expectations). A key no
// table names is an unknown key with the nearest name suggested (reported by
// the root's finish()); a key for a section the scenario lacks (an rpc
// figure without an rpc workload, a transaction figure without a
// transactional producer, a group nobody joins) is an error saying so.
std::vector<Expectation> read_expectations(config::MapReader in, const Scenario& scenario,
                                           const ExpectationCatalogue& catalogue);

}  // namespace ksim::app
