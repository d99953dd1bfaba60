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
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
