#pragma once
// CPU time as a resource: a machine's cores, and the thread pools of a
// process that run on them. Work is known in advance (a cost in simulated
// nanoseconds), so a job's completion time can be computed when it is
// submitted: it starts when one of its pool's threads and one of the
// machine's cores are both free, and it runs to completion (non-preemptive
// list scheduling, in submission order). The caller schedules what follows
// the job at the time returned; no events are spent inside the pool.
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/events/time.hpp"

namespace ksim {

class Cpu {
 public:
  explicit Cpu(int cores);

  int cores() const { return static_cast<int>(core_free_at_.size()); }
  // The earliest time at or after `ready` when a core is free; reserves it for `cost`.
  SimTime reserve(SimTime ready, SimTime cost);
  SimTime busy_ns() const { return busy_ns_; }
  void reset(SimTime now);  // the machine's work was dropped (a crash)

 private:
  std::vector<SimTime> core_free_at_;
  SimTime busy_ns_ = 0;
};

class ThreadPool {
 public:
  ThreadPool(int threads, Cpu& cpu);

  int threads() const { return static_cast<int>(thread_free_at_.size()); }
  // Runs a job of `cost` submitted at `now`, on any thread or on the given one
  // (Kafka pins a connection to one network processor); returns when it ends.
  SimTime run(SimTime now, SimTime cost, std::optional<std::size_t> thread = std::nullopt);
  // Starts threads, idle, until there are `threads` (a pool that grows as work asks for new threads).
  void grow_to(std::size_t threads);
  SimTime busy_ns() const { return busy_ns_; }
  std::uint64_t jobs() const { return jobs_; }
  void reset(SimTime now);

 private:
  std::vector<SimTime> thread_free_at_;
  Cpu* cpu_;
  SimTime busy_ns_ = 0;
  std::uint64_t jobs_ = 0;
};

}  // namespace ksim
