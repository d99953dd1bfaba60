#pragma once
// A list of names in a scenario (racks, fault targets, links), checked
// against the names the scenario knows, with a suggestion for a typo.
#include <string>
#include <string_view>
#include <vector>

#include "app/scenario/config_reader.hpp"

namespace ksim::app {

// `key`'s list of names, or `default_value` when absent; an empty list is an
// error, and so is a name not in `valid` (when given).
std::vector<std::string> read_names(config::MapReader& in, std::string_view key, std::vector<std::string> default_value,
                                    const std::vector<std::string>* valid = nullptr);

}  // namespace ksim::app
