#include "bench/produce_bench.hpp"

#include <chrono>

#include <fmt/format.h>

#include "app/harness/cluster.hpp"
#include "app/report/report.hpp"
#include "app/scenario/config_reader.hpp"
#include "bench/process_memory.hpp"

namespace ksim::bench {

namespace {

std::string scenario_text(const ProduceBenchOptions& o) {
  const std::string consumers =
      o.consumers == 0 ? "" : fmt::format("consumers:\n  - {{name: reader, count: {}, topic: bench, config: {{auto.offset.reset: earliest}}}}\n", o.consumers);
  return fmt::format(R"(name: produce-bench
seed: {}
duration: {}s
drain: 1s
network:
  racks: [r1, r2, r3]
  jitter: 0
brokers:
  count: 3
topics:
  - {{name: bench, partitions: {}, replication_factor: 3}}
producers:
  - name: perf
    topic: bench
    rate: {}/s
    arrival: constant
    record_size: {}
{})",
                     o.seed, o.duration_s, o.partitions, o.rate_per_s, o.record_bytes, consumers);
}

}  // namespace

ProduceBenchResult run_produce_bench(const ProduceBenchOptions& options) {
  const config::Document document = config::Document::from_string(scenario_text(options), "produce-bench");
  const app::Scenario scenario = app::read_scenario(document, app::expectation_catalogue());
  app::Cluster cluster(scenario, app::RunOptions{});
  // Wall-clock time measures the benchmark only; it never reaches the simulation.
  const auto start = std::chrono::steady_clock::now();
  cluster.run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const app::RunReport report = app::make_report(cluster, wall);
  ProduceBenchResult r;
  r.records = report.kafka->delivery.acknowledged;
  for (const auto& g : report.kafka->groups) r.consumed += g.report.processed;
  r.events = report.events;
  r.wall_s = wall;
  r.records_per_wall_s = wall > 0 ? static_cast<double>(r.records) / wall : 0;
  r.peak_rss_bytes = peak_rss_bytes();
  r.verdict = report.kafka->delivery.verdict();
  r.trace_hash = report.trace_hash;
  return r;
}

}  // namespace ksim::bench
