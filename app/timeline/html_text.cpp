#include "app/timeline/html_text.hpp"

#include <array>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/report/xml_escape.hpp"
#include "app/timeline/timeline.hpp"

namespace ksim::app::timeline {

std::string esc(std::string_view text) { return xml_escape(text); }

std::string num(double value) {
  const double rounded = std::round(value * 10) / 10;
  std::string text = fmt::format("{:.1f}", rounded == 0 ? 0.0 : rounded);
  if (text.ends_with(".0")) text.resize(text.size() - 2);
  return text;
}

std::string ms(SimTime t) {
  std::string text = fmt::format("{:.6f}", static_cast<double>(t) / 1e6);
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

double TimeAxis::x(SimTime t) const {
  const double span = static_cast<double>(std::max<SimTime>(1, to - from));
  return kLeft + static_cast<double>(t - from) / span * kWidth;
}

void write_axis(double y, double bottom, std::ostream& out) {
  fmt::print(out, "<g class=\"axis\" data-y=\"{}\" data-bottom=\"{}\"></g>\n", num(y), num(bottom));
}

void write_fault_bands(const Timeline& timeline, const TimeAxis& axis, double top, double bottom, std::ostream& out) {
  for (const Span& s : timeline.spans) {
    if (timeline.rows[s.row].kind != RowKind::Faults) continue;
    fmt::print(out, "<rect class=\"band\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" data-a=\"{}\" data-b=\"{}\"/>\n",
               num(axis.x(s.start)), num(top), num(std::max(1.0, axis.x(s.end) - axis.x(s.start))), num(bottom - top),
               ms(s.start), ms(s.end));
  }
}

std::string_view broker_color(int broker) {
  static constexpr std::array<std::string_view, 10> kPalette{"#4e79a7", "#59a14f", "#9c755f", "#76b7b2", "#edc948",
                                                            "#b07aa1", "#ff9da7", "#86bcb6", "#8cd17d", "#bab0ac"};
  return broker < 0 ? "#999999" : kPalette[static_cast<std::size_t>(broker) % kPalette.size()];
}

}  // namespace ksim::app::timeline
