#pragma once
// A list of names in a scenario (racks, fault targets, links), checked
// against the names the scenario knows, with a suggestion for a typo.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/scenario/config_reader.hpp"

namespace ksim::app {

// `key`'s list of names, or `default_value` when absent; an empty list is an
// error, and so is a name not in `valid` (when given).
std::vector<std::string> read_names(config::MapReader& in, std::string_view key, std::vector<std::string> default_value,
                                    const std::vector<std::string>* valid = nullptr);
// The same, each name checked by `check`: nullopt when valid, else why not.
using NameCheck = std::function<std::optional<std::string>(const std::string& name)>;
std::vector<std::string> read_names(config::MapReader& in, std::string_view key, std::vector<std::string> default_value,
                                    const NameCheck& check);
// The check of `valid`: unknown names are errors with a suggestion for a typo.
std::optional<std::string> unknown_name_error(const std::string& name, const std::vector<std::string>& valid);

}  // namespace ksim::app
