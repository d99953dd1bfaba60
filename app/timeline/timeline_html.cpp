#include "app/timeline/timeline_html.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/timeline/html_text.hpp"
#include "app/timeline/spacetime_svg.hpp"
#include "app/timeline/timeline_charts.hpp"
#include "app/timeline/timeline_page.hpp"

namespace ksim::app::timeline {

namespace {

constexpr double kLane = 14;         // one lane of a row, pixels
constexpr double kRowPad = 6;        // above and below a row's lanes
constexpr double kSection = 22;      // a section's heading
constexpr double kAxis = 26;         // the time axis at the top
constexpr std::size_t kMarkLabels = 40;  // a row with at most this many marks shows their labels

// A row's place on the page.
struct RowBox {
  double y = 0, height = 0;
};

// The shape of a mark of `kind`, centred on 0,0.
std::string_view mark_shape(std::string_view kind) {
  if (kind == "election") return "M0,-4L4,0L0,4L-4,0Z";
  if (kind == "unclean" || kind == "lost") return "M0,-6L6,5L-6,5Z";
  if (kind == "invariant") return "M-5,-5L5,5M5,-5L-5,5";
  if (kind == "duplicated" || kind == "reordered" || kind == "unprocessed") return "M-5,-5H5V5H-5Z";
  return "M-3,0A3,3 0 1,0 3,0A3,3 0 1,0 -3,0";
}

class TrackWriter {
 public:
  TrackWriter(const Timeline& t, std::ostream& out) : t_(t), out_(out), axis_{0, std::max<SimTime>(t.end, 1)} {
    lane_of_ = assign_lanes(t, lanes_);
    for (const Step& s : t.steps) steps_[s.row].push_back(&s);
    for (const Mark& m : t.marks) ++marks_[m.row];
    layout();
  }

  void write() {
    fmt::print(out_, R"~(<svg id="tracks" class="zoomable" width="{}" height="{}" xmlns="http://www.w3.org/2000/svg">)~",
               num(TimeAxis::kPageWidth), num(height_));
    fmt::print(out_, "\n<defs><clipPath id=\"plot\"><rect x=\"{}\" y=\"0\" width=\"{}\" height=\"{}\"/></clipPath></defs>\n",
               num(TimeAxis::kLeft), num(TimeAxis::kWidth), num(height_));
    write_labels();
    write_axis(kAxis - 4, height_, out_);
    fmt::print(out_, "<g clip-path=\"url(#plot)\">\n");
    write_fault_bands(t_, axis_, kAxis, height_, out_);
    for (std::size_t i = 0; i < t_.spans.size(); ++i) write_span(t_.spans[i], lane_of_[i]);
    for (const auto& [row, steps] : steps_) write_steps(row, steps);
    for (const Mark& m : t_.marks) write_mark(m);
    fmt::print(out_, "</g>\n<line class=\"cursor\" x1=\"0\" x2=\"0\" y1=\"{}\" y2=\"{}\"/>\n", num(kAxis), num(height_));
    fmt::print(out_, "<rect class=\"selection\" x=\"0\" y=\"{}\" width=\"0\" height=\"{}\"/>\n", num(kAxis), num(height_ - kAxis));
    fmt::print(out_, "</svg>\n");
  }

 private:
  void layout() {
    double y = kAxis;
    std::optional<RowKind> section;
    for (std::size_t r = 0; r < t_.rows.size(); ++r) {
      if (t_.rows[r].kind != section) {
        section = t_.rows[r].kind;
        sections_.push_back({r, y});
        y += kSection;
      }
      const double lanes = std::max<double>(lanes_[r], steps_.contains(r) ? 2 : 1);
      boxes_.push_back({y, lanes * kLane + 2 * kRowPad});
      y += boxes_.back().height;
    }
    height_ = y + 8;
  }

  void write_labels() {
    for (const auto& [row, y] : sections_) {
      fmt::print(out_, R"~(<text class="sec" x="6" y="{}">{}</text>)~", num(y + 15), esc(to_string(t_.rows[row].kind)));
      fmt::print(out_, R"~(<line class="secline" x1="0" x2="{}" y1="{}" y2="{}"/>)~", num(TimeAxis::kPageWidth), num(y + 20),
                 num(y + 20));
      fmt::print(out_, "\n");
    }
    for (std::size_t r = 0; r < t_.rows.size(); ++r) {
      const RowBox& b = boxes_[r];
      fmt::print(out_, R"~(<rect class="rowbg{}" x="0" y="{}" width="{}" height="{}"/>)~", r % 2 ? " odd" : "", num(b.y),
                 num(TimeAxis::kPageWidth), num(b.height));
      fmt::print(out_, R"~(<text class="row" data-row="{}" x="14" y="{}">{}</text>)~", esc(t_.rows[r].name),
                 num(b.y + kRowPad + 11), esc(t_.rows[r].name));
      fmt::print(out_, "\n");
    }
  }

  void write_span(const Span& s, std::uint32_t lane) {
    const RowBox& b = boxes_[s.row];
    const double x = axis_.x(s.start), w = std::max(1.0, axis_.x(s.end) - x);
    const double y = b.y + kRowPad + lane * kLane + 1;
    const std::string color = s.color >= 0 ? fmt::format(R"~( style="fill:{}")~", broker_color(s.color)) : "";
    fmt::print(out_, R"~(<rect class="s k-{}" x="{}" y="{}" width="{}" height="{}" data-a="{}" data-b="{}" data-tip="{}"{}/>)~",
               esc(s.kind), num(x), num(y), num(w), num(kLane - 2), ms(s.start), ms(s.end), esc(s.detail), color);
    fmt::print(out_, "\n");
    if (s.label.empty()) return;
    const bool fits = w >= 6.5 * static_cast<double>(s.label.size()) + 6;
    fmt::print(out_, R"~(<text class="sl" x="{}" y="{}" data-a="{}" data-b="{}"{}>{}</text>)~", num(x + 3), num(y + 10),
               ms(s.start), ms(s.end), fits ? "" : R"~( display="none")~", esc(s.label));
    fmt::print(out_, "\n");
  }

  void write_steps(std::size_t row, const std::vector<const Step*>& steps) {
    double top = 1;
    for (const Step* s : steps) top = std::max(top, s->value);
    const RowBox& b = boxes_[row];
    const double base = b.y + b.height - kRowPad, range = b.height - 2 * kRowPad - 2;
    std::string times, ys, points;
    double last_y = base;
    const auto point = [&](SimTime t, double y) {
      times += (times.empty() ? "" : ",") + ms(t);
      ys += (ys.empty() ? "" : ",") + num(y);
      points += fmt::format("{}{},{}", points.empty() ? "" : " ", num(axis_.x(t)), num(y));
    };
    for (const Step* s : steps) {
      const double y = base - s->value / top * range;
      point(s->at, last_y);
      point(s->at, y);
      last_y = y;
    }
    point(t_.end, last_y);
    fmt::print(out_, R"~(<polyline class="step" points="{}" data-ts="{}" data-ys="{}" data-tip="{}"/>)~", points, times, ys,
               esc(fmt::format("{}: partitions led (at most {})", t_.rows[row].name, top)));
    fmt::print(out_, "\n");
  }

  void write_mark(const Mark& m) {
    const RowBox& b = boxes_[m.row];
    const double y = b.y + b.height / 2;
    fmt::print(out_, R"~(<path class="m k-{}" d="{}" transform="translate({},{})" data-a="{}" data-y="{}" data-tip="{}"/>)~",
               esc(m.kind), mark_shape(m.kind), num(axis_.x(m.at)), num(y), ms(m.at), num(y), esc(m.detail));
    fmt::print(out_, "\n");
    if (m.label.empty() || marks_[m.row] > kMarkLabels || t_.rows[m.row].kind != RowKind::Anomalies) return;
    fmt::print(out_, R"~(<text class="ml" x="{}" y="{}" data-a="{}" data-dx="7">{}</text>)~", num(axis_.x(m.at) + 7),
               num(y + 4), ms(m.at), esc(m.label));
    fmt::print(out_, "\n");
  }

  const Timeline& t_;
  std::ostream& out_;
  TimeAxis axis_;
  std::vector<std::uint32_t> lanes_, lane_of_;
  std::map<std::size_t, std::vector<const Step*>> steps_;
  std::map<std::size_t, std::size_t> marks_;  // by row
  std::vector<RowBox> boxes_;
  std::vector<std::pair<std::size_t, double>> sections_;  // first row, top
  double height_ = 0;
};

void write_legend(std::ostream& out) {
  static constexpr std::pair<std::string_view, std::string_view> kSpans[] = {
      {"fault", "fault"},         {"down", "down"},          {"paused", "paused"},     {"fenced", "fenced"},
      {"offline", "no leader"},   {"isr", "ISR short"},      {"joining", "joining"},   {"generation", "generation"},
      {"rebalance", "rebalance"}, {"txn-commit", "committed"}, {"txn-abort", "aborted"}, {"loading", "loading"},
      {"active", "active controller"}};
  static constexpr std::pair<std::string_view, std::string_view> kMarks[] = {
      {"election", "election"}, {"unclean", "unclean election"}, {"lost", "lost"},       {"duplicated", "duplicated"},
      {"reordered", "reordered"}, {"invariant", "invariant"},    {"truncation", "truncation"}, {"fail", "failure"},
      {"timeout", "timeout"}};
  fmt::print(out, "<div class=\"legend\">");
  for (const auto& [kind, label] : kSpans) fmt::print(out, R"~(<span><i class="sw k-{}"></i>{}</span>)~", kind, label);
  for (const auto& [kind, label] : kMarks) {
    fmt::print(out, R"~(<span><svg width="14" height="14"><path class="key-mark k-{}" d="{}" transform="translate(7,7)"/></svg>{}</span>)~",
               kind, mark_shape(kind), label);
  }
  fmt::print(out, "<span>leader spans take their broker's colour; the line in a broker's row counts the partitions it leads</span></div>\n");
}

}  // namespace

void write_timeline_html(const Timeline& t, std::ostream& out) {
  fmt::print(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>ksim timeline: {}</title>\n",
             esc(t.title));
  fmt::print(out, "<style>\n{}</style>\n</head>\n", page_style());
  fmt::print(out, R"~(<body data-end="{}" data-rows="{}">)~", ms(std::max<SimTime>(t.end, 1)), t.rows.size());
  fmt::print(out, "\n<header><h1>ksim timeline: {}</h1><p class=\"sub\">{}</p>\n", esc(t.title), esc(t.subtitle));
  fmt::print(out, "<p class=\"help\">Drag across the tracks or charts to zoom in; double-click or "
                  "<button id=\"reset\" type=\"button\">reset</button> to see the whole run; hover for details. "
                  "<span id=\"range\"></span></p>\n");
  write_legend(out);
  fmt::print(out, "</header>\n<main>\n");
  TrackWriter(t, out).write();
  fmt::print(out, "<h2>Over time</h2>\n");
  write_charts(t, out);
  fmt::print(out, "<h2>Messages</h2>\n");
  write_spacetime(t, out);
  fmt::print(out, "<h2>Notes</h2>\n<ul class=\"notes\">\n");
  for (const std::string& note : t.notes) fmt::print(out, "<li>{}</li>\n", esc(note));
  if (t.notes.empty()) fmt::print(out, "<li>Everything the run recorded is drawn.</li>\n");
  fmt::print(out, "</ul>\n</main>\n<div id=\"tip\" hidden></div>\n<script>\n{}</script>\n</body>\n</html>\n", page_script());
}

}  // namespace ksim::app::timeline
