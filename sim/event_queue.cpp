#include "sim/event_queue.hpp"

#include <algorithm>

namespace ksim {

EventQueue::EventQueue() {
  heap_.reserve(1024);
  slots_.reserve(1024);
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
  ++s.generation;
  if (s.generation == 0) s.generation = 1;  // generation 0 is the invalid TimerId
  s.next_free = free_head_;
  free_head_ = slot;
}

TimerId EventQueue::schedule_at(SimTime when, EventCallback callback) {
  assert(when >= now_ && "cannot schedule in the past");
  assert(callback);
  const std::uint32_t slot = allocate_slot();
  slots_[slot].callback = std::move(callback);
  const std::uint32_t generation = slots_[slot].generation;
  push_entry(Entry{when, next_sequence_++, slot, generation});
  ++live_;
  return TimerId{slot, generation};
}

bool EventQueue::is_pending(TimerId id) const {
  return id && id.slot < slots_.size() && slots_[id.slot].generation == id.generation;
}

bool EventQueue::cancel(TimerId id) {
  if (!is_pending(id)) return false;
  release_slot(id.slot);  // the heap entry goes stale and is skipped or compacted away
  --live_;
  compact_if_mostly_stale();
  return true;
}

SimTime EventQueue::next_time() {
  drop_stale_top();
  return heap_.empty() ? kNever : heap_.front().time;
}

bool EventQueue::step() {
  drop_stale_top();
  if (heap_.empty()) return false;
  const Entry top = heap_.front();
  pop_entry();
  // Move the callback out first: it may schedule events that grow the slot pool.
  EventCallback callback = std::move(slots_[top.slot].callback);
  release_slot(top.slot);
  --live_;
  now_ = top.time;
  ++executed_;
  callback();
  return true;
}

void EventQueue::run_until(SimTime until) {
  while (next_time() <= until) step();
  if (until > now_) now_ = until;
}

void EventQueue::drop_stale_top() {
  while (!heap_.empty() && !is_live(heap_.front())) pop_entry();
}

// Cancelled entries stay in the heap until popped; when they outnumber the
// live ones (request timeouts are cancelled far more often than they fire),
// rebuild the heap from the live entries. Order is unaffected: it is total.
void EventQueue::compact_if_mostly_stale() {
  const std::size_t stale = heap_.size() - live_;
  if (stale < 4096 || stale < live_) return;
  std::erase_if(heap_, [this](const Entry& e) { return !is_live(e); });
  std::vector<Entry> entries;
  entries.swap(heap_);
  for (const Entry& e : entries) push_entry(e);
}

void EventQueue::push_entry(const Entry& e) {
  std::size_t i = heap_.size();
  heap_.push_back(e);
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!earlier(e, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

void EventQueue::pop_entry() {
  const Entry last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return;
  std::size_t i = 0;
  while (true) {
    const std::size_t first_child = i * kArity + 1;
    if (first_child >= n) break;
    const std::size_t end = std::min(first_child + kArity, n);
    std::size_t best = first_child;
    for (std::size_t c = first_child + 1; c < end; ++c) {
      if (earlier(heap_[c], heap_[best])) best = c;
    }
    if (!earlier(heap_[best], last)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = last;
}

}  // namespace ksim
