#include "app/explore/explore.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <thread>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "app/commands/commands.hpp"
#include "app/explore/explore_summary.hpp"
#include "app/explore/run_outcome.hpp"
#include "app/explore/swarm_draw.hpp"
#include "app/harness/fault_paths.hpp"
#include "app/report/report_expectations.hpp"
#include "app/scenario/config_reader.hpp"
#include "app/scenario/scenario.hpp"
#include "app/sweep/sweep_plan.hpp"
#include "app/sweep/sweep_progress.hpp"
#include "app/sweep/sweep_workers.hpp"

namespace ksim::app {

namespace {

struct ExplorePlan {
  std::string scenario;
  Scenario base;  // with the user's --set applied
  std::uint64_t root_seed = 0;
  std::vector<SwarmDraw> draws;  // this shard's runs, by index
};

Scenario read_explored(const std::string& file, const std::vector<std::string>& overrides) {
  config::Document document = config::Document::load_file(file);
  for (const auto& o : overrides) document.apply_override(o);
  return read_scenario(document, expectation_catalogue());
}

ExplorePlan make_plan(const ExploreArgs& args) {
  ExplorePlan plan;
  plan.scenario = args.scenario.empty() ? default_scenario_path() : args.scenario;
  plan.base = read_explored(plan.scenario, args.overrides);
  plan.root_seed = args.seed.value_or(plan.base.seed);
  const sweep::Shard shard = args.shard.empty() ? sweep::Shard{} : sweep::parse_shard(args.shard);
  for (std::size_t i = 0; i < args.runs; ++i) {
    if (shard.holds(i)) plan.draws.push_back(draw_run(plan.base.explore, plan.base.duration, plan.root_seed, i));
  }
  return plan;
}

// A draw's scenario must read: an explore: section whose ranges make bad
// scenarios is the user's error, reported once with its file and line.
void check_draw(const ExplorePlan& plan, const ExploreArgs& args, const SwarmDraw& draw) {
  std::vector<std::string> overrides = args.overrides;
  overrides.insert(overrides.end(), draw.sets.begin(), draw.sets.end());
  read_explored(plan.scenario, overrides);
}

sweep::Job job_of(const ExplorePlan& plan, const ExploreArgs& args, std::size_t position) {
  const SwarmDraw& draw = plan.draws[position];
  sweep::Job job{position, {"run", plan.scenario, "--json", "--log-level", "error", "--seed", std::to_string(draw.seed),
                            "--max-events", std::to_string(args.max_events ? args.max_events : kDefaultRunMaxEvents)}};
  for (const auto& sets : {args.overrides, draw.sets}) {
    for (const auto& s : sets) {
      job.arguments.push_back("--set");
      job.arguments.push_back(s);
    }
  }
  return job;
}

// Runs the plan; stops once max_failures runs failed and every run before the
// last of them is done, so the findings are the first ones by index whatever -j.
ExploreSummary run_plan(const ExplorePlan& plan, const ExploreArgs& args, std::ostream& err) {
  std::vector<sweep::Job> jobs;
  for (std::size_t p = 0; p < plan.draws.size(); ++p) jobs.push_back(job_of(plan, args, p));
  std::map<std::size_t, RunOutcome> outcomes;  // by position in plan.draws
  sweep::Progress progress(err, jobs.size(), !args.quiet);
  const std::size_t parallel = args.jobs > 0 ? args.jobs : std::max(1u, std::thread::hardware_concurrency());
  const sweep::PoolOptions pool{args.worker_binary, parallel, [&] { progress.redraw(); }};
  std::size_t cutoff = plan.draws.size();  // positions below it count
  sweep::run_jobs(jobs, pool, [&](sweep::Finished&& f) {
    outcomes.emplace(f.id, classify(f));
    progress.set_done(outcomes.size());
    std::size_t failures = 0, position = 0;
    for (auto it = outcomes.begin(); it != outcomes.end() && it->first == position; ++it, ++position) {
      if (it->second.is_failure() && ++failures == args.max_failures) {
        cutoff = position + 1;
        return false;
      }
    }
    return true;
  });
  progress.finish();
  ExploreSummary summary(plan.scenario, args.overrides, plan.root_seed, args.runs, args.shard, plan.base.explore);
  for (const auto& [position, outcome] : outcomes) {
    if (position < cutoff) summary.add(plan.draws[position], outcome);
  }
  return summary;
}

int explore_run(const ExploreArgs& args, std::ostream& out, std::ostream& err) {
  if (!args.merge.empty()) {
    const ExploreSummary merged = ExploreSummary::merge(args.merge);
    merged.print(out);
    if (!args.junit.empty()) merged.write_junit(args.junit);
    return merged.findings() > 0 ? kExitExpectationFailed : kExitOk;
  }
  if (args.runs == 0 || args.max_failures == 0) {
    fmt::print(err, "ksim explore: --runs and --max-failures must be at least 1\n");
    return kExitUsage;
  }
  const ExplorePlan plan = make_plan(args);
  if (!plan.draws.empty()) check_draw(plan, args, plan.draws.front());
  const ExploreSummary summary = run_plan(plan, args, err);
  summary.print(out);
  if (!args.out.empty()) summary.write(args.out);
  if (!args.junit.empty()) summary.write_junit(args.junit);
  return summary.findings() > 0 ? kExitExpectationFailed : kExitOk;
}

}  // namespace

int explore_command(const ExploreArgs& args, std::ostream& out, std::ostream& err) {
  try {
    return explore_run(args, out, err);
  } catch (const config::ConfigError& e) {
    fmt::print(err, "ksim: {}\n", e.what());
  } catch (const std::exception& e) {
    fmt::print(err, "ksim explore: {}\n", e.what());
  }
  return kExitUsage;
}

}  // namespace ksim::app
