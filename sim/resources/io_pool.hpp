#pragma once
// A pool of threads that wait on I/O outside the machine (a remote object
// store): a job holds one thread for its duration and no CPU core. As
// ThreadPool, a job's end is computed when it is submitted: it starts when a
// thread is free (the one free first, lowest index on ties), in submission order.
#include <cstdint>
#include <vector>

#include "sim/events/time.hpp"

namespace ksim {

class IoPool {
 public:
  explicit IoPool(int threads);

  int threads() const { return static_cast<int>(thread_free_at_.size()); }
  // Runs a job of `duration` submitted at `now`; returns when it ends.
  SimTime run(SimTime now, SimTime duration);
  // When a job submitted at `now` would start (its queueing delay ends).
  SimTime next_start(SimTime now) const;
  void reset(SimTime now);  // the process's jobs were dropped (a crash)
  std::uint64_t jobs() const { return jobs_; }

 private:
  std::vector<SimTime> thread_free_at_;
  std::uint64_t jobs_ = 0;
};

}  // namespace ksim
