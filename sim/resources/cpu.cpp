#include "sim/resources/cpu.hpp"

#include <algorithm>
#include <cassert>

namespace ksim {

Cpu::Cpu(int cores) : core_free_at_(static_cast<std::size_t>(cores), 0) { assert(cores > 0); }

SimTime Cpu::reserve(SimTime ready, SimTime cost) {
  assert(cost >= 0);
  // The core that frees first; ties go to the lowest index, so the choice is deterministic.
  const auto core = std::min_element(core_free_at_.begin(), core_free_at_.end());
  const SimTime start = std::max(ready, *core);
  *core = start + cost;
  busy_ns_ += cost;
  return start;
}

void Cpu::reset(SimTime now) {
  for (SimTime& t : core_free_at_) t = std::min(t, now);
}

ThreadPool::ThreadPool(int threads, Cpu& cpu) : thread_free_at_(static_cast<std::size_t>(threads), 0), cpu_(&cpu) {
  assert(threads > 0);
}

SimTime ThreadPool::run(SimTime now, SimTime cost, std::optional<std::size_t> thread) {
  const auto chosen = thread ? thread_free_at_.begin() + static_cast<std::ptrdiff_t>(*thread % thread_free_at_.size())
                             : std::min_element(thread_free_at_.begin(), thread_free_at_.end());
  const SimTime start = cpu_->reserve(std::max(now, *chosen), cost);
  *chosen = start + cost;
  busy_ns_ += cost;
  ++jobs_;
  return *chosen;
}

void ThreadPool::grow_to(std::size_t threads) {
  if (threads > thread_free_at_.size()) thread_free_at_.resize(threads, 0);
}

void ThreadPool::reset(SimTime now) {
  for (SimTime& t : thread_free_at_) t = std::min(t, now);
}

}  // namespace ksim
