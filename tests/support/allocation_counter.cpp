// Counts heap allocations in the test binary, so tests can prove that a hot
// path allocates nothing. Single-threaded, like every simulation.
#include <cstdlib>
#include <new>

#include "tests/support/allocation_counter.hpp"

namespace ksim::testing {
std::uint64_t allocations = 0;
}

void* operator new(std::size_t size) {
  ++ksim::testing::allocations;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
// The nothrow forms too (Catch2 allocates with new(std::nothrow)): left to the
// library, they allocate with an allocator that is not malloc, ASan's under
// the sanitizers, and the replaced delete below would free() what they gave.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  ++ksim::testing::allocations;
  return std::malloc(size ? size : 1);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return operator new(size, tag); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
