#include "sim/resources/io_pool.hpp"

#include <algorithm>
#include <cassert>

namespace ksim {

IoPool::IoPool(int threads) : thread_free_at_(static_cast<std::size_t>(std::max(threads, 1)), 0) { assert(threads > 0); }

SimTime IoPool::run(SimTime now, SimTime duration) {
  assert(duration >= 0);
  const auto thread = std::min_element(thread_free_at_.begin(), thread_free_at_.end());
  *thread = std::max(now, *thread) + duration;
  ++jobs_;
  return *thread;
}

SimTime IoPool::next_start(SimTime now) const {
  return std::max(now, *std::min_element(thread_free_at_.begin(), thread_free_at_.end()));
}

void IoPool::reset(SimTime now) {
  for (SimTime& t : thread_free_at_) t = std::min(t, now);
}

}  // namespace ksim
