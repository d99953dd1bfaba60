#pragma once
// An invariant of a run found broken: which one, when, in which run, where.
// The invariants are checked after every event (docs/engine.md): one leader
// per leader epoch, a high watermark that never goes back within an epoch
// and never above the log end of a running ISR member.
#include <chrono>
#include <cstdint>
#include <string>

namespace ksim {

struct InvariantViolation {
  std::string name;               // "high_watermark_within_isr"
  std::chrono::nanoseconds at{};  // simulated time of the event that broke it
  std::uint64_t seed = 0;
  std::string partition;          // "topic-partition", by topic index: "0-3"; "" for the controller quorum's
  int broker = -1;                // whose state breaks it
  std::string detail;             // what was seen
};

}  // namespace ksim
