#pragma once
// Where the tests find the source tree's scenarios (KSIM_SOURCE_DIR, set by CMake).
#include <string>

namespace ksim::testing {

inline const std::string kScenarios = std::string(KSIM_SOURCE_DIR) + "/scenarios/";

}  // namespace ksim::testing
