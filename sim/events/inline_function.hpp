#pragma once
// A move-only, type-erased `void()` callable stored inline, never on the heap.
// Event callbacks capture a few pointers and ids; a capture that does not fit
// is a compile-time error, which keeps the event loop free of allocation.
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace ksim {

template <std::size_t Capacity>
class InlineFunction {
 public:
  InlineFunction() = default;

  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, InlineFunction>>>
  InlineFunction(F&& f) {  // NOLINT: implicit by design, like std::function
    using Stored = std::decay_t<F>;
    static_assert(sizeof(Stored) <= Capacity, "callback capture too large for InlineFunction");
    static_assert(alignof(Stored) <= alignof(std::max_align_t));
    static_assert(std::is_nothrow_move_constructible_v<Stored>);
    ::new (static_cast<void*>(storage_)) Stored(std::forward<F>(f));
    ops_ = &kOps<Stored>;
  }

  InlineFunction(InlineFunction&& other) noexcept { take(other); }
  InlineFunction& operator=(InlineFunction&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  InlineFunction(const InlineFunction&) = delete;
  InlineFunction& operator=(const InlineFunction&) = delete;
  ~InlineFunction() { reset(); }

  explicit operator bool() const { return ops_ != nullptr; }
  void operator()() { ops_->invoke(storage_); }

  void reset() {
    if (ops_) {
      ops_->destroy(storage_);
      ops_ = nullptr;
    }
  }

 private:
  struct Ops {
    void (*invoke)(void*);
    void (*relocate)(void* to, void* from);  // move-construct into `to`, destroy `from`
    void (*destroy)(void*);
  };

  template <class T>
  static constexpr Ops kOps{
      [](void* p) { (*static_cast<T*>(p))(); },
      [](void* to, void* from) {
        ::new (to) T(std::move(*static_cast<T*>(from)));
        static_cast<T*>(from)->~T();
      },
      [](void* p) { static_cast<T*>(p)->~T(); },
  };

  void take(InlineFunction& other) {
    if (other.ops_) {
      other.ops_->relocate(storage_, other.storage_);
      ops_ = other.ops_;
      other.ops_ = nullptr;
    }
  }

  alignas(std::max_align_t) unsigned char storage_[Capacity];
  const Ops* ops_ = nullptr;
};

}  // namespace ksim
