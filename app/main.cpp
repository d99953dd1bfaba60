// ksim: a deterministic discrete-event simulator of Kafka clusters.
#include <iostream>

#include <CLI/CLI.hpp>

#include "app/commands/commands.hpp"
#include "app/explore/explore.hpp"
#include "app/explore/shrink.hpp"
#include "app/scenario/profile.hpp"
#include "app/sweep/sweep.hpp"
#include "bench/bench_commands.hpp"

namespace {

using ksim::app::RunArgs;

void add_scenario_options(CLI::App& command, RunArgs& args) {
  command.add_option("--set", args.overrides, "Override a scenario value: path.to.key=value (repeatable)")
      ->allow_extra_args(false);  // one value per --set, so a scenario file after it stays positional
  command.add_option("--seed", args.seed_text, "Root seed, 0 to 2^64-1 (overrides the scenario's seed)");
  command.add_flag("--ignore-unmodelled", args.ignore_unmodelled,
                   "Accept Kafka configs ksim does not model (a pasted properties file) and list them in the report");
}

}  // namespace

int main(int argc, char** argv) {
  // The profiles shipped with ksim, for scenarios outside its scenarios/ folder.
  ksim::app::add_profile_dir(std::string(KSIM_SOURCE_DIR) + "/scenarios/profiles");
  CLI::App app{"ksim: a deterministic discrete-event simulator of Apache Kafka clusters"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ksim 0.1.0");

  RunArgs run_args;
  CLI::App* run = app.add_subcommand("run", "Run a scenario and print its report");
  run->add_option("scenario", run_args.scenario, "Scenario file (default: scenarios/quickstart.yaml)");
  add_scenario_options(*run, run_args);
  run->add_option("--trace", run_args.trace_file, "Write the trace as JSON lines to FILE");
  run->add_flag("--json", run_args.json, "Print the report as one JSON object");
  run->add_option("--log-level", run_args.log_level, "trace, debug, info, warn (default), error or off");
  run->add_flag("--check-every-partition", run_args.check_every_partition,
                "Check the invariants on every partition after every event, not only on those it changed (slow)");
  run->add_option("--max-events", run_args.max_events, "Stop with exit status 3 past this many events (a run that does not finish)");
  run->add_option("--history", run_args.history_file,
                  "Write what the clients did and the final logs to FILE, as JSON lines (docs/history.md)");
  run->add_option("--sample-interval", run_args.sample_interval,
                  "The step of the report's time series (default 1s; the scenario's report.sample_interval)");
  run->add_option("--timeline", run_args.timeline_file,
                  "Write the run's timeline to FILE: one self-contained HTML page (docs/explore.md)");
  run->add_option("--timeline-window", run_args.timeline_window,
                  "FROM..TO (10s..12s): draw the messages between nodes of this window as a spacetime diagram");
  run->add_option("--partition", run_args.partition, "TOPIC-N (orders-3): only the messages of this partition in the window");
  run->add_option("--perfetto", run_args.perfetto_file,
                  "Write the timeline to FILE as Chrome trace events (open it in ui.perfetto.dev or chrome://tracing)");
  run->add_option("--junit", run_args.junit_file,
                  "Write JUnit XML to FILE: a test case per expectation of the scenario, and one for the invariants");

  RunArgs validate_args;
  CLI::App* validate = app.add_subcommand("validate", "Check a scenario file without running it");
  validate->add_option("scenario", validate_args.scenario, "Scenario file")->required();
  add_scenario_options(*validate, validate_args);
  validate->add_flag("--resolved", validate_args.resolved,
                     "Print the scenario with every default filled in, as one JSON object (docs/resolved-scenario.md)");

  ksim::app::CheckArgs check_args;
  CLI::App* check = app.add_subcommand("check", "Run ksim's checkers on a history (ksim run --history, or a real cluster's)");
  check->add_option("history", check_args.history, "History file (docs/history.md)")->required();
  check->add_option("--scenario", check_args.scenario, "The scenario it ran: its faults and expectations");
  check->add_option("--set", check_args.overrides, "Override a value of the --scenario: path.to.key=value (repeatable)")
      ->allow_extra_args(false);
  check->add_flag("--json", check_args.json, "Print the report as one JSON object");
  check->add_flag("--ignore-unmodelled", check_args.ignore_unmodelled, "Accept Kafka configs ksim does not model in the --scenario");

  bool versions_json = false;
  CLI::App* versions = app.add_subcommand("versions", "The Kafka releases ksim models, and what changes between them");
  versions->add_flag("--json", versions_json, "Print them as one JSON object");

  ksim::app::SweepArgs sweep_args;
  CLI::App* sweep = app.add_subcommand("sweep", "Run a scenario over lists of values and seeds; one CSV row per run");
  sweep->add_option("scenario", sweep_args.scenario, "Scenario file (default: scenarios/quickstart.yaml)");
  sweep->add_option("--set", sweep_args.sets, "KEY=v1,v2,...: the values a scenario key takes (repeatable)")
      ->allow_extra_args(false);
  sweep->add_option("--seeds", sweep_args.seeds, "Seeds: 1-5, 1,3,7 or 7 (default: the scenario's seed)");
  sweep->add_option("-j,--jobs", sweep_args.jobs, "Runs at once, each in a process of its own (0: one per CPU)");
  sweep->add_option("--out", sweep_args.out, "Write the CSV to FILE and a sidecar to FILE.json (default: stdout)");
  sweep->add_option("--shard", sweep_args.shard, "K/N: only the runs whose index % N == K-1");
  sweep->add_flag("--quiet", sweep_args.quiet, "No progress bar, even on a terminal");

  ksim::app::ExploreArgs explore_args;
  CLI::App* explore = app.add_subcommand("explore", "Swarm-test a scenario: random faults and configs per run; report failures");
  explore->add_option("scenario", explore_args.scenario, "Scenario file (default: scenarios/quickstart.yaml)");
  explore->add_option("--set", explore_args.overrides, "Override a scenario value in every run: path.to.key=value")
      ->allow_extra_args(false);
  explore->add_option("--runs", explore_args.runs, "Runs to draw")->check(CLI::Range(1ul, 100'000'000ul));
  explore->add_option("-j,--jobs", explore_args.jobs, "Runs at once, each in a process of its own (0: one per CPU)");
  explore->add_option("--seed", explore_args.seed, "Root seed (default: the scenario's seed)");
  explore->add_option("--max-failures", explore_args.max_failures, "Stop after this many failing runs (default 1)")
      ->check(CLI::Range(1ul, 100'000'000ul));
  explore->add_option("--max-events", explore_args.max_events, "A run past this many events has not finished (default 50 million)");
  explore->add_option("--shard", explore_args.shard, "K/N: only the runs whose index % N == K-1");
  explore->add_option("--out", explore_args.out, "Write the findings and coverage to FILE as JSON");
  explore->add_option("--junit", explore_args.junit, "Write the findings to FILE as JUnit XML, a failed test case per finding");
  explore->add_option("--merge", explore_args.merge, "Merge the --out files of an exploration's shards instead of running")
      ->expected(1, 1000);
  explore->add_flag("--quiet", explore_args.quiet, "No progress bar, even on a terminal");

  ksim::app::ShrinkArgs shrink_args;
  CLI::App* shrink = app.add_subcommand("shrink", "Minimise a failing run to a standalone scenario with explicit faults");
  shrink->add_option("scenario", shrink_args.scenario, "Scenario file (default: scenarios/quickstart.yaml)");
  shrink->add_option("--set", shrink_args.overrides, "Override a scenario value, as the failing run had it")
      ->allow_extra_args(false);
  shrink->add_option("--seed", shrink_args.seed, "The failing run's seed (default: the scenario's)");
  shrink->add_option("--out", shrink_args.out, "Write the shrunk scenario to FILE")->required();
  shrink->add_option("-j,--jobs", shrink_args.jobs, "Candidate runs at once (0: one per CPU)");
  shrink->add_option("--max-runs", shrink_args.max_runs, "Candidate runs at most (default 400)");
  shrink->add_option("--max-events", shrink_args.max_events, "A run past this many events has not finished (default 50 million)");

  ksim::app::MergeArgs merge_args;
  CLI::App* merge = app.add_subcommand("merge", "Join the CSVs of a sweep's shards into one");
  merge->add_option("out", merge_args.out, "The merged CSV")->required();
  merge->add_option("shards", merge_args.shards, "The shards' CSVs")->required();

  CLI::App* bench = app.add_subcommand("bench", "Measure the engine");
  bench->require_subcommand(1);
  ksim::bench::PholdOptions phold;
  bool phold_json = false;
  CLI::App* engine = bench->add_subcommand("engine", "PHOLD: events per second of the event queue");
  engine->add_option("--lps", phold.lps, "Logical processes")->check(CLI::Range(1u, 100'000'000u));
  engine->add_option("--population", phold.population, "Initial events per LP")->check(CLI::Range(1u, 1'000'000u));
  engine->add_option("--events", phold.events, "Events to run");
  engine->add_option("--seed", phold.seed, "Seed");
  engine->add_flag("--json", phold_json, "Print JSON");

  ksim::bench::NetworkBenchOptions network;
  bool network_json = false;
  bool no_jitter = false;
  CLI::App* net = bench->add_subcommand("network", "Request/response through the full network model");
  net->add_option("--pairs", network.pairs, "Client/server pairs")->check(CLI::Range(1u, 1'000'000u));
  net->add_option("--rounds", network.rounds, "Requests per client")->check(CLI::Range(1ul, 1'000'000'000ul));
  net->add_option("--size", network.size_bytes, "Message size in bytes")->check(CLI::Range(1ul, 1ul << 30));
  net->add_option("--seed", network.seed, "Seed");
  net->add_flag("--no-jitter", no_jitter, "Turn off the per-message jitter draw");
  net->add_flag("--json", network_json, "Print JSON");

  ksim::bench::ProduceBenchOptions produce;
  bool produce_json = false;
  CLI::App* produce_bench = bench->add_subcommand("produce", "A Kafka cluster under a producer: records per wall second");
  produce_bench->add_option("--partitions", produce.partitions, "Partitions of the topic")->check(CLI::Range(1, 1000000));
  produce_bench->add_option("--rate", produce.rate_per_s, "Records per simulated second")->check(CLI::Range(1.0, 1e9));
  produce_bench->add_option("--duration", produce.duration_s, "Simulated seconds")->check(CLI::Range(1, 86400));
  produce_bench->add_option("--record-size", produce.record_bytes, "Bytes per record")->check(CLI::Range(1ul, 1ul << 24));
  produce_bench->add_option("--seed", produce.seed, "Seed");
  produce_bench->add_option("--consumers", produce.consumers, "Members of a consumer group reading the topic")
      ->check(CLI::Range(0, 1000));
  produce_bench->add_flag("--json", produce_json, "Print JSON");

  ksim::bench::SoakBenchOptions soak;
  bool soak_json = false;
  CLI::App* soak_bench = bench->add_subcommand("soak", "A production-like cluster for a long run with retention: speed and memory over time");
  soak_bench->add_option("--duration", soak.duration_s, "Simulated seconds")->check(CLI::Range(1, 864000));
  soak_bench->add_option("--partitions", soak.partitions, "Partitions of the topic")->check(CLI::Range(1, 10000000));
  soak_bench->add_option("--brokers", soak.brokers, "Brokers (at least 3: RF 3)")->check(CLI::Range(3, 10000));
  soak_bench->add_option("--producers", soak.producers, "Producers")->check(CLI::Range(1, 10000));
  soak_bench->add_option("--rate", soak.rate_per_s, "Records per simulated second, per producer")->check(CLI::Range(1.0, 1e9));
  soak_bench->add_option("--record-size", soak.record_bytes, "Bytes per record")->check(CLI::Range(1ul, 1ul << 24));
  soak_bench->add_option("--keys", soak.keys, "Distinct keys, drawn uniformly")->check(CLI::Range(1, 1000000000));
  soak_bench->add_option("--retention", soak.retention_s, "retention.ms of the topic, in seconds")->check(CLI::Range(1, 864000));
  soak_bench->add_option("--group-a", soak.group_a, "Members of the first consumer group (0: none)")->check(CLI::Range(0, 10000));
  soak_bench->add_option("--group-b", soak.group_b, "Members of the second consumer group (0: none)")->check(CLI::Range(0, 10000));
  soak_bench->add_option("--sample-every", soak.sample_every_s, "Simulated seconds between memory samples")->check(CLI::Range(1, 864000));
  soak_bench->add_option("--seed", soak.seed, "Seed");
  soak_bench->add_flag("--json", soak_json, "Print JSON");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    return status == 0 ? 0 : ksim::app::kExitUsage;
  }

  if (*run) return ksim::app::run_command(run_args, std::cout, std::cerr);
  if (*validate) return ksim::app::validate_command(validate_args, std::cout, std::cerr);
  if (*check) return ksim::app::check_command(check_args, std::cout, std::cerr);
  if (*versions) return ksim::app::versions_command(versions_json, std::cout);
  if (*sweep) return ksim::app::sweep_command(sweep_args, std::cout, std::cerr);
  if (*explore) return ksim::app::explore_command(explore_args, std::cout, std::cerr);
  if (*shrink) return ksim::app::shrink_command(shrink_args, std::cout, std::cerr);
  if (*merge) return ksim::app::merge_command(merge_args, std::cerr);
  if (*engine) return ksim::bench::bench_engine_command(phold, phold_json, std::cout);
  if (*produce_bench) return ksim::bench::bench_produce_command(produce, produce_json, std::cout);
  if (*soak_bench) return ksim::bench::bench_soak_command(soak, soak_json, std::cout);
  if (*net) {
    network.jitter = !no_jitter;
    return ksim::bench::bench_network_command(network, network_json, std::cout);
  }
  return ksim::app::kExitUsage;
}
