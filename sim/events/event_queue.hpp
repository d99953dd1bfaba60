#pragma once
// The event queue: a strict total order on (time, insertion sequence), so
// events at the same instant run first-in first-out. Callbacks live inline in
// a pool of slots that is reused, so scheduling allocates nothing once warm.
//
// The priority queue is a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan,
// 1990), which fits an event queue because time never goes back: bucket b
// holds the events whose time first differs from the last popped time in
// bit b-1 (bucket 0: equal times). Inserting appends to a bucket; popping
// takes bucket 0 from the front, refilling it from the lowest non-empty
// bucket. Every bucket stays in insertion order (appends, and stable
// redistribution into empty lower buckets), which gives FIFO on ties with
// no sequence numbers, and all work is sequential scans: with 100k+ pending
// events it does not suffer the cache misses of a binary heap.
#include <array>
#include <cassert>
#include <cstdint>
#include <vector>

#include "sim/events/inline_function.hpp"
#include "sim/events/time.hpp"

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
  static constexpr std::uint32_t kNoSlot = UINT32_MAX;
  static constexpr int kBuckets = 65;

  struct Entry {
    SimTime time;
    std::uint32_t slot;
  };
  struct Slot {
    EventCallback callback;
    std::uint32_t generation = 1;
    std::uint32_t next_free = kNoSlot;
    bool cancelled = false;  // its entry is a tombstone; the slot is freed when the entry leaves
  };

  int bucket_of(SimTime time) const;
  std::uint32_t allocate_slot();
  void release_slot(std::uint32_t slot);
  // Makes the front of bucket 0 the next live event; false when none is left.
  bool refill();
  void rebase(SimTime when);  // lowers `last_` to `when`, re-bucketing every entry
  void compact_if_mostly_cancelled();

  std::array<std::vector<Entry>, kBuckets> buckets_;
  std::size_t front_ = 0;  // bucket 0 is consumed from here
  SimTime last_ = 0;       // time of the last minimum taken; no entry is earlier
  std::size_t entries_ = 0;  // live and cancelled entries in the buckets
  std::vector<Slot> slots_;
  std::uint32_t free_head_ = kNoSlot;
  SimTime now_ = 0;
  std::uint64_t executed_ = 0;
  std::size_t live_ = 0;
};

}  // namespace ksim
