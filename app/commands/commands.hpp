#pragma once
// The commands of `ksim`, independent of the command-line parser so tests
// can call them. Each returns the process exit status: 0 ok, 1 when the
// scenario's expectations do not hold, 2 for usage or scenario errors.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>


namespace ksim::app {

constexpr int kExitOk = 0;
constexpr int kExitExpectationFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitEventBound = 3;  // run: the run did not finish within --max-events

struct RunArgs {
  std::string scenario;  // empty: scenarios/quickstart.yaml
  std::optional<std::uint64_t> seed;
  std::optional<std::string> seed_text;  // --seed as typed (0 .. 2^64-1), checked by the command; wins over seed
  std::vector<std::string> overrides;  // "path.to.key=value"
  std::string trace_file;
  bool json = false;
  std::string log_level = "warn";
  bool check_every_partition = false;  // the invariants on every partition after every event (slow)
  bool ignore_unmodelled = false;  // accept Kafka configs ksim does not model, and list them in the report
  bool resolved = false;  // validate: print the scenario with every default filled in, as JSON
  std::string history_file;  // run: write the run's history there (docs/history.md)
  std::uint64_t max_events = 0;  // run: stop with kExitEventBound past this many events; 0: no bound
  std::string sample_interval;  // run: the time series' step, as report.sample_interval ("500ms")
  std::string timeline_file;    // run: the timeline as one HTML page (docs/explore.md)
  std::string timeline_window;  // run: the spacetime diagram's window, "10s..12s"
  std::string partition;        // run: the spacetime diagram's partition, "orders-3"
  std::string perfetto_file;    // run: the timeline as Chrome trace events (Perfetto, chrome://tracing)
  std::string junit_file;       // run: one JUnit test case per expectation, and the invariants
};

struct CheckArgs {
  std::string history;   // a history file (docs/history.md)
  std::string scenario;  // the scenario it ran, for its faults and expectations; empty: none
  std::vector<std::string> overrides;  // --set on the scenario
  bool json = false;
  bool ignore_unmodelled = false;
};

std::string default_scenario_path();
int run_command(const RunArgs& args, std::ostream& out, std::ostream& err);
int validate_command(const RunArgs& args, std::ostream& out, std::ostream& err);
// Exit 1 when an expectation of the scenario fails on the history, 2 for a bad history or scenario.
int check_command(const CheckArgs& args, std::ostream& out, std::ostream& err);
// The modelled Kafka releases and what each changed (models/protocol/kafka_release.hpp).
int versions_command(bool json, std::ostream& out);

}  // namespace ksim::app
