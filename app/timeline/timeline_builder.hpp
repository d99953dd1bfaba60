#pragma once
// Fills a Timeline row by row, keeping it drawable on a big run: rows are
// found by name, spans are opened and closed as states begin and end (one
// open span per row and kind), and each row keeps at most kMaxItemsPerRow
// spans and marks; what is left out is counted and said in the notes.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "app/timeline/timeline.hpp"

namespace ksim::app::timeline {

class TimelineBuilder {
 public:
  static constexpr std::size_t kMaxItemsPerRow = 1500;

  // A new row; row(name) finds it when `findable` and no row before it has that name.
  std::size_t add_row(std::string name, RowKind kind, bool findable = true);
  std::optional<std::size_t> row(const std::string& name) const;

  // Opens a span of `kind` on `row` (closing one of that kind still open).
  void open(std::size_t row, std::string kind, SimTime at, std::string label, std::string detail = {}, int color = -1);
  void close(std::size_t row, const std::string& kind, SimTime at);
  bool is_open(std::size_t row, const std::string& kind) const { return open_.contains({row, kind}); }
  void span(Span span);
  void mark(std::size_t row, std::string kind, SimTime at, std::string label, std::string detail = {});
  // A count's new value; several at one instant keep the last.
  void step(std::size_t row, SimTime at, double value);
  void note(std::string text) { timeline_.notes.push_back(std::move(text)); }

  Timeline& timeline() { return timeline_; }
  // Closes what is still open at `end`, says what was left out, and hands the timeline over.
  Timeline finish(SimTime end);

 private:
  bool room(std::size_t row);

  Timeline timeline_;
  std::map<std::string, std::size_t> rows_;
  struct Open {
    SimTime since = 0;
    std::string label, detail;
    int color = -1;
  };
  std::map<std::pair<std::size_t, std::string>, Open> open_;
  std::map<std::size_t, std::size_t> items_;      // by row: spans and marks kept
  std::map<std::size_t, std::size_t> left_out_;   // by row: beyond the cap
  std::map<std::size_t, std::size_t> last_step_;  // by row: its last step's index
};

}  // namespace ksim::app::timeline
