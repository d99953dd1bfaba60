#include "sim/events/event_queue.hpp"

#include <algorithm>
#include <bit>

namespace ksim {

EventQueue::EventQueue() { slots_.reserve(1024); }

int EventQueue::bucket_of(SimTime time) const {
  const auto differing = static_cast<std::uint64_t>(time ^ last_);
  return differing == 0 ? 0 : 64 - std::countl_zero(differing);
}

std::uint32_t EventQueue::allocate_slot() {
  if (free_head_ != kNoSlot) {
    const std::uint32_t slot = free_head_;
    free_head_ = slots_[slot].next_free;
    return slot;
  }
  slots_.emplace_back();
  return static_cast<std::uint32_t>(slots_.size() - 1);
}

void EventQueue::release_slot(std::uint32_t slot) {
  Slot& s = slots_[slot];
  s.callback.reset();
  s.cancelled = false;
  ++s.generation;
  if (s.generation == 0) s.generation = 1;  // generation 0 is the invalid TimerId
  s.next_free = free_head_;
  free_head_ = slot;
}

TimerId EventQueue::schedule_at(SimTime when, EventCallback callback) {
  assert(when >= now_ && "cannot schedule in the past");
  assert(callback);
  if (when < last_) rebase(when);
  const std::uint32_t slot = allocate_slot();
  slots_[slot].callback = std::move(callback);
  buckets_[static_cast<std::size_t>(bucket_of(when))].push_back(Entry{when, slot});
  ++entries_;
  ++live_;
  return TimerId{slot, slots_[slot].generation};
}

bool EventQueue::is_pending(TimerId id) const {
  if (!id || id.slot >= slots_.size()) return false;
  const Slot& s = slots_[id.slot];
  return s.generation == id.generation && !s.cancelled && s.callback;
}

bool EventQueue::cancel(TimerId id) {
  if (!is_pending(id)) return false;
  Slot& s = slots_[id.slot];
  s.cancelled = true;
  s.callback.reset();
  --live_;
  compact_if_mostly_cancelled();
  return true;
}

bool EventQueue::refill() {
  std::vector<Entry>& zero = buckets_[0];
  while (true) {
    while (front_ < zero.size() && slots_[zero[front_].slot].cancelled) {
      release_slot(zero[front_++].slot);
      --entries_;
    }
    if (front_ < zero.size()) return true;
    zero.clear();
    front_ = 0;
    std::size_t b = 1;
    while (b < buckets_.size() && buckets_[b].empty()) ++b;
    if (b == buckets_.size()) return false;
    // The new minimum becomes `last_`; this bucket's entries all move to lower
    // buckets, which are empty, in their order: each bucket stays FIFO.
    std::vector<Entry> moving;
    moving.swap(buckets_[b]);
    last_ = std::min_element(moving.begin(), moving.end(),
                             [](const Entry& x, const Entry& y) { return x.time < y.time; })->time;
    for (const Entry& e : moving) buckets_[static_cast<std::size_t>(bucket_of(e.time))].push_back(e);
    moving.clear();
    moving.swap(buckets_[b]);  // keep the capacity for later appends
  }
}

// Every entry is at or after `last_`, which refill() moves to the next
// minimum. Between two run_until() calls the clock may stop short of it, and
// an event scheduled then, before `last_`, would land in the wrong bucket and
// run late. Rebuild the buckets from the new, earlier minimum (rare: only
// events scheduled from outside the loop get here). Entries of one time share
// a bucket and keep their order, so the queue stays FIFO on ties.
void EventQueue::rebase(SimTime when) {
  std::vector<Entry> all;
  all.reserve(entries_);
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    std::vector<Entry>& bucket = buckets_[b];
    all.insert(all.end(), bucket.begin() + static_cast<std::ptrdiff_t>(b == 0 ? front_ : 0), bucket.end());
    bucket.clear();
  }
  front_ = 0;
  last_ = when;
  std::stable_sort(all.begin(), all.end(), [](const Entry& x, const Entry& y) { return x.time < y.time; });
  for (const Entry& e : all) buckets_[static_cast<std::size_t>(bucket_of(e.time))].push_back(e);
}

SimTime EventQueue::next_time() { return refill() ? buckets_[0][front_].time : kNever; }

bool EventQueue::step() {
  if (!refill()) return false;
  const Entry next = buckets_[0][front_++];
  --entries_;
  // Move the callback out first: it may schedule events that grow the slot pool.
  EventCallback callback = std::move(slots_[next.slot].callback);
  release_slot(next.slot);
  --live_;
  now_ = next.time;
  ++executed_;
  callback();
  return true;
}

void EventQueue::run_until(SimTime until) {
  while (next_time() <= until) step();
  if (until > now_) now_ = until;
}

// Cancelled entries stay as tombstones until they reach the front; when they
// outnumber the live ones (request timeouts are cancelled far more often than
// they fire), drop them all. Filtering is stable, so order is kept.
void EventQueue::compact_if_mostly_cancelled() {
  const std::size_t cancelled = entries_ - live_;
  if (cancelled < 4096 || cancelled < live_) return;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    std::vector<Entry>& bucket = buckets_[b];
    const std::size_t start = b == 0 ? front_ : 0;
    std::size_t kept = start;
    for (std::size_t i = start; i < bucket.size(); ++i) {
      if (slots_[bucket[i].slot].cancelled) {
        release_slot(bucket[i].slot);
      } else {
        bucket[kept++] = bucket[i];
      }
    }
    bucket.resize(kept);
  }
  entries_ = live_;  // every tombstone is gone
}

}  // namespace ksim
