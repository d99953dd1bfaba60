#pragma once
// The benchmarks' view of the process's memory (Linux): peak and current
// resident set size. Read by benchmarks only; never reaches a simulation.
#include <cstdint>

namespace ksim::bench {

std::uint64_t peak_rss_bytes();     // getrusage's ru_maxrss
std::uint64_t current_rss_bytes();  // /proc/self/statm's resident pages (0 where unreadable)

}  // namespace ksim::bench
