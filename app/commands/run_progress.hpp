#pragma once
// A progress line for a long `ksim run`, redrawn in place on stderr: how much
// simulated time is done, events per wall second, and an estimate of the wall
// time left. Only on a terminal, only once a run has taken a second (a quick
// run shows nothing), at most four redraws a second. It reads the wall clock,
// which never reaches the simulation.
#include <chrono>
#include <cstdint>
#include <ostream>

#include "sim/events/time.hpp"

namespace ksim::app {

class RunProgress {
 public:
  // Enabled when `enabled` and stderr is a terminal.
  RunProgress(std::ostream& err, SimTime end, bool enabled);
  ~RunProgress() { finish(); }
  RunProgress(const RunProgress&) = delete;
  RunProgress& operator=(const RunProgress&) = delete;

  bool enabled() const { return enabled_; }
  // The simulation reached `now` after `events` events.
  void update(SimTime now, std::uint64_t events);
  // Clears the line, so the report starts on a clean one. Once.
  void finish();

  // The line as drawn (for tests): "[######........] 12.0s of 40.0s simulated, 1.2M events/s, 0:05 elapsed, 0:12 left".
  static std::string line(SimTime now, SimTime end, std::uint64_t events, double elapsed_s);

 private:
  std::ostream& err_;
  SimTime end_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace ksim::app
