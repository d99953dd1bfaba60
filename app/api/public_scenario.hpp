#pragma once
// What a ksim::Scenario holds (include/ksim/scenario.hpp): where it comes
// from, the overrides in order, and the scenario as last read.
#include <string>
#include <vector>

#include "app/scenario/scenario.hpp"
#include "ksim/scenario.hpp"

namespace ksim {

struct Scenario::Impl {
  bool from_file = false;
  std::string source;     // the path, or the YAML text
  std::string file_name;  // for errors
  std::vector<std::string> overrides;  // "key=value", as --set
  app::Scenario scenario;

  void read();  // throws ScenarioError
};

}  // namespace ksim
