#pragma once
// The produce benchmark: a Kafka cluster (3 brokers, RF 3) and one producer
// writing 1 KB records at a fixed rate, through the full models. It measures
// simulated records per wall-clock second and the process's peak memory.
// With consumers, a consumer group reads the topic too (auto-commit, no
// processing time).
#include <cstdint>
#include <string>

namespace ksim::bench {

struct ProduceBenchOptions {
  std::int32_t partitions = 100;
  double rate_per_s = 100000;
  std::int64_t duration_s = 60;
  std::uint64_t record_bytes = 1024;
  std::uint64_t seed = 1;
  int consumers = 0;  // members of one consumer group reading the topic
};

struct ProduceBenchResult {
  std::uint64_t records = 0;  // acknowledged
  std::uint64_t consumed = 0; // processed by the consumer group
  std::uint64_t events = 0;
  double wall_s = 0;
  double records_per_wall_s = 0;
  std::uint64_t peak_rss_bytes = 0;
  std::string verdict;
  std::uint64_t trace_hash = 0;
};

ProduceBenchResult run_produce_bench(const ProduceBenchOptions& options);

}  // namespace ksim::bench
