#include "sim/observe/sim_logger.hpp"

#include <spdlog/sinks/stdout_sinks.h>

namespace ksim {

SimLogger::SimLogger(const EventQueue& clock, spdlog::level::level_enum level) : clock_(clock) {
  auto sink = std::make_shared<spdlog::sinks::stderr_sink_st>();
  logger_ = std::make_shared<spdlog::logger>("ksim", std::move(sink));
  logger_->set_pattern("%^%-5l%$ %v");  // the time stamp is simulated time, added by log()
  logger_->set_level(level);
}

}  // namespace ksim
