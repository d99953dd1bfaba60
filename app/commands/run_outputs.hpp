#pragma once
// What `ksim run` writes besides its report: the timeline page (--timeline,
// with a spacetime diagram of --timeline-window and --partition), the
// Chrome trace event file Perfetto opens (--perfetto), and JUnit XML
// (--junit). The options are checked and every file opened before the run,
// so a bad one is a usage error (exit 2) that costs no simulation; the
// timeline recorder listens to the run; the files are written after it.
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "app/commands/commands.hpp"
#include "app/harness/cluster.hpp"
#include "app/report/report.hpp"
#include "app/timeline/timeline_recorder.hpp"

namespace ksim::app {

class RunOutputs {
 public:
  // Throws config::ConfigError naming the option when one is wrong or its file cannot be written.
  RunOutputs(const RunArgs& args, const Scenario& scenario);
  ~RunOutputs();

  // Before the run: listen to it, if a timeline or trace is wanted.
  void attach(Cluster& cluster);
  // After it.
  void write(const Cluster& cluster, const RunReport& report);

 private:
  const RunArgs& args_;
  timeline::RecorderOptions recorder_options_;
  std::ofstream timeline_, perfetto_, junit_;
  std::unique_ptr<timeline::TimelineRecorder> recorder_;
};

// "10s..12s": the window [10s, 12s); throws config::ConfigError for --timeline-window.
std::pair<SimTime, SimTime> parse_time_window(const std::string& text);
// "orders-3": topic orders, partition 3, of the scenario's topics; throws config::ConfigError for --partition.
models::TopicPartition parse_partition(const std::string& text, const Scenario& scenario);
// The command that replays a run: ksim run FILE --seed N [--set ...]...
std::string replay_command(const RunArgs& args, const RunReport& report);

}  // namespace ksim::app
