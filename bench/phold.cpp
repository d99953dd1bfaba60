#include "bench/phold.hpp"

#include <chrono>
#include <string>
#include <vector>

#include "sim/events/event_queue.hpp"
#include "sim/random/random.hpp"

namespace ksim::bench {

namespace {

class Phold {
 public:
  explicit Phold(const PholdOptions& options) : options_(options), rng_(RandomStream::derive(options.seed, "phold")) {
    handled_.assign(options.lps, 0);
  }

  void seed_events() {
    for (std::uint32_t lp = 0; lp < options_.lps; ++lp) {
      for (std::uint32_t i = 0; i < options_.population; ++i) schedule_to(lp);
    }
  }

  void run() {
    while (queue_.events_executed() < options_.events && queue_.step()) {}
  }

  std::uint64_t checksum() const {
    std::uint64_t sum = 0;
    for (std::size_t lp = 0; lp < handled_.size(); ++lp) sum += handled_[lp] * (lp + 1);
    return sum;
  }
  std::uint64_t executed() const { return queue_.events_executed(); }

 private:
  void schedule_to(std::uint32_t lp) {
    const auto delay = static_cast<SimTime>(rng_.exponential(options_.mean_delay_ns));
    queue_.schedule_after(delay, [this, lp] { handle(lp); });
  }
  void handle(std::uint32_t lp) {
    ++handled_[lp];
    schedule_to(static_cast<std::uint32_t>(rng_.below(options_.lps)));
  }

  PholdOptions options_;
  EventQueue queue_;
  RandomStream rng_;
  std::vector<std::uint64_t> handled_;
};

}  // namespace

PholdResult run_phold(const PholdOptions& options) {
  Phold model(options);
  model.seed_events();
  // Wall-clock time measures the benchmark only; it never reaches the simulation.
  const auto start = std::chrono::steady_clock::now();
  model.run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  PholdResult result;
  result.events = model.executed();
  result.wall_s = wall;
  result.events_per_second = wall > 0 ? static_cast<double>(result.events) / wall : 0;
  result.checksum = model.checksum();
  return result;
}

}  // namespace ksim::bench
