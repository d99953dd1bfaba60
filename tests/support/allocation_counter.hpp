#pragma once
#include <cstdint>

namespace ksim::testing {
extern std::uint64_t allocations;  // heap allocations so far in this process
}
