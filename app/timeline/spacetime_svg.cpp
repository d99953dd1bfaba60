#include "app/timeline/spacetime_svg.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/timeline/html_text.hpp"

namespace ksim::app::timeline {

namespace {

constexpr double kDiagramTop = 50, kSide = 90;
constexpr std::size_t kLabelled = 150;  // messages drawn with their names, at most

std::string_view api_class(std::string_view name) {
  if (name.starts_with("Produce")) return "produce";
  if (name.starts_with("Fetch")) return "fetch";
  if (name.starts_with("AlterPartition")) return "isr";
  if (name.starts_with("ListOffsets")) return "offsets";
  return "other";
}

class SpacetimeWriter {
 public:
  SpacetimeWriter(const Timeline& t, const MessageWindow& w, std::ostream& out)
      : t_(t), w_(w), out_(out), height_(std::clamp(120.0 + 9.0 * static_cast<double>(w.messages.size()), 360.0, 2400.0)) {
    column_ = (TimeAxis::kPageWidth - 2 * kSide) / static_cast<double>(std::max<std::size_t>(1, w.nodes.size()));
  }

  void write() {
    const double bottom = kDiagramTop + height_;
    fmt::print(out_, R"~(<svg id="spacetime" width="{}" height="{}" xmlns="http://www.w3.org/2000/svg">)~",
               num(TimeAxis::kPageWidth), num(bottom + 30));
    fmt::print(out_, "\n<defs><marker id=\"arrow\" viewBox=\"0 0 8 8\" refX=\"8\" refY=\"4\" markerWidth=\"7\" "
                     "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0L8,4L0,8Z\"/></marker></defs>\n");
    write_faults();
    write_ticks();
    write_lifelines(bottom);
    for (std::size_t i = 0; i < w_.messages.size(); ++i) write_message(w_.messages[i], i < kLabelled);
    fmt::print(out_, "</svg>\n");
  }

 private:
  double y(SimTime t) const {
    const double span = static_cast<double>(std::max<SimTime>(1, w_.to - w_.from));
    return kDiagramTop + static_cast<double>(std::clamp(t, w_.from, w_.to) - w_.from) / span * height_;
  }
  double x(const std::string& node) const {
    const auto it = std::find(w_.nodes.begin(), w_.nodes.end(), node);
    return kSide + (static_cast<double>(it - w_.nodes.begin()) + 0.5) * column_;
  }
  bool inside(const Span& s) const { return s.end > w_.from && s.start < w_.to; }

  void write_faults() {
    for (const Span& s : t_.spans) {
      if (t_.rows[s.row].kind != RowKind::Faults || !inside(s)) continue;
      fmt::print(out_, R"~(<rect class="band" x="{}" y="{}" width="{}" height="{}" data-tip="{}"/>)~", num(kSide / 2),
                 num(y(s.start)), num(TimeAxis::kPageWidth - kSide), num(std::max(1.0, y(s.end) - y(s.start))), esc(s.detail));
      fmt::print(out_, "\n");
    }
  }

  void write_ticks() {
    const double span = static_cast<double>(w_.to - w_.from);
    const double raw = span / 8, power = std::pow(10.0, std::floor(std::log10(std::max(raw, 1.0))));
    double step = power;
    for (const double m : {1.0, 2.0, 5.0, 10.0}) {
      if (m * power >= raw) {
        step = m * power;
        break;
      }
    }
    const auto first = static_cast<SimTime>(std::ceil(static_cast<double>(w_.from) / step) * step);
    for (SimTime t = first; t <= w_.to; t += static_cast<SimTime>(step)) {
      fmt::print(out_, R"~(<line class="grid" x1="{}" x2="{}" y1="{}" y2="{}"/><text class="tick" x="{}" y="{}">{}</text>)~",
                 num(kSide / 2), num(TimeAxis::kPageWidth - kSide / 2), num(y(t)), num(y(t)), num(kSide / 2 - 4),
                 num(y(t) + 4), esc(format_time(t)));
      fmt::print(out_, "\n");
      if (step < 1) break;
    }
  }

  void write_lifelines(double bottom) {
    for (const std::string& node : w_.nodes) {
      fmt::print(out_, R"~(<text class="node" x="{}" y="{}">{}</text><line class="life" x1="{}" x2="{}" y1="{}" y2="{}"/>)~",
                 num(x(node)), num(kDiagramTop - 14), esc(node), num(x(node)), num(x(node)), num(kDiagramTop - 6), num(bottom));
      fmt::print(out_, "\n");
    }
    for (const Span& s : t_.spans) {
      if ((s.kind != "down" && s.kind != "paused") || !inside(s)) continue;
      const std::string& node = t_.rows[s.row].name;
      if (std::find(w_.nodes.begin(), w_.nodes.end(), node) == w_.nodes.end()) continue;
      fmt::print(out_, R"~(<line class="life k-{}" x1="{}" x2="{}" y1="{}" y2="{}" data-tip="{}"/>)~", esc(s.kind), num(x(node)),
                 num(x(node)), num(y(s.start)), num(y(s.end)), esc(s.detail));
      fmt::print(out_, "\n");
    }
  }

  void write_message(const SentMessage& m, bool labelled) {
    const double x1 = x(m.from), y1 = y(m.sent), x2 = x(m.to);
    const bool delivered = m.delivered != kNever;
    const bool response = m.name.ends_with("Response");
    double y2 = delivered ? y(m.delivered) : y1 + 24;
    double end_x = delivered ? x2 : x1 + (x2 - x1) * 0.25;
    if (delivered && m.delivered > w_.to) end_x = x1 + (x2 - x1) * std::min(1.0, (kDiagramTop + height_ - y1) / std::max(1.0, y2 - y1));
    const std::string tip =
        fmt::format("{}: {} → {}\nsent {}, {}\n{}", m.name, m.from, m.to, format_time(m.sent),
                    delivered ? "delivered " + format_time(m.delivered) : "never delivered (dropped, or in flight at the end)",
                    m.detail);
    fmt::print(out_, R"~(<line class="msg api-{}{}" x1="{}" y1="{}" x2="{}" y2="{}"{} data-tip="{}"/>)~", api_class(m.name),
               response ? " resp" : "", num(x1), num(y1), num(end_x), num(y2), delivered ? R"X( marker-end="url(#arrow)")X" : "",
               esc(tip));
    fmt::print(out_, "\n");
    if (!delivered) {
      fmt::print(out_, R"~(<path class="lostmsg" d="M{},{}l6,6m0,-6l-6,6"/>)~", num(end_x - 3), num(y2 - 3));
      fmt::print(out_, "\n");
    }
    if (labelled) {
      fmt::print(out_, R"~(<text class="msgl{}" x="{}" y="{}">{}</text>)~", x2 < x1 ? " left" : "", num(x1 + (x2 > x1 ? 4 : -4)),
                 num(y1 - 2), esc(m.name));
      fmt::print(out_, "\n");
    }
  }

  const Timeline& t_;
  const MessageWindow& w_;
  std::ostream& out_;
  double height_;
  double column_ = 0;
};

}  // namespace

void write_spacetime(const Timeline& t, std::ostream& out) {
  if (!t.window) {
    fmt::print(out, "<p class=\"none\">No spacetime diagram: <code>ksim run ... --timeline FILE --timeline-window 10s..12s "
                    "--partition TOPIC-N</code> draws the messages between nodes of a window.</p>\n");
    return;
  }
  const MessageWindow& w = *t.window;
  fmt::print(out, "<p class=\"help\">From {} to {}{}: {} messages{}; hover a line for the message.</p>\n",
             esc(format_time(w.from)), esc(format_time(w.to)),
             w.partition.empty() ? ", every message" : ", those carrying partition " + esc(w.partition), w.messages.size(),
             w.left_out ? fmt::format(" ({} more left out)", w.left_out) : "");
  if (w.messages.empty()) return;
  SpacetimeWriter(t, w, out).write();
}

}  // namespace ksim::app::timeline
