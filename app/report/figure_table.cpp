#include "app/report/figure_table.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "app/scenario/units.hpp"

namespace ksim::app {

namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

double number(const FigureValue& value) {
  return std::visit(Overloaded{[](std::uint64_t v) { return static_cast<double>(v); },
                               [](std::int64_t v) { return static_cast<double>(v); }, [](double v) { return v; },
                               [](bool v) { return v ? 1.0 : 0.0; }, [](const std::string&) { return 0.0; },
                               [](const std::vector<std::string>& v) { return static_cast<double>(v.size()); },
                               [](const Guarantees&) { return 0.0; },
                               [](const Held& h) { return h.held_over_something() ? 1.0 : 0.0; }},
                    value);
}

// Exactly, for an integer (a seed has 64 bits, more than a double holds).
std::string whole(const FigureValue& value) {
  if (const auto* n = std::get_if<std::uint64_t>(&value)) return std::to_string(*n);
  if (const auto* n = std::get_if<std::int64_t>(&value)) return std::to_string(*n);
  return fmt::format("{:.0f}", number(value));
}

}  // namespace

std::string Guarantees::verdict() const {
  if (!vacuous.empty()) return exactly_once ? "vacuous" : "none";  // what did not hold was checked over something
  if (exactly_once) return "exactly-once";
  if (at_least_once) return "at-least-once";
  if (at_most_once) return incomplete.empty() ? "at-most-once" : "incomplete";
  return "none";
}

bool Guarantees::meets(std::string_view required) const {
  if (required == "none") return true;
  if (!vacuous.empty()) return false;
  if (required == "exactly-once") return exactly_once;
  if (required == "at-least-once") return at_least_once;
  if (required == "at-most-once") return at_most_once;
  return true;
}

double percentile_ms(const Histogram& histogram, double p) {
  if (histogram.count() == 0) return std::numeric_limits<double>::quiet_NaN();
  return to_milliseconds(p >= 100 ? histogram.max() : histogram.percentile(p));
}

std::string json_pointer(std::string_view at, std::string_view name) {
  std::string pointer;
  for (const std::string_view part : {at, name}) {
    if (part.empty()) continue;
    pointer += '/';
    for (const char c : part) pointer += c == '.' ? '/' : c;
  }
  return pointer;
}

nlohmann::ordered_json figure_json(const FigureValue& value) {
  return std::visit(Overloaded{[](const Guarantees& g) { return nlohmann::ordered_json(g.verdict()); },
                               [](const Held& h) { return nlohmann::ordered_json(h.held_over_something()); },
                               [](double v) { return std::isnan(v) ? nlohmann::ordered_json() : nlohmann::ordered_json(v); },
                               [](const auto& v) { return nlohmann::ordered_json(v); }},
                    value);
}

std::string format_figure(const FigureValue& value, FigureUnit unit, int significant) {
  const double x = number(value);
  if (std::isnan(x)) return "n/a";
  if (significant > 0 && unit == FigureUnit::Milliseconds && x > 0) {
    // As many decimals as leave `significant` digits: 5.80ms, 9870ms, 0.390ms.
    const int magnitude = static_cast<int>(std::floor(std::log10(x))) + 1;
    const int decimals = std::max(0, significant - magnitude);
    const double unit_of_last = std::pow(10.0, magnitude - significant);
    return fmt::format("{:.{}f}ms", std::round(x / unit_of_last) * unit_of_last, decimals);
  }
  switch (unit) {
    case FigureUnit::Count:
    case FigureUnit::Names: return whole(value);
    case FigureUnit::Records: return whole(value) + " records";
    case FigureUnit::Bytes:
      return units::format_bytes(std::holds_alternative<std::uint64_t>(value) ? std::get<std::uint64_t>(value)
                                                                              : static_cast<std::uint64_t>(x));
    case FigureUnit::Fraction: return fmt::format("{:.1f}%", 100 * x);
    case FigureUnit::Milliseconds: return fmt::format("{:.3f}ms", x);
    case FigureUnit::Seconds: return fmt::format("{:.3f}s", x);
    case FigureUnit::PartitionSeconds: return fmt::format("{:.3f} partition-s", x);
    case FigureUnit::Ratio: return fmt::format("{:.2f}", x);
    case FigureUnit::PerSecond: return fmt::format("{:.1f}/s", x);
    case FigureUnit::RecordsPerSecond: return fmt::format("{:.0f} records/s", x);
    case FigureUnit::BytesPerSecond: return units::format_bandwidth(x);
    case FigureUnit::Held: {
      const Held* h = std::get_if<Held>(&value);
      if (h != nullptr && !h->vacuous.empty()) return h->held ? "vacuous" : "VIOLATED";
      return x != 0 ? "held" : "VIOLATED";
    }
    case FigureUnit::Flag: return x != 0 ? "yes" : "no";
    case FigureUnit::Verdict: {
      const Guarantees& g = std::get<Guarantees>(value);
      return g.vacuous.empty() ? g.verdict() : g.verdict() + " (" + g.vacuous + ")";
    }
    case FigureUnit::Text: return std::get<std::string>(value);
  }
  return "";
}

void FigureLines::add(std::string_view label, const FigureValue& value, FigureUnit unit, bool new_line,
                      int significant) {
  if (new_line) finish();
  if (!line_.empty()) line_ += "  ";
  line_ += fmt::format("{} {}", label, format_figure(value, unit, significant));
}

void FigureLines::finish() {
  if (line_.empty()) return;
  out_ << "  " << line_ << '\n';
  line_.clear();
}

}  // namespace ksim::app
