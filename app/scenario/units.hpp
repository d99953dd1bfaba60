#pragma once
// Text <-> quantity conversions for scenario files and reports.
//
// Parsing is strict and unit-explicit: a duration needs a unit ("250ms"), a
// size distinguishes decimal and binary prefixes ("16KB" = 16000, "16KiB" =
// 16384), a bandwidth distinguishes bits ("10Gbps") from bytes ("100MB/s").
// Failures carry a short reason ("missing unit", "unknown unit 'sec' ...")
// that the config reader places after "expected ..., got '...'".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "sim/events/time.hpp"

namespace ksim::units {

// Either a parsed value or the reason it could not be parsed.
template <class T>
class ParseResult {
 public:
  static ParseResult success(T value) {
    ParseResult result;
    result.value_ = std::move(value);
    return result;
  }
  static ParseResult failure(std::string reason) {
    ParseResult result;
    result.error_ = std::move(reason);
    return result;
  }

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const T& value() const { return *value_; }
  const std::string& error() const { return error_; }

 private:
  ParseResult() = default;
  std::optional<T> value_;
  std::string error_;
};

// "250ms", "1.5s", "20us", "100ns", "2m" (minutes), "1h"; a bare "0" is
// allowed, and, when `bare_unit` is not 0, any bare number, in that unit.
// Rounded to the nearest nanosecond; negative values and values beyond the
// SimTime range are rejected.
ParseResult<SimTime> parse_duration(std::string_view text, SimTime bare_unit = 0);

// The unit of a bare number under a Kafka config name: "linger.ms" 1ms,
// ".us", ".ns", ".seconds", ".minutes", ".hours" (log.retention.hours); 0
// for any other name. Kafka's properties files write durations so.
SimTime bare_duration_unit(std::string_view key);

// "512B", "16KB" (16000), "16KiB" (16384), MB/MiB, GB/GiB, TB/TiB; a bare
// whole number is bytes.
ParseResult<std::uint64_t> parse_bytes(std::string_view text);

// Events per second: "10000/s", "50/ms", "10k/s", "1.5M/m"; time units
// ns, us, ms, s, m, h; multipliers k and M.
ParseResult<double> parse_rate(std::string_view text);

// Bytes per second: bit forms "1Gbps", "500Kbps", "1bps" (decimal prefixes
// K, M, G, T) or byte forms "100MB/s", "1GiB/s" (any size unit + "/s").
ParseResult<double> parse_bandwidth(std::string_view text);

// A plain number ("0.25", "1e-3") or a percentage ("50%" -> 0.5).
// No range is implied: callers check [0, 1] where that matters.
ParseResult<double> parse_fraction(std::string_view text);

// Human-readable forms for reports and docs. Each output parses back with the
// matching parse_* function (up to the rounding of at most 3 decimals).
std::string format_duration(SimTime duration);       // "250ms", "1.5s", "20us"
std::string format_exact_duration(SimTime duration);  // in the largest unit that divides it: "1500ms", "7ns"
std::string format_bytes(std::uint64_t bytes);       // "16KiB", "16KB", "1.5MiB"
std::string format_bandwidth(double bytes_per_second);  // "10Gbps", "800Mbps"
std::string format_rate(double per_second);          // "10k/s", "0.5/s", "2/h"

}  // namespace ksim::units
