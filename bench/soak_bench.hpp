#pragma once
// The soak benchmark (issue 19): a production-like cluster run for a long
// simulated time with retention on, to show that memory follows what the
// cluster retains rather than simulated time. By default: 6 brokers in 3
// racks, one topic of 2,000 partitions (RF 3, min ISR 2, retention.ms 10
// minutes), ten producers offering 10,000 records/s each of 1 KB with
// uniform keys, two consumer groups of 6 and 3 members, no faults, no
// hardware profile. It samples the process's resident memory every
// `sample_every_s` simulated seconds.
#include <cstdint>
#include <string>
#include <vector>

namespace ksim::bench {

struct SoakBenchOptions {
  std::int64_t duration_s = 3600;
  std::int32_t partitions = 2000;
  std::int32_t brokers = 6;
  std::int32_t producers = 10;
  double rate_per_s = 10000;  // per producer
  std::uint64_t record_bytes = 1024;
  std::int32_t keys = 1000;  // distinct keys, drawn uniformly (the scenario default)
  std::int64_t retention_s = 600;
  std::int32_t group_a = 6;  // members of the first consumer group (0: none)
  std::int32_t group_b = 3;  // members of the second (0: none)
  std::int64_t sample_every_s = 60;
  std::uint64_t seed = 1;
};

struct SoakSample {
  double sim_s = 0;
  double wall_s = 0;
  std::uint64_t rss_bytes = 0;
};

struct SoakBenchResult {
  double sim_s = 0;
  double wall_s = 0;          // the simulation, the checks and report included
  double run_wall_s = 0;      // the simulation alone
  std::uint64_t events = 0;
  std::uint64_t records = 0;  // acknowledged
  std::uint64_t consumed = 0; // processed by the consumer groups
  std::uint64_t expired = 0;  // deleted by retention
  std::uint64_t peak_rss_bytes = 0;
  std::vector<SoakSample> samples;
  std::string verdict;
  std::uint64_t trace_hash = 0;
};

std::string soak_scenario_text(const SoakBenchOptions& options);
SoakBenchResult run_soak_bench(const SoakBenchOptions& options);

}  // namespace ksim::bench
