#include "app/timeline/timeline_builder.hpp"

#include <cassert>

#include <fmt/format.h>

namespace ksim::app::timeline {

std::size_t TimelineBuilder::add_row(std::string name, RowKind kind, bool findable) {
  const std::size_t row = timeline_.rows.size();
  if (findable) rows_.emplace(name, row);
  timeline_.rows.push_back({std::move(name), kind});
  return row;
}

std::optional<std::size_t> TimelineBuilder::row(const std::string& name) const {
  const auto it = rows_.find(name);
  return it == rows_.end() ? std::nullopt : std::optional(it->second);
}

bool TimelineBuilder::room(std::size_t row) {
  if (items_[row] < kMaxItemsPerRow) {
    ++items_[row];
    return true;
  }
  ++left_out_[row];
  return false;
}

void TimelineBuilder::open(std::size_t row, std::string kind, SimTime at, std::string label, std::string detail,
                           int color) {
  close(row, kind, at);
  open_[{row, std::move(kind)}] = Open{at, std::move(label), std::move(detail), color};
}

void TimelineBuilder::close(std::size_t row, const std::string& kind, SimTime at) {
  const auto it = open_.find({row, kind});
  if (it == open_.end()) return;
  Open o = std::move(it->second);
  open_.erase(it);
  span({row, o.since, at, kind, std::move(o.label), std::move(o.detail), o.color});
}

void TimelineBuilder::span(Span s) {
  assert(s.row < timeline_.rows.size() && s.start <= s.end);
  if (room(s.row)) timeline_.spans.push_back(std::move(s));
}

void TimelineBuilder::mark(std::size_t row, std::string kind, SimTime at, std::string label, std::string detail) {
  assert(row < timeline_.rows.size());
  if (room(row)) timeline_.marks.push_back({row, at, std::move(kind), std::move(label), std::move(detail)});
}

void TimelineBuilder::step(std::size_t row, SimTime at, double value) {
  const auto last = last_step_.find(row);
  if (last != last_step_.end() && timeline_.steps[last->second].at == at) {
    timeline_.steps[last->second].value = value;
    return;
  }
  last_step_[row] = timeline_.steps.size();
  timeline_.steps.push_back({row, at, value});
}

Timeline TimelineBuilder::finish(SimTime end) {
  while (!open_.empty()) {
    const auto [row, kind] = open_.begin()->first;
    close(row, kind, end);
  }
  timeline_.end = end;
  for (const auto& [row, count] : left_out_) {
    note(fmt::format("{}: {} more spans and marks than the {} drawn were left out", timeline_.rows[row].name, count,
                     kMaxItemsPerRow));
  }
  return std::move(timeline_);
}

}  // namespace ksim::app::timeline
