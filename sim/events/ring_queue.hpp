#pragma once
// A FIFO queue on a circular buffer that doubles when full and never
// shrinks: once warm, pushing and popping allocate nothing (std::deque
// allocates and frees a block every few hundred bytes of traffic), and an
// empty one holds no memory (a std::deque holds 0.5 KiB from its construction).
// Elements are also reached by position from the front, and removed from the back.
#include <cassert>
#include <cstddef>
#include <utility>
#include <vector>

namespace ksim {

template <class T>
class RingQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  void push_back(T value) {
    if (size_ == slots_.size()) grow();
    slots_[(head_ + size_) & (slots_.size() - 1)] = std::move(value);
    ++size_;
  }
  T& front() {
    assert(size_ > 0);
    return slots_[head_];
  }
  const T& front() const {
    assert(size_ > 0);
    return slots_[head_];
  }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }
  // The element `i` places from the front.
  T& operator[](std::size_t i) {
    assert(i < size_);
    return slots_[(head_ + i) & (slots_.size() - 1)];
  }
  const T& operator[](std::size_t i) const {
    assert(i < size_);
    return slots_[(head_ + i) & (slots_.size() - 1)];
  }
  void pop_back() {
    assert(size_ > 0);
    back() = T{};
    --size_;
  }
  T pop_front() {
    assert(size_ > 0);
    T value = std::move(slots_[head_]);
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
    return value;
  }
  void clear() {
    while (!empty()) pop_front();
  }

 private:
  void grow() {
    std::vector<T> bigger(slots_.empty() ? 8 : slots_.size() * 2);  // a power of two
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = std::move(slots_[(head_ + i) & (slots_.size() - 1)]);
    slots_.swap(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace ksim
