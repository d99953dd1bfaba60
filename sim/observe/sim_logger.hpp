#pragma once
// spdlog logging stamped with simulated time and the node's name, never the wall clock.
#include <memory>
#include <string_view>

#include <spdlog/spdlog.h>

#include "sim/events/event_queue.hpp"

namespace ksim {

class SimLogger {
 public:
  SimLogger(const EventQueue& clock, spdlog::level::level_enum level);

  void set_level(spdlog::level::level_enum level) { logger_->set_level(level); }
  bool enabled(spdlog::level::level_enum level) const { return logger_->should_log(level); }

  template <class... Args>
  void log(spdlog::level::level_enum level, std::string_view who, fmt::format_string<Args...> format,
           Args&&... args) {
    if (!logger_->should_log(level)) return;
    logger_->log(level, "[{:>16.9f}s] [{}] {}", to_seconds(clock_.now()), who,
                 fmt::format(format, std::forward<Args>(args)...));
  }
  template <class... Args>
  void debug(std::string_view who, fmt::format_string<Args...> format, Args&&... args) {
    log(spdlog::level::debug, who, format, std::forward<Args>(args)...);
  }
  template <class... Args>
  void info(std::string_view who, fmt::format_string<Args...> format, Args&&... args) {
    log(spdlog::level::info, who, format, std::forward<Args>(args)...);
  }
  template <class... Args>
  void warn(std::string_view who, fmt::format_string<Args...> format, Args&&... args) {
    log(spdlog::level::warn, who, format, std::forward<Args>(args)...);
  }

 private:
  const EventQueue& clock_;
  std::shared_ptr<spdlog::logger> logger_;
};

}  // namespace ksim
