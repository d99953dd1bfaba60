#include "app/sweep/sweep.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/commands/commands.hpp"
#include "app/report/report_expectations.hpp"
#include "app/scenario/scenario.hpp"
#include "app/sweep/sweep_columns.hpp"
#include "app/sweep/sweep_files.hpp"
#include "app/sweep/sweep_order.hpp"
#include "app/sweep/sweep_plan.hpp"
#include "app/sweep/sweep_progress.hpp"
#include "app/sweep/sweep_sidecar.hpp"
#include "app/sweep/sweep_workers.hpp"
#include "app/scenario/config_reader.hpp"

namespace ksim::app {

namespace {

using namespace sweep;

// More runs than this is a typo in a list, not a study.
constexpr std::size_t kMaxRuns = 100'000'000;

class NullBuffer : public std::streambuf {
  int overflow(int c) override { return c; }
};

std::string describe(const RunSpec& run, const std::vector<Parameter>& parameters) {
  std::string text = fmt::format("run {} (--seed {}", run.index, run.seed);
  for (const auto& o : run.overrides(parameters)) text += " --set " + o;
  return text + ")";
}

std::size_t total_runs_checked(const Plan& plan) {
  std::size_t total = plan.seeds.size();
  for (const auto& p : plan.parameters) {
    if (total > kMaxRuns / p.values.size()) throw SweepError(fmt::format("more than {} runs", kMaxRuns));
    total *= p.values.size();
  }
  return total;
}

// The first value of every list, then each other value of each list in turn
// with the first values of the rest: every value is checked once, before any
// run starts, so a bad key or value is reported once and clearly.
std::vector<std::vector<std::string>> combinations_to_validate(const Plan& plan) {
  std::vector<std::string> first;
  for (const auto& p : plan.parameters) first.push_back(p.key + "=" + p.values.front());
  std::vector<std::vector<std::string>> result{first};
  for (std::size_t i = 0; i < plan.parameters.size(); ++i) {
    const auto& p = plan.parameters[i];
    for (std::size_t v = 1; v < p.values.size(); ++v) {
      result.push_back(first);
      result.back()[i] = p.key + "=" + p.values[v];
    }
  }
  return result;
}

// `ksim validate` on each combination; its message names file, line and column.
int validate(const std::string& scenario, const Plan& plan, std::ostream& err) {
  NullBuffer null_buffer;
  std::ostream null(&null_buffer);
  for (auto& overrides : combinations_to_validate(plan)) {
    RunArgs args;
    args.scenario = scenario;
    if (!plan.seeds.empty()) args.seed = plan.seeds.front();
    args.overrides = std::move(overrides);
    if (const int status = validate_command(args, null, err); status != kExitOk) return status;
  }
  return kExitOk;
}

// The seed the scenario file gives, for a sweep without --seeds. Called after validate().
std::uint64_t scenario_seed(const std::string& scenario, const Plan& plan) {
  config::Document document = config::Document::load_file(scenario);
  for (const auto& p : plan.parameters) document.apply_override(p.key + "=" + p.values.front());
  return read_scenario(document, expectation_catalogue()).seed;
}

// The jobs in the order to start them (longest expected first); a job's id is its place in `runs`.
std::vector<Job> make_jobs(const std::string& scenario, const Plan& plan, const std::vector<RunSpec>& runs) {
  std::vector<Job> jobs;
  for (const std::size_t i : dispatch_order(scenario, plan, runs)) {
    Job job{i, {"run", scenario, "--json", "--seed", std::to_string(runs[i].seed)}};
    for (const auto& o : runs[i].overrides(plan.parameters)) {
      job.arguments.push_back("--set");
      job.arguments.push_back(o);
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

// A run's report, or SweepError saying how the run failed. Exit status 1
// (expectations failed) is a result like any other: the row records it.
nlohmann::json report_of(const Finished& f, const std::string& run) {
  if (f.exit_status == kExitUsage) throw SweepError(fmt::format("{} failed with a scenario error:\n{}", run, f.err));
  if (f.signal != 0) {
    throw SweepError(fmt::format("{} was killed by signal {} ({}):\n{}", run, f.signal, strsignal(f.signal), f.err));
  }
  if (f.exit_status != kExitOk && f.exit_status != kExitExpectationFailed) {
    throw SweepError(fmt::format("{} exited with status {}:\n{}", run, f.exit_status, f.err));
  }
  try {
    return nlohmann::json::parse(f.out);
  } catch (const nlohmann::json::exception& e) {
    throw SweepError(fmt::format("{}: its output is not a JSON report ({})", run, e.what()));
  }
}

double number_or_zero(const nlohmann::json& report, const char* key) {
  const auto it = report.find(key);
  return it != report.end() && it->is_number() ? it->get<double>() : 0.0;
}

// Writes the rows in run order whatever order the runs finish in: a row waits
// until every run before it in this shard has been written.
class RowWriter {
 public:
  RowWriter(std::ostream& out, const Plan& plan, const std::vector<RunSpec>& runs)
      : out_(out), plan_(plan), runs_(runs) {}

  void add(const Finished& f) {
    const RunSpec& run = runs_[f.id];
    const nlohmann::json report = report_of(f, describe(run, plan_.parameters));
    waiting_.emplace(f.id, row(run, report));
    timings_.push_back({run.index, number_or_zero(report, "wall_s"), number_or_zero(report, "events_per_wall_s"),
                        f.process_wall_s});
    for (auto it = waiting_.begin(); it != waiting_.end() && it->first == written_; it = waiting_.erase(it)) {
      csv::write_row(out_, it->second);
      ++written_;
    }
    out_.flush();
  }

  std::size_t done() const { return timings_.size(); }

  std::vector<RunTiming> timings() const {
    auto sorted = timings_;
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.run < b.run; });
    return sorted;
  }

 private:
  std::ostream& out_;
  const Plan& plan_;
  const std::vector<RunSpec>& runs_;
  std::map<std::size_t, csv::Row> waiting_;
  std::size_t written_ = 0;
  std::vector<RunTiming> timings_;
};

struct Request {
  std::string scenario;
  Plan plan;
  std::optional<Shard> shard;
  std::size_t jobs = 1;
};

Request parse_request(const SweepArgs& args) {
  Request r;
  r.scenario = args.scenario.empty() ? default_scenario_path() : args.scenario;
  r.plan.parameters = parse_parameters(args.sets);
  if (!args.seeds.empty()) r.plan.seeds = parse_seeds(args.seeds);
  if (!args.shard.empty()) r.shard = parse_shard(args.shard);
  r.jobs = args.jobs > 0 ? args.jobs : std::max(1u, std::thread::hardware_concurrency());
  return r;
}

int run_sweep(const SweepArgs& args, std::ostream& out, std::ostream& err) {
  Request request = parse_request(args);
  Plan& plan = request.plan;
  if (const int status = validate(request.scenario, plan, err); status != kExitOk) return status;
  if (plan.seeds.empty()) plan.seeds = {scenario_seed(request.scenario, plan)};
  const std::size_t total = total_runs_checked(plan);
  const std::vector<RunSpec> runs = plan.runs(request.shard.value_or(Shard{}));

  std::optional<AtomicFile> file;
  if (!args.out.empty()) file.emplace(args.out);
  std::ostream& csv_out = file ? file->stream() : out;
  const csv::Row columns = header(plan.parameters);
  csv::write_row(csv_out, columns);

  Progress progress(err, runs.size(), !args.quiet);
  RowWriter writer(csv_out, plan, runs);
  const PoolOptions pool{args.worker_binary, request.jobs, [&] { progress.redraw(); }};
  run_jobs(make_jobs(request.scenario, plan, runs), pool, [&](Finished&& f) {
    writer.add(f);
    progress.set_done(writer.done());
    return true;
  });
  progress.finish();
  if (!file) return kExitOk;

  file->commit();
  write_sidecar(args.out, Sidecar{.scenario = request.scenario,
                                  .parameters = plan.parameters,
                                  .seeds = plan.seeds,
                                  .shard = request.shard,
                                  .total_runs = total,
                                  .runs_in_file = runs.size(),
                                  .columns = columns,
                                  .jobs = request.jobs,
                                  .wall_s = progress.elapsed_s(),
                                  .runs = writer.timings(),
                                  .merged_from = {}});
  if (progress.enabled()) fmt::print(err, "ksim sweep: {} runs in {:.1f}s: {}\n", runs.size(), progress.elapsed_s(), args.out);
  return kExitOk;
}

}  // namespace

int sweep_command(const SweepArgs& args, std::ostream& out, std::ostream& err) {
  try {
    return run_sweep(args, out, err);
  } catch (const SweepError& e) {
    fmt::print(err, "ksim sweep: {}\n", e.what());
  } catch (const config::ConfigError& e) {
    fmt::print(err, "ksim: {}\n", e.what());
  }
  return kExitUsage;
}

}  // namespace ksim::app
