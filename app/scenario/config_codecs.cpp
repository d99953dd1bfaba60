// How each value type of the config reader is parsed and shown (Codec<T>);
// the quantities with units go through app/scenario/units.hpp.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include "app/scenario/config_reader.hpp"

namespace ksim::config {

namespace {

// ---- scalar parsing ----------------------------------------------------------

template <class T>
units::ParseResult<T> parse_integer(std::string_view text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    return units::ParseResult<T>::failure("must be between " + std::to_string(std::numeric_limits<T>::min()) +
                                          " and " + std::to_string(std::numeric_limits<T>::max()));
  }
  if (ec != std::errc{} || end != text.data() + text.size()) return units::ParseResult<T>::failure("");
  return units::ParseResult<T>::success(value);
}

std::string format_double(double value) {
  std::array<char, 64> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), end);
}

}  // namespace

// ---- codecs ------------------------------------------------------------------

units::ParseResult<bool> Codec<bool>::parse(std::string_view text) {
  static constexpr std::array<std::string_view, 3> kTrue{"true", "True", "TRUE"};
  static constexpr std::array<std::string_view, 3> kFalse{"false", "False", "FALSE"};
  if (std::ranges::find(kTrue, text) != kTrue.end()) return units::ParseResult<bool>::success(true);
  if (std::ranges::find(kFalse, text) != kFalse.end()) return units::ParseResult<bool>::success(false);
  return units::ParseResult<bool>::failure("");
}
std::string Codec<bool>::format(bool value) { return value ? "true" : "false"; }

units::ParseResult<int> Codec<int>::parse(std::string_view text) { return parse_integer<int>(text); }
std::string Codec<int>::format(int value) { return std::to_string(value); }

units::ParseResult<std::int64_t> Codec<std::int64_t>::parse(std::string_view text) {
  return parse_integer<std::int64_t>(text);
}
std::string Codec<std::int64_t>::format(std::int64_t value) { return std::to_string(value); }

units::ParseResult<std::uint64_t> Codec<std::uint64_t>::parse(std::string_view text) {
  if (!text.empty() && text.front() == '-') return units::ParseResult<std::uint64_t>::failure("must not be negative");
  return parse_integer<std::uint64_t>(text);
}
std::string Codec<std::uint64_t>::format(std::uint64_t value) { return std::to_string(value); }

units::ParseResult<double> Codec<double>::parse(std::string_view text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) {
    return units::ParseResult<double>::failure("");
  }
  return units::ParseResult<double>::success(value);
}
std::string Codec<double>::format(double value) { return format_double(value); }

units::ParseResult<std::string> Codec<std::string>::parse(std::string_view text) {
  return units::ParseResult<std::string>::success(std::string(text));
}
std::string Codec<std::string>::format(const std::string& value) { return value; }

units::ParseResult<SimTime> Codec<Duration>::parse(std::string_view text) { return units::parse_duration(text); }
std::string Codec<Duration>::format(SimTime value) { return units::format_duration(value); }

units::ParseResult<std::uint64_t> Codec<Bytes>::parse(std::string_view text) { return units::parse_bytes(text); }
std::string Codec<Bytes>::format(std::uint64_t value) { return units::format_bytes(value); }

units::ParseResult<double> Codec<Rate>::parse(std::string_view text) { return units::parse_rate(text); }
std::string Codec<Rate>::format(double value) { return units::format_rate(value); }

units::ParseResult<double> Codec<Bandwidth>::parse(std::string_view text) { return units::parse_bandwidth(text); }
std::string Codec<Bandwidth>::format(double value) { return units::format_bandwidth(value); }

units::ParseResult<double> Codec<Fraction>::parse(std::string_view text) { return units::parse_fraction(text); }
std::string Codec<Fraction>::format(double value) { return format_double(value); }

}  // namespace ksim::config
