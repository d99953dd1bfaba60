#include "app/timeline/timeline.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

namespace ksim::app::timeline {

std::string_view to_string(RowKind kind) {
  switch (kind) {
    case RowKind::Faults: return "faults";
    case RowKind::Broker: return "brokers";
    case RowKind::Controller: return "controller";
    case RowKind::Partition: return "partitions";
    case RowKind::Producer: return "producers";
    case RowKind::Consumer: return "consumers";
    case RowKind::Group: return "groups";
    case RowKind::Node: return "request/response nodes";
    case RowKind::Anomalies: return "anomalies";
  }
  return "?";
}

std::vector<std::uint32_t> assign_lanes(const Timeline& timeline, std::vector<std::uint32_t>& lanes) {
  std::vector<std::size_t> order(timeline.spans.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Span& x = timeline.spans[a];
    const Span& y = timeline.spans[b];
    if (x.row != y.row) return x.row < y.row;
    return x.start != y.start ? x.start < y.start : x.end > y.end;  // the longer first: a row's long spans keep lane 0
  });
  std::vector<std::uint32_t> lane_of(timeline.spans.size(), 0);
  lanes.assign(timeline.rows.size(), 1);
  std::vector<SimTime> lane_end;  // of the row being laid out
  std::size_t row = static_cast<std::size_t>(-1);
  for (const std::size_t i : order) {
    const Span& s = timeline.spans[i];
    if (s.row != row) {
      row = s.row;
      lane_end.clear();
    }
    std::size_t lane = 0;
    while (lane < lane_end.size() && lane_end[lane] > s.start) ++lane;
    if (lane == lane_end.size()) lane_end.push_back(s.end);
    lane_end[lane] = std::max(s.end, s.start + 1);
    lane_of[i] = static_cast<std::uint32_t>(lane);
    lanes[s.row] = std::max(lanes[s.row], static_cast<std::uint32_t>(lane_end.size()));
  }
  return lane_of;
}

std::string group_row_name(std::string_view group) { return "group " + std::string(group); }

std::string format_time(SimTime t) {
  const auto trimmed = [](std::string text, std::string_view unit) {
    if (text.find('.') != std::string::npos) {
      while (text.back() == '0') text.pop_back();
      if (text.back() == '.') text.pop_back();
    }
    return text + std::string(unit);
  };
  if (t >= 1'000'000'000 || t <= -1'000'000'000) return trimmed(fmt::format("{:.6f}", static_cast<double>(t) / 1e9), "s");
  if (t >= 1'000'000 || t <= -1'000'000) return trimmed(fmt::format("{:.3f}", static_cast<double>(t) / 1e6), "ms");
  return trimmed(fmt::format("{:.3f}", static_cast<double>(t) / 1e3), "us");
}

}  // namespace ksim::app::timeline
