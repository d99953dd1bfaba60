#pragma once
// The event queue: a strict total order on (time, insertion sequence), so
// events at the same instant run first-in first-out. Callbacks live inline in
// a pool of slots that is reused, so scheduling allocates nothing once warm.
#include <cassert>
#include <cstdint>
#include <vector>

#include "sim/inline_function.hpp"
#include "sim/time.hpp"

namespace ksim {

using EventCallback = InlineFunction<64>;

// Identifies a scheduled event so it can be cancelled. A default TimerId never matches.
struct TimerId {
  std::uint32_t slot = 0;
  std::uint32_t generation = 0;
  explicit operator bool() const { return generation != 0; }
  friend bool operator==(TimerId, TimerId) = default;
};

class EventQueue {
 public:
  EventQueue();

  SimTime now() const { return now_; }
  std::uint64_t events_executed() const { return executed_; }
  std::size_t pending() const { return live_; }
  bool empty() const { return live_ == 0; }

  TimerId schedule_at(SimTime when, EventCallback callback);
  TimerId schedule_after(SimTime delay, EventCallback callback) {
    assert(delay >= 0);
    return schedule_at(now_ + delay, std::move(callback));
  }
  // Returns true when the event was still pending and is now cancelled.
  bool cancel(TimerId id);
  bool is_pending(TimerId id) const;

  // Time of the next live event, or kNever.
  SimTime next_time();
  // Runs the next event; returns false when there is none.
  bool step();
  // Runs every event due at or before `until`, then advances the clock to `until`.
  void run_until(SimTime until);

 private:
  struct Entry {
    SimTime time;
    std::uint64_t sequence;
    std::uint32_t slot;
    std::uint32_t generation;
  };
  struct Slot {
    EventCallback callback;
    std::uint32_t generation = 1;
    std::uint32_t next_free = kNoSlot;
  };
  static constexpr std::uint32_t kNoSlot = UINT32_MAX;
  static constexpr std::size_t kArity = 4;

  static bool earlier(const Entry& a, const Entry& b) {
    return a.time < b.time || (a.time == b.time && a.sequence < b.sequence);
  }
  bool is_live(const Entry& e) const { return slots_[e.slot].generation == e.generation; }

  std::uint32_t allocate_slot();
  void release_slot(std::uint32_t slot);
  void push_entry(const Entry& e);
  void pop_entry();
  void drop_stale_top();
  void compact_if_mostly_stale();

  std::vector<Entry> heap_;  // 4-ary min-heap on (time, sequence)
  std::vector<Slot> slots_;
  std::uint32_t free_head_ = kNoSlot;
  SimTime now_ = 0;
  std::uint64_t next_sequence_ = 0;
  std::uint64_t executed_ = 0;
  std::size_t live_ = 0;
};

}  // namespace ksim
