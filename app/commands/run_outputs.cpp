#include "app/commands/run_outputs.hpp"

#include <charconv>

#include <fmt/format.h>

#include "app/report/report_junit.hpp"
#include "app/scenario/units.hpp"
#include "app/timeline/perfetto_writer.hpp"
#include "app/timeline/timeline_html.hpp"

namespace ksim::app {

namespace {

config::ConfigError option_error(std::string_view option, std::string message) {
  return config::ConfigError(config::Location{std::string(option), 0, 0}, "", std::move(message));
}

void open_file(std::ofstream& file, const std::string& path, std::string_view option) {
  if (path.empty()) return;
  file.open(path);
  if (!file) throw option_error(option, "cannot write '" + config::excerpt(path) + "'");
}

// A word for a shell: as it is when it is plain, else in single quotes.
std::string shell_word(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,") ==
                           std::string::npos) {
    return word;
  }
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace

std::pair<SimTime, SimTime> parse_time_window(const std::string& text) {
  const std::size_t dots = text.find("..");
  const auto fail = [&](const std::string& why) {
    return option_error("--timeline-window", "expected FROM..TO such as 10s..12s, got '" + config::excerpt(text) + "'" + why);
  };
  if (dots == std::string::npos) throw fail("");
  const auto from = units::parse_duration(std::string_view(text).substr(0, dots));
  const auto to = units::parse_duration(std::string_view(text).substr(dots + 2));
  if (!from) throw fail(": " + from.error());
  if (!to) throw fail(": " + to.error());
  if (to.value() <= from.value()) throw fail(": the window ends before it begins");
  return {from.value(), to.value()};
}

models::TopicPartition parse_partition(const std::string& text, const Scenario& scenario) {
  const std::size_t dash = text.rfind('-');
  std::vector<std::string> names;
  if (scenario.kafka) {
    for (const auto& t : scenario.kafka->topics) names.push_back(t.name);
  }
  std::int32_t partition = -1;
  const char* digits = dash == std::string::npos ? nullptr : text.data() + dash + 1;
  const auto [end, ec] = digits ? std::from_chars(digits, text.data() + text.size(), partition)
                                : std::from_chars_result{nullptr, std::errc::invalid_argument};
  if (dash == std::string::npos || ec != std::errc{} || end != text.data() + text.size() || partition < 0) {
    throw option_error("--partition", "expected TOPIC-N such as " + (names.empty() ? "orders" : names.front()) +
                                          "-0, got '" + config::excerpt(text) + "'");
  }
  const std::string topic = text.substr(0, dash);
  for (std::size_t t = 0; t < names.size(); ++t) {
    if (names[t] != topic) continue;
    const std::int32_t count = scenario.kafka->topics[t].partitions;
    if (partition >= count) {
      throw option_error("--partition", fmt::format("topic '{}' has {} partitions (0 to {}), not {}", config::excerpt(topic),
                                                    count, count - 1, partition));
    }
    return {static_cast<std::int32_t>(t), partition};
  }
  const auto suggestion = config::closest_name(topic, names);
  throw option_error("--partition", "the scenario has no topic '" + config::excerpt(topic) + "'" +
                                        (suggestion ? " (did you mean '" + config::excerpt(*suggestion) + "'?)" : ""));
}

std::string replay_command(const RunArgs& args, const RunReport& report) {
  std::string command = "ksim run " + shell_word(report.file) + " --seed " + std::to_string(report.seed);
  for (const std::string& set : args.overrides) command += " --set " + shell_word(set);
  if (args.ignore_unmodelled) command += " --ignore-unmodelled";
  return command;
}

RunOutputs::RunOutputs(const RunArgs& args, const Scenario& scenario) : args_(args) {
  const bool drawn = !args.timeline_file.empty() || !args.perfetto_file.empty();
  if (!args.timeline_window.empty()) {
    if (!drawn) throw option_error("--timeline-window", "needs --timeline FILE or --perfetto FILE to draw the window in");
    recorder_options_.window = parse_time_window(args.timeline_window);
  }
  if (!args.partition.empty()) {
    if (args.timeline_window.empty()) throw option_error("--partition", "needs --timeline-window FROM..TO: the window to draw");
    recorder_options_.partition = parse_partition(args.partition, scenario);
    recorder_options_.partition_name = args.partition;
  }
  open_file(timeline_, args.timeline_file, "--timeline");
  open_file(perfetto_, args.perfetto_file, "--perfetto");
  open_file(junit_, args.junit_file, "--junit");
}

RunOutputs::~RunOutputs() = default;

void RunOutputs::attach(Cluster& cluster) {
  if (timeline_.is_open() || perfetto_.is_open()) {
    recorder_ = std::make_unique<timeline::TimelineRecorder>(cluster, recorder_options_);
  }
}

void RunOutputs::write(const Cluster& cluster, const RunReport& report) {
  if (recorder_) {
    const timeline::Timeline t = recorder_->finish(cluster, report);
    if (timeline_.is_open()) timeline::write_timeline_html(t, timeline_);
    if (perfetto_.is_open()) timeline::write_perfetto(t, perfetto_);
  }
  if (junit_.is_open()) write_junit(junit_, {run_junit_suite(report, replay_command(args_, report))});
}

}  // namespace ksim::app
