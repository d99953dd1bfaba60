#pragma once
// A one-line progress bar for a sweep, redrawn in place on stderr. It is
// drawn only on a terminal: in a CI log or a test's captured stderr a bar
// redrawn four times a second is noise.
#include <chrono>
#include <cstddef>
#include <ostream>

namespace ksim::app::sweep {

class Progress {
 public:
  // Enabled when `enabled` and stderr is a terminal.
  Progress(std::ostream& err, std::size_t total, bool enabled);
  // Finishes the line, so that an error thrown through the sweep starts on a line of its own.
  ~Progress() { finish(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool enabled() const { return enabled_; }
  double elapsed_s() const;

  void set_done(std::size_t done);
  void redraw();
  // Ends the bar's line, so what follows starts on a line of its own. Once.
  void finish();

 private:
  std::ostream& err_;
  std::size_t total_;
  std::size_t done_ = 0;
  bool enabled_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace ksim::app::sweep
