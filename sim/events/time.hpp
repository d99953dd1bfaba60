#pragma once
// Simulated time: integer nanoseconds since the start of the run. Never a wall clock.
#include <cstdint>

namespace ksim {

using SimTime = std::int64_t;

constexpr SimTime kNever = INT64_MAX;

constexpr SimTime nanoseconds(std::int64_t n) { return n; }
constexpr SimTime microseconds(std::int64_t n) { return n * 1'000; }
constexpr SimTime milliseconds(std::int64_t n) { return n * 1'000'000; }
constexpr SimTime seconds(std::int64_t n) { return n * 1'000'000'000; }
constexpr SimTime minutes(std::int64_t n) { return seconds(n * 60); }

constexpr double to_seconds(SimTime t) { return static_cast<double>(t) / 1e9; }
constexpr double to_milliseconds(SimTime t) { return static_cast<double>(t) / 1e6; }
constexpr double to_microseconds(SimTime t) { return static_cast<double>(t) / 1e3; }

// t + d for d >= 0, kNever when that would pass it (a time plus a timeout that may be kNever).
constexpr SimTime saturating_add(SimTime t, SimTime d) { return d >= kNever - t ? kNever : t + d; }

// Rounds a duration given in (fractional) seconds to the nearest nanosecond.
constexpr SimTime from_seconds(double s) {
  const double ns = s * 1e9;
  return static_cast<SimTime>(ns >= 0 ? ns + 0.5 : ns - 0.5);
}

}  // namespace ksim
