#pragma once
// The network benchmark: N client/server node pairs on different hosts doing
// request/response of fixed-size messages through the full network model
// (routes, FIFO links, jitter, in-order connections, node dispatch).
#include <cstdint>

namespace ksim::bench {

struct NetworkBenchOptions {
  std::uint32_t pairs = 100;
  std::uint64_t rounds = 50'000;  // requests per client
  std::uint64_t size_bytes = 1000;
  std::uint32_t hosts_per_rack = 16;
  bool jitter = true;             // lognormal(median 10us, sigma 0.5) on every message
  std::uint64_t seed = 1;
};

struct NetworkBenchResult {
  std::uint64_t messages = 0;   // delivered
  std::uint64_t events = 0;
  double wall_s = 0;
  double sim_time_s = 0;
  double messages_per_second = 0;  // simulated messages delivered per wall-clock second
  std::uint64_t trace_hash = 0;
};

NetworkBenchResult run_network_bench(const NetworkBenchOptions& options);

}  // namespace ksim::bench
