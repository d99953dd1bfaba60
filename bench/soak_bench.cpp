#include "bench/soak_bench.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "app/harness/cluster.hpp"
#include "app/report/report.hpp"
#include "app/scenario/config_reader.hpp"
#include "bench/process_memory.hpp"

namespace ksim::bench {

namespace {

std::string group_text(const char* name, std::int32_t members) {
  if (members == 0) return "";
  return fmt::format("  - {{name: {}, count: {}, topic: soak, config: {{auto.offset.reset: earliest}}}}\n", name, members);
}

}  // namespace

// Segments roll every minute (segment.ms) and brokers check retention every
// 30 s, so a record lives at most retention.ms plus about a minute and a half.
std::string soak_scenario_text(const SoakBenchOptions& o) {
  std::string consumers = group_text("analytics", o.group_a) + group_text("audit", o.group_b);
  if (!consumers.empty()) consumers = "consumers:\n" + consumers;
  return fmt::format(R"(name: soak-bench
seed: {}
duration: {}s
drain: 1s
network:
  racks: [r1, r2, r3]
brokers:
  count: {}
  config:
    log.retention.check.interval.ms: 30s
topics:
  - name: soak
    partitions: {}
    replication_factor: 3
    config:
      min.insync.replicas: 2
      retention.ms: {}s
      segment.ms: 60s
producers:
  - name: app
    count: {}
    topic: soak
    rate: {}/s
    record_size: {}
    keys: {{distribution: uniform, count: {}}}
{})",
                     o.seed, o.duration_s, o.brokers, o.partitions, o.retention_s, o.producers, o.rate_per_s,
                     o.record_bytes, o.keys, consumers);
}

SoakBenchResult run_soak_bench(const SoakBenchOptions& options) {
  const config::Document document = config::Document::from_string(soak_scenario_text(options), "soak-bench");
  const app::Scenario scenario = app::read_scenario(document, app::expectation_catalogue());
  SoakBenchResult r;
  // Wall-clock time and memory measure the benchmark only; they never reach the simulation.
  const auto start = std::chrono::steady_clock::now();
  const auto wall_since_start = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  app::Cluster cluster(scenario, app::RunOptions{});
  const SimTime every = seconds(options.sample_every_s);
  SimTime next_sample = every;
  cluster.on_step([&] {
    if (cluster.now() < next_sample) return;
    next_sample += every;
    r.samples.push_back({to_seconds(cluster.now()), wall_since_start(), current_rss_bytes()});
  });
  cluster.run();
  r.run_wall_s = wall_since_start();
  const app::RunReport report = app::make_report(cluster, r.run_wall_s);
  r.wall_s = wall_since_start();
  r.sim_s = to_seconds(cluster.now());
  r.records = report.kafka->delivery.acknowledged;
  r.expired = report.kafka->delivery.expired;
  for (const auto& g : report.kafka->groups) r.consumed += g.report.processed;
  r.events = report.events;
  // ru_maxrss follows the kernel's high-water mark, which lags the resident
  // size /proc reports: the peak is at least every sample taken.
  r.peak_rss_bytes = peak_rss_bytes();
  for (const SoakSample& s : r.samples) r.peak_rss_bytes = std::max(r.peak_rss_bytes, s.rss_bytes);
  r.verdict = report.kafka->delivery.verdict();
  r.trace_hash = report.trace_hash;
  return r;
}

}  // namespace ksim::bench
