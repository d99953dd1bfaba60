#include "app/timeline/timeline_charts.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/report/report_timeseries.hpp"
#include "app/timeline/html_text.hpp"

namespace ksim::app::timeline {

namespace {

constexpr double kChartsTop = 26;         // the axis
constexpr double kChartHeight = 96;  // a chart's plot
constexpr double kChartGap = 34;     // its title above
constexpr std::string_view kColors[] = {"#4e79a7", "#f28e2b", "#e15759", "#59a14f"};

std::string_view chart_title(std::string_view unit) {
  if (unit == "records/s") return "throughput";
  if (unit == "ms") return "latency";
  if (unit == "records") return "consumer lag";
  return "partitions";
}

// 1, 2 or 5 times a power of ten, at least `value` (and at least 1).
double nice_ceiling(double value) {
  if (!(value > 1)) return 1;
  const double power = std::pow(10.0, std::floor(std::log10(value)));
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= value) return m * power;
  }
  return 10 * power;
}

std::string figure(double v) {
  if (v >= 100 || v == std::floor(v)) return fmt::format("{:.0f}", v);
  return fmt::format("{:.3g}", v);
}

// The chart of one unit: its series as polylines, broken where a sample has no value.
void write_chart(const Timeline& t, const TimeAxis& axis, std::string_view unit, double top, std::ostream& out) {
  std::vector<const TimeSeriesColumn*> columns;
  double high = 0;
  for (const TimeSeriesColumn& c : timeseries_columns()) {
    if (c.chart != unit) continue;
    columns.push_back(&c);
    for (const models::TimeSample& s : t.series) high = std::max(high, c.value(s).value_or(0));
  }
  const double y_max = nice_ceiling(high), bottom = top + kChartHeight;
  const auto y_of = [&](double v) { return bottom - v / y_max * kChartHeight; };
  fmt::print(out, R"~(<text class="sec" x="6" y="{}">{}</text><text class="unit" x="6" y="{}">{}</text>)~", num(top - 12),
             chart_title(unit), num(top + 4), esc(unit));
  fmt::print(out, "\n");
  for (const double v : {0.0, y_max / 2, y_max}) {
    fmt::print(out, R"~(<line class="grid" x1="{}" x2="{}" y1="{}" y2="{}"/><text class="tick" x="{}" y="{}">{}</text>)~",
               num(TimeAxis::kLeft), num(TimeAxis::kLeft + TimeAxis::kWidth), num(y_of(v)), num(y_of(v)),
               num(TimeAxis::kLeft - 6), num(y_of(v) + 4), figure(v));
    fmt::print(out, "\n");
  }
  double legend_x = TimeAxis::kLeft + 8;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const std::string_view color = kColors[i % std::size(kColors)];
    fmt::print(out, R"~(<text class="key" x="{}" y="{}" style="fill:{}">{}</text>)~", num(legend_x), num(top - 12), color,
               esc(columns[i]->label));
    legend_x += 9.0 * static_cast<double>(columns[i]->label.size()) + 24;
    std::string times, ys, points;
    const auto flush = [&] {
      if (!points.empty()) {
        fmt::print(out, "<g clip-path=\"url(#chartplot)\"><polyline class=\"series\" style=\"stroke:{}\" points=\"{}\" "
                        "data-ts=\"{}\" data-ys=\"{}\"/></g>\n",
                   color, points, times, ys);
      }
      times.clear();
      ys.clear();
      points.clear();
    };
    for (const models::TimeSample& s : t.series) {
      const std::optional<double> v = columns[i]->value(s);
      if (!v) {
        flush();
        continue;
      }
      const double y = y_of(*v);
      times += (times.empty() ? "" : ",") + ms(s.at);
      ys += (ys.empty() ? "" : ",") + num(y);
      points += fmt::format("{}{},{}", points.empty() ? "" : " ", num(axis.x(s.at)), num(y));
    }
    flush();
  }
}

// One invisible column per sample, the whole height, with every figure of the sample on hover.
void write_sample_columns(const Timeline& t, const TimeAxis& axis, double bottom, std::ostream& out) {
  for (const models::TimeSample& s : t.series) {
    const SimTime from = std::max<SimTime>(0, s.at - t.sample_interval);
    std::string tip = fmt::format("{} to {}", format_time(from), format_time(s.at));
    for (const TimeSeriesColumn& c : timeseries_columns()) {
      const std::optional<double> v = c.value(s);
      tip += fmt::format("\n{}: {}", c.label, v ? figure(*v) + " " + std::string(c.chart) : "none");
    }
    fmt::print(out, R"~(<rect class="hit" x="{}" y="{}" width="{}" height="{}" data-a="{}" data-b="{}" data-tip="{}"/>)~",
               num(axis.x(from)), num(kChartsTop), num(std::max(1.0, axis.x(s.at) - axis.x(from))), num(bottom - kChartsTop),
               ms(from), ms(s.at), esc(tip));
    fmt::print(out, "\n");
  }
}

}  // namespace

void write_charts(const Timeline& t, std::ostream& out) {
  if (t.series.empty()) {
    fmt::print(out, "<p class=\"none\">No time series: the scenario has no Kafka cluster.</p>\n");
    return;
  }
  std::vector<std::string_view> units;
  for (const TimeSeriesColumn& c : timeseries_columns()) {
    if (std::find(units.begin(), units.end(), c.chart) == units.end()) units.push_back(c.chart);
  }
  const TimeAxis axis{0, std::max<SimTime>(t.end, 1)};
  const double height = kChartsTop + static_cast<double>(units.size()) * (kChartHeight + kChartGap) + 10;
  fmt::print(out, R"~(<svg id="charts" class="zoomable" width="{}" height="{}" xmlns="http://www.w3.org/2000/svg">)~",
             num(TimeAxis::kPageWidth), num(height));
  fmt::print(out, "\n<defs><clipPath id=\"chartplot\"><rect x=\"{}\" y=\"0\" width=\"{}\" height=\"{}\"/></clipPath></defs>\n",
             num(TimeAxis::kLeft), num(TimeAxis::kWidth), num(height));
  write_axis(kChartsTop - 4, height - 10, out);
  fmt::print(out, "<g clip-path=\"url(#chartplot)\">\n");
  write_fault_bands(t, axis, kChartsTop, height - 10, out);
  fmt::print(out, "</g>\n");
  for (std::size_t i = 0; i < units.size(); ++i) {
    write_chart(t, axis, units[i], kChartsTop + kChartGap + static_cast<double>(i) * (kChartHeight + kChartGap), out);
  }
  fmt::print(out, "<g clip-path=\"url(#chartplot)\">\n");
  write_sample_columns(t, axis, height - 10, out);
  fmt::print(out, "</g>\n<line class=\"cursor\" x1=\"0\" x2=\"0\" y1=\"{}\" y2=\"{}\"/>\n", num(kChartsTop), num(height - 10));
  fmt::print(out, "<rect class=\"selection\" x=\"0\" y=\"{}\" width=\"0\" height=\"{}\"/>\n</svg>\n", num(kChartsTop), num(height - 10 - kChartsTop));
}

}  // namespace ksim::app::timeline
