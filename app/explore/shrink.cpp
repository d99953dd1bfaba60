#include "app/explore/shrink.hpp"

#include <fstream>
#include <thread>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/commands/commands.hpp"
#include "app/explore/run_outcome.hpp"
#include "app/explore/shrink_candidate.hpp"
#include "app/report/report_expectations.hpp"
#include "app/scenario/config_reader.hpp"
#include "app/scenario/units.hpp"
#include "app/sweep/sweep_workers.hpp"

namespace ksim::app {

namespace {

class Shrinker {
 public:
  Shrinker(const ShrinkArgs& args, std::ostream& out) : args_(args), out_(out) {
    scenario_ = args.scenario.empty() ? default_scenario_path() : args.scenario;
    config::Document document = config::Document::load_file(scenario_);
    for (const auto& o : args.overrides) document.apply_override(o);
    base_ = read_scenario(document, expectation_catalogue());
    seed_ = args.seed.value_or(base_.seed);
  }

  const Scenario& base() const { return base_; }
  std::uint64_t seed() const { return seed_; }
  std::size_t runs() const { return runs_; }

  // Runs each candidate (its overrides, the user's it keeps among them), `jobs` at a time, in order.
  std::vector<RunOutcome> run(const std::vector<std::vector<std::string>>& candidates) {
    std::vector<sweep::Job> jobs;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      sweep::Job job{i, run_arguments(scenario_)};
      job.arguments.insert(job.arguments.end(), {"--seed", std::to_string(seed_)});
      for (const auto& s : candidates[i]) job.arguments.insert(job.arguments.end(), {"--set", s});
      jobs.push_back(std::move(job));
    }
    return run_jobs(std::move(jobs));
  }

  // The shrunk scenario as written, alone.
  RunOutcome run_file(const std::string& file) { return run_jobs({sweep::Job{0, run_arguments(file)}}).front(); }

 private:
  std::vector<std::string> run_arguments(const std::string& file) const {
    return {"run", file, "--json", "--log-level", "error", "--max-events",
            std::to_string(args_.max_events ? args_.max_events : kDefaultRunMaxEvents)};
  }

  std::vector<RunOutcome> run_jobs(std::vector<sweep::Job> jobs) {
    std::vector<RunOutcome> outcomes(jobs.size());
    const std::size_t parallel = args_.jobs > 0 ? args_.jobs : std::max(1u, std::thread::hardware_concurrency());
    sweep::run_jobs(jobs, {args_.worker_binary, parallel, {}}, [&](sweep::Finished&& f) {
      outcomes[f.id] = classify(f);
      return true;
    });
    runs_ += jobs.size();
    return outcomes;
  }

 public:
  // Greedy: the first candidate one step smaller that fails the same way, again and again.
  ShrinkCandidate minimise(ShrinkCandidate current, const std::string& check, RunOutcome& last) {
    for (std::size_t step = 1;; ++step) {
      std::vector<ShrinkCandidate> next = current.smaller();
      bool found = false;
      for (std::size_t first = 0; first < next.size() && !found && runs_ < args_.max_runs; first += batch()) {
        std::vector<std::vector<std::string>> sets;
        for (std::size_t i = first; i < std::min(next.size(), first + batch()); ++i) sets.push_back(next[i].overrides());
        const std::vector<RunOutcome> outcomes = run(sets);
        for (std::size_t i = 0; i < outcomes.size() && !found; ++i) {
          if (!outcomes[i].is_failure() || outcomes[i].check != check) continue;
          current = std::move(next[first + i]);
          last = outcomes[i];
          found = true;
          fmt::print(out_, "step {}: {}: still fails ({} faults, {} run, {} runs so far)\n", step, current.step,
                     current.faults.size(), units::format_duration(current.duration), runs_);
        }
      }
      if (!found) return current;
    }
  }

 private:
  std::size_t batch() const { return std::max<std::size_t>(args_.jobs, 1); }

  const ShrinkArgs& args_;
  std::ostream& out_;
  std::string scenario_;
  Scenario base_;
  std::uint64_t seed_ = 0;
  std::size_t runs_ = 0;
};

std::string shrunk_header(const ShrinkArgs& args, std::uint64_t seed, const RunOutcome& failed, const ShrinkCandidate& c,
                   std::size_t original_faults, SimTime original_duration, std::size_t runs) {
  std::string h = fmt::format("# Shrunk by `ksim shrink {} --seed {}", args.scenario, seed);
  for (const auto& o : args.overrides) h += fmt::format(" --set '{}'", o);
  h += fmt::format("` in {} runs:\n# {} faults and {} of run, from {} faults and {}.\n", runs, c.faults.size(),
                   units::format_duration(c.duration), original_faults, units::format_duration(original_duration));
  if (c.user_sets.size() < args.overrides.size()) {
    h += fmt::format("# Of its --set overrides it keeps {} of {}: the others are not needed for the failure.\n",
                     c.user_sets.size(), args.overrides.size());
  }
  h += fmt::format("# It fails {}: {}\n", failed.check, failed.detail);
  const nlohmann::json& r = failed.report;
  if (r.is_object() && r.contains("invariants")) {
    for (const auto& v : r["invariants"]) {
      h += fmt::format("# invariant {} broken at {}ns on partition {}, broker {}: {}\n", v.value("name", ""),
                       v.value("at_ns", std::int64_t{0}), v.value("partition", ""), v.value("broker", -1),
                       v.value("detail", ""));
      break;
    }
  }
  if (r.is_object() && r.contains("delivery") && r["delivery"].contains("examples")) {
    for (const auto& [kind, records] : r["delivery"]["examples"].items()) {
      if (!records.empty()) h += fmt::format("# {} records, for example: {}\n", kind, records.dump());
    }
  }
  return h + fmt::format("# Replay: ksim run {}\n", args.out);
}

void write_shrunk_scenario(const ShrinkArgs& args, std::uint64_t seed, const ShrinkCandidate& c, const std::string& header) {
  config::Document document = config::Document::load_file(args.scenario.empty() ? default_scenario_path() : args.scenario);
  for (const auto& o : c.overrides()) document.apply_override(o);  // the user's it kept, then its own
  document.apply_override("seed=" + std::to_string(seed));
  document.apply_override("explore={}");
  document.apply_override("description=" + nlohmann::json("shrunk by ksim shrink: see the comment above").dump());
  std::ofstream out(args.out);
  if (!out) throw std::runtime_error("cannot write " + args.out);
  out << header << document.to_yaml() << '\n';
}

int shrink_run(const ShrinkArgs& args, std::ostream& out, std::ostream& err) {
  if (args.out.empty()) {
    fmt::print(err, "ksim shrink: --out FILE is required\n");
    return kExitUsage;
  }
  Shrinker shrinker(args, out);
  RunOutcome original = shrinker.run({args.overrides}).front();
  if (original.kind == OutcomeKind::Invalid) {
    fmt::print(err, "ksim shrink: the run does not start: {}\n", original.detail);
    return kExitUsage;
  }
  if (!original.is_failure()) {
    fmt::print(out, "ksim shrink: the run passes (seed {}): nothing to shrink\n", shrinker.seed());
    return kExitExpectationFailed;
  }
  fmt::print(out, "the run fails {}: {}\n", original.check, original.detail);
  const nlohmann::json schedule = original.report.is_object() ? original.report.value("fault_schedule", nlohmann::json::array())
                                                               : nlohmann::json::array();
  ShrinkCandidate start = initial_candidate(shrinker.base(), schedule, args.overrides);
  RunOutcome last = shrinker.run({start.overrides()}).front();
  if (!last.is_failure() || last.check != original.check) {
    fmt::print(err, "ksim shrink: with its {} faults explicit the run no longer fails {} ({}): not shrunk\n",
               schedule.size(), original.check, to_string(last.kind));
    return kExitUsage;
  }
  fmt::print(out, "step 0: {} faults explicit: still fails\n", schedule.size());
  const ShrinkCandidate smallest = shrinker.minimise(start, original.check, last);
  write_shrunk_scenario(args, shrinker.seed(), smallest,
                 shrunk_header(args, shrinker.seed(), last, smallest, schedule.size(), shrinker.base().duration, shrinker.runs()));
  const RunOutcome replayed = shrinker.run_file(args.out);
  if (!replayed.is_failure() || replayed.check != original.check) {
    fmt::print(err, "ksim shrink: {} as written does not fail {} ({}): a bug of ksim shrink\n", args.out, original.check,
               to_string(replayed.kind));
    return kExitUsage;
  }
  fmt::print(out, "shrunk to {} faults and {} of run in {} runs: {} fails {}\n", smallest.faults.size(),
             units::format_duration(smallest.duration), shrinker.runs(), args.out, replayed.check);
  return kExitOk;
}

}  // namespace

int shrink_command(const ShrinkArgs& args, std::ostream& out, std::ostream& err) {
  try {
    return shrink_run(args, out, err);
  } catch (const config::ConfigError& e) {
    fmt::print(err, "ksim: {}\n", e.what());
  } catch (const std::exception& e) {
    fmt::print(err, "ksim shrink: {}\n", e.what());
  }
  return kExitUsage;
}

}  // namespace ksim::app
