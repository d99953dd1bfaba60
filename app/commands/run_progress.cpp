#include "app/commands/run_progress.hpp"

#include <unistd.h>

#include <string>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace ksim::app {

namespace {

std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(seconds);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}

std::string rate_text(double per_s) {
  if (per_s >= 1e6) return fmt::format("{:.1f}M", per_s / 1e6);
  if (per_s >= 1e3) return fmt::format("{:.1f}k", per_s / 1e3);
  return fmt::format("{:.0f}", per_s);
}

}  // namespace

RunProgress::RunProgress(std::ostream& err, SimTime end, bool enabled)
    : err_(err), end_(end), enabled_(enabled && ::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

std::string RunProgress::line(SimTime now, SimTime end, std::uint64_t events, double elapsed_s) {
  constexpr std::int64_t kWidth = 30;
  const std::int64_t filled = end <= 0 ? kWidth : std::min<std::int64_t>(kWidth, now * kWidth / end);
  const double done = end <= 0 ? 1.0 : static_cast<double>(now) / static_cast<double>(end);
  const std::string left = done <= 0 ? "" : fmt::format(", {} left", clock_text(elapsed_s / done * (1 - done)));
  return fmt::format("[{}{}] {:.1f}s of {:.1f}s simulated, {} events/s, {} elapsed{}",
                     std::string(static_cast<std::size_t>(filled), '#'),
                     std::string(static_cast<std::size_t>(kWidth - filled), '.'), to_seconds(now), to_seconds(end),
                     rate_text(elapsed_s > 0 ? static_cast<double>(events) / elapsed_s : 0), clock_text(elapsed_s),
                     left);
}

void RunProgress::update(SimTime now, std::uint64_t events) {
  if (!enabled_) return;
  const auto wall = std::chrono::steady_clock::now();
  if (wall - start_ < std::chrono::seconds(1) || wall - last_draw_ < std::chrono::milliseconds(250)) return;
  last_draw_ = wall;
  drawn_ = true;
  fmt::print(err_, "\r{}\x1b[K", line(now, end_, events, std::chrono::duration<double>(wall - start_).count()));
  err_.flush();
}

void RunProgress::finish() {
  if (!drawn_) return;
  err_ << "\r\x1b[K";
  err_.flush();
  drawn_ = false;
}

}  // namespace ksim::app
