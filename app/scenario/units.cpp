#include "app/scenario/units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <span>

namespace ksim::units {
namespace {

struct Unit {
  std::string_view name;
  std::uint64_t factor;
};

constexpr std::uint64_t kKilo = 1'000;
constexpr std::uint64_t kKibi = 1'024;

// Factors in nanoseconds.
constexpr std::array kTimeUnits{
    Unit{"ns", 1},
    Unit{"us", 1'000},
    Unit{"ms", 1'000'000},
    Unit{"s", 1'000'000'000},
    Unit{"m", 60'000'000'000},
    Unit{"h", 3'600'000'000'000},
};

// Factors in bytes, largest first within each magnitude (format_bytes relies
// on this order).
constexpr std::array kSizeUnits{
    Unit{"TiB", kKibi * kKibi * kKibi * kKibi}, Unit{"TB", kKilo * kKilo * kKilo * kKilo},
    Unit{"GiB", kKibi * kKibi * kKibi},         Unit{"GB", kKilo * kKilo * kKilo},
    Unit{"MiB", kKibi * kKibi},                 Unit{"MB", kKilo * kKilo},
    Unit{"KiB", kKibi},                         Unit{"KB", kKilo},
    Unit{"kB", kKilo},                          Unit{"B", 1},
};

// Decimal prefixes of "bps", in bits.
constexpr std::array kBitPrefixes{
    Unit{"", 1},           Unit{"K", kKilo},          Unit{"k", kKilo},
    Unit{"M", kKilo * kKilo}, Unit{"G", kKilo * kKilo * kKilo},
    Unit{"T", kKilo * kKilo * kKilo * kKilo},
};

// Count multipliers of a rate ("10k/s").
constexpr std::array kCountPrefixes{
    Unit{"", 1}, Unit{"k", kKilo}, Unit{"K", kKilo}, Unit{"M", kKilo * kKilo},
};

constexpr std::string_view kTimeUnitList = "ns, us, ms, s, m or h";
constexpr std::string_view kSizeUnitList = "B, KB, KiB, MB, MiB, GB, GiB, TB or TiB";

// A non-negative decimal number followed by a (possibly empty) unit suffix.
struct Quantity {
  std::string_view number;    // "1.5"
  std::string_view whole;     // "1"
  std::string_view fraction;  // "5" (may be empty)
  std::string_view suffix;    // "KiB" (may be empty)
};

bool is_space(char c) { return c == ' ' || c == '\t'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::size_t count_digits(std::string_view text, std::size_t from) {
  std::size_t end = from;
  while (end < text.size() && is_digit(text[end])) ++end;
  return end - from;
}

ParseResult<Quantity> split_quantity(std::string_view raw) {
  const std::string_view text = trim(raw);
  if (text.empty()) return ParseResult<Quantity>::failure("empty value");
  if (text.front() == '-') return ParseResult<Quantity>::failure("must not be negative");
  Quantity q;
  const std::size_t whole_len = count_digits(text, 0);
  if (whole_len == 0) return ParseResult<Quantity>::failure("not a number");
  q.whole = text.substr(0, whole_len);
  std::size_t end = whole_len;
  if (end < text.size() && text[end] == '.') {
    const std::size_t fraction_len = count_digits(text, end + 1);
    if (fraction_len == 0) return ParseResult<Quantity>::failure("not a number");
    q.fraction = text.substr(end + 1, fraction_len);
    end += 1 + fraction_len;
  }
  q.number = text.substr(0, end);
  q.suffix = trim(text.substr(end));
  return ParseResult<Quantity>::success(q);
}

bool is_zero(const Quantity& q) {
  return q.number.find_first_not_of("0.") == std::string_view::npos;
}

const Unit* find_unit(std::span<const Unit> units, std::string_view name) {
  for (const Unit& unit : units) {
    if (unit.name == name) return &unit;
  }
  return nullptr;
}

std::optional<double> to_double(std::string_view number) {
  double value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc{} || end != number.data() + number.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

// whole.fraction * factor, rounded to the nearest integer; nullopt on overflow.
std::optional<std::uint64_t> scale_exactly(const Quantity& q, std::uint64_t factor) {
  std::uint64_t whole = 0;
  const auto [end, ec] = std::from_chars(q.whole.data(), q.whole.data() + q.whole.size(), whole);
  if (ec != std::errc{}) return std::nullopt;
  std::uint64_t scaled = 0;
  if (__builtin_mul_overflow(whole, factor, &scaled)) return std::nullopt;
  if (q.fraction.empty()) return scaled;
  const double fraction = *to_double("0." + std::string(q.fraction));
  const auto fraction_part = static_cast<std::uint64_t>(std::llround(fraction * static_cast<double>(factor)));
  std::uint64_t total = 0;
  if (__builtin_add_overflow(scaled, fraction_part, &total)) return std::nullopt;
  return total;
}

std::string unknown_unit(std::string_view suffix, std::string_view allowed) {
  return "unknown unit '" + std::string(suffix) + "' (use " + std::string(allowed) + ")";
}

template <class T>
ParseResult<T> bare_number(const Quantity& q, std::string_view example) {
  if (is_zero(q)) return ParseResult<T>::success(T{0});
  return ParseResult<T>::failure("missing unit, e.g. " + std::string(example));
}

// number * factor as a double; the number has at most a few hundred digits,
// so only an absurd input can be non-finite.
ParseResult<double> scaled_double(const Quantity& q, double factor) {
  const std::optional<double> number = to_double(q.number);
  if (!number || !std::isfinite(*number * factor)) return ParseResult<double>::failure("too large");
  return ParseResult<double>::success(*number * factor);
}

bool ends_with(std::string_view text, std::string_view tail) {
  return text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail;
}

std::string_view drop_tail(std::string_view text, std::string_view tail) {
  return text.substr(0, text.size() - tail.size());
}

ParseResult<double> bits_per_second(const Quantity& q) {
  const std::string_view prefix = drop_tail(q.suffix, "bps");
  const Unit* unit = find_unit(kBitPrefixes, prefix);
  if (unit == nullptr) return ParseResult<double>::failure(unknown_unit(q.suffix, "bps, Kbps, Mbps, Gbps or Tbps"));
  return scaled_double(q, static_cast<double>(unit->factor) / 8.0);
}

ParseResult<double> bytes_per_second(const Quantity& q) {
  const std::string_view size = drop_tail(q.suffix, "/s");
  const Unit* unit = find_unit(kSizeUnits, size);
  if (unit == nullptr) return ParseResult<double>::failure(unknown_unit(q.suffix, "B/s, KB/s, KiB/s, MB/s, MiB/s, GB/s, GiB/s, ..."));
  return scaled_double(q, static_cast<double>(unit->factor));
}

std::string format_decimal(double value, int max_decimals) {
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*f", max_decimals, value);
  std::string text(buffer.data());
  if (text.find('.') != std::string::npos) {
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

// Exactly representable in `unit` with at most 3 decimals.
bool divides_to_millis(std::uint64_t bytes, std::uint64_t unit) {
  return (bytes % unit) * 1000 % unit == 0;
}

}  // namespace

SimTime bare_duration_unit(std::string_view key) {
  constexpr std::pair<std::string_view, SimTime> kSuffixes[] = {
      {".ms", 1'000'000},          {".us", 1'000},          {".ns", 1},
      {".seconds", 1'000'000'000}, {".minutes", 60'000'000'000}, {".hours", 3'600'000'000'000},
  };
  for (const auto& [suffix, unit] : kSuffixes) {
    if (ends_with(key, suffix)) return unit;
  }
  return 0;
}

ParseResult<SimTime> parse_duration(std::string_view text, SimTime bare_unit) {
  const auto split = split_quantity(text);
  if (!split) return ParseResult<SimTime>::failure(split.error());
  const Quantity& q = split.value();
  if (q.suffix.empty() && bare_unit == 0) return bare_number<SimTime>(q, "250ms");
  const Unit bare{"", static_cast<std::uint64_t>(bare_unit)};
  const Unit* unit = q.suffix.empty() ? &bare : find_unit(kTimeUnits, q.suffix);
  if (unit == nullptr) return ParseResult<SimTime>::failure(unknown_unit(q.suffix, kTimeUnitList));
  const std::optional<std::uint64_t> ns = scale_exactly(q, unit->factor);
  if (!ns || *ns > static_cast<std::uint64_t>(std::numeric_limits<SimTime>::max())) {
    return ParseResult<SimTime>::failure("too large");
  }
  return ParseResult<SimTime>::success(static_cast<SimTime>(*ns));
}

ParseResult<std::uint64_t> parse_bytes(std::string_view text) {
  const auto split = split_quantity(text);
  if (!split) return ParseResult<std::uint64_t>::failure(split.error());
  const Quantity& q = split.value();
  if (q.suffix.empty() && !q.fraction.empty()) {
    return ParseResult<std::uint64_t>::failure("a bare number must be a whole number of bytes");
  }
  const Unit* unit = q.suffix.empty() ? &kSizeUnits.back() : find_unit(kSizeUnits, q.suffix);
  if (unit == nullptr) return ParseResult<std::uint64_t>::failure(unknown_unit(q.suffix, kSizeUnitList));
  const std::optional<std::uint64_t> bytes = scale_exactly(q, unit->factor);
  if (!bytes) return ParseResult<std::uint64_t>::failure("too large");
  return ParseResult<std::uint64_t>::success(*bytes);
}

ParseResult<double> parse_rate(std::string_view text) {
  const auto split = split_quantity(text);
  if (!split) return ParseResult<double>::failure(split.error());
  const Quantity& q = split.value();
  if (q.suffix.empty()) return bare_number<double>(q, "1000/s");
  const std::size_t slash = q.suffix.find('/');
  const Unit* count = slash == std::string_view::npos ? nullptr : find_unit(kCountPrefixes, q.suffix.substr(0, slash));
  const Unit* per = slash == std::string_view::npos ? nullptr : find_unit(kTimeUnits, q.suffix.substr(slash + 1));
  if (count == nullptr || per == nullptr) {
    return ParseResult<double>::failure(unknown_unit(q.suffix, "/s, /ms, /us, /m, /h, optionally with k or M as in 10k/s"));
  }
  return scaled_double(q, static_cast<double>(count->factor) * 1e9 / static_cast<double>(per->factor));
}

ParseResult<double> parse_bandwidth(std::string_view text) {
  const auto split = split_quantity(text);
  if (!split) return ParseResult<double>::failure(split.error());
  const Quantity& q = split.value();
  if (q.suffix.empty()) return bare_number<double>(q, "10Gbps or 100MB/s");
  if (ends_with(q.suffix, "bps")) return bits_per_second(q);
  if (ends_with(q.suffix, "/s")) return bytes_per_second(q);
  return ParseResult<double>::failure(unknown_unit(q.suffix, "bits as in 10Gbps or bytes as in 100MB/s"));
}

ParseResult<double> parse_fraction(std::string_view raw) {
  std::string_view text = trim(raw);
  const bool percent = ends_with(text, "%");
  if (percent) text = trim(drop_tail(text, "%"));
  const std::optional<double> value = to_double(text);
  if (!value) return ParseResult<double>::failure("not a number");
  return ParseResult<double>::success(percent ? *value / 100.0 : *value);
}

std::string format_duration(SimTime duration) {
  if (duration == 0) return "0s";
  // Negative durations only show up in diagnostics; keep the sign.
  const std::string sign = duration < 0 ? "-" : "";
  const double magnitude = std::fabs(static_cast<double>(duration));
  for (auto unit = kTimeUnits.rbegin(); unit != kTimeUnits.rend(); ++unit) {
    const auto factor = static_cast<double>(unit->factor);
    if (magnitude >= factor) return sign + format_decimal(magnitude / factor, 3) + std::string(unit->name);
  }
  return sign + format_decimal(magnitude, 0) + "ns";
}

std::string format_exact_duration(SimTime duration) {
  if (duration == 0) return "0s";
  for (auto unit = kTimeUnits.rbegin(); unit != kTimeUnits.rend(); ++unit) {
    const auto factor = static_cast<SimTime>(unit->factor);
    if (duration % factor == 0) return std::to_string(duration / factor) + std::string(unit->name);
  }
  return std::to_string(duration) + "ns";
}

// Prefers a whole number in the largest unit ("16KB", "2000KiB"), then at most
// 3 exact decimals ("1.5KiB"), then 2 rounded decimals in a binary unit.
std::string format_bytes(std::uint64_t bytes) {
  for (const Unit& unit : kSizeUnits) {
    if (unit.factor > 1 && bytes >= unit.factor && bytes % unit.factor == 0) {
      return std::to_string(bytes / unit.factor) + std::string(unit.name);
    }
  }
  for (const Unit& unit : kSizeUnits) {
    if (unit.factor > 1 && bytes >= unit.factor && divides_to_millis(bytes, unit.factor)) {
      return format_decimal(static_cast<double>(bytes) / static_cast<double>(unit.factor), 3) + std::string(unit.name);
    }
  }
  for (const Unit& unit : kSizeUnits) {
    const bool binary = unit.name.find('i') != std::string_view::npos;
    if (binary && bytes >= unit.factor) {
      return format_decimal(static_cast<double>(bytes) / static_cast<double>(unit.factor), 2) + std::string(unit.name);
    }
  }
  return std::to_string(bytes) + "B";
}

std::string format_bandwidth(double bytes_per_second) {
  const double bits = bytes_per_second * 8.0;
  for (auto prefix = kBitPrefixes.rbegin(); prefix != kBitPrefixes.rend(); ++prefix) {
    const auto factor = static_cast<double>(prefix->factor);
    if (prefix->name != "k" && bits >= factor) return format_decimal(bits / factor, 3) + std::string(prefix->name) + "bps";
  }
  return format_decimal(bits, 3) + "bps";
}

std::string format_rate(double per_second) {
  if (per_second >= 1e6) return format_decimal(per_second / 1e6, 3) + "M/s";
  if (per_second >= 1e3) return format_decimal(per_second / 1e3, 3) + "k/s";
  if (per_second >= 1.0 || per_second <= 0.0) return format_decimal(per_second, 3) + "/s";
  if (per_second * 60.0 >= 1.0) return format_decimal(per_second * 60.0, 3) + "/m";
  return format_decimal(per_second * 3600.0, 3) + "/h";
}

}  // namespace ksim::units
