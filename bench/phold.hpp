#pragma once
// PHOLD, the standard synthetic benchmark for discrete-event engines: each
// logical process (LP) starts with `population` events; each event, when it
// runs, schedules one new event at an exponential delay to an LP drawn
// uniformly at random. It measures the event queue and nothing else.
#include <cstdint>

namespace ksim::bench {

struct PholdOptions {
  std::uint32_t lps = 1000;
  std::uint32_t population = 1;  // initial events per LP
  std::uint64_t events = 20'000'000;
  std::uint64_t seed = 1;
  double mean_delay_ns = 1000;
};

struct PholdResult {
  std::uint64_t events = 0;
  double wall_s = 0;
  double events_per_second = 0;
  std::uint64_t checksum = 0;  // sum over LPs of events handled x LP index: same seed, same value
};

PholdResult run_phold(const PholdOptions& options);

}  // namespace ksim::bench
