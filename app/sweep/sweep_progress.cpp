#include "app/sweep/sweep_progress.hpp"

#include <unistd.h>

#include <string>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace ksim::app::sweep {

namespace {

std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(seconds);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}

}  // namespace

Progress::Progress(std::ostream& err, std::size_t total, bool enabled)
    : err_(err), total_(total), enabled_(enabled && ::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()) {}

double Progress::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::set_done(std::size_t done) {
  done_ = done;
  redraw();
}

void Progress::redraw() {
  if (!enabled_ || finished_) return;
  constexpr std::size_t kWidth = 30;
  const std::size_t filled = total_ == 0 ? kWidth : done_ * kWidth / total_;
  const double elapsed = elapsed_s();
  const std::string eta =
      done_ == 0 ? "" : fmt::format(", {} left", clock_text(elapsed / static_cast<double>(done_) *
                                                             static_cast<double>(total_ - done_)));
  fmt::print(err_, "\r[{}{}] {}/{} runs, {} elapsed{}\x1b[K", std::string(filled, '#'),
             std::string(kWidth - filled, '.'), done_, total_, clock_text(elapsed), eta);
  err_.flush();
}

void Progress::finish() {
  if (!enabled_ || finished_) return;
  redraw();
  err_ << '\n';
  finished_ = true;
}

}  // namespace ksim::app::sweep
