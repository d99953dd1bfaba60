#pragma once
// Runs jobs as child processes, a bounded number at a time, collecting each
// one's stdout and stderr through pipes. A sweep runs `ksim run --json` this
// way: processes rather than threads because a simulation keeps global state
// (its logger) and because a crash or an assertion in one run must not take
// the sweep's other results with it unnoticed.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace ksim::app::sweep {

struct Job {
  std::size_t id = 0;
  std::vector<std::string> arguments;  // without argv[0]
};

struct Finished {
  std::size_t id = 0;
  int exit_status = -1;  // -1 when a signal ended the process
  int signal = 0;        // the signal, or 0
  std::string out;
  std::string err;
  double process_wall_s = 0;  // from spawn to exit, as the parent saw it
};

struct PoolOptions {
  std::string binary;    // the program to run, e.g. /proc/self/exe
  std::size_t parallel = 1;
  std::function<void()> on_tick;  // called about four times a second, for a progress bar
};

// Runs the jobs in order, at most `parallel` at once, and calls on_finish as
// each ends (in completion order). When on_finish returns false the pool
// stops: the children still running are sent SIGTERM and waited for.
// Throws SweepError when a child cannot be started.
void run_jobs(const std::vector<Job>& jobs, const PoolOptions& options,
              const std::function<bool(Finished&&)>& on_finish);

}  // namespace ksim::app::sweep
