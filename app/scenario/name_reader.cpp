#include "app/scenario/name_reader.hpp"

#include <algorithm>

namespace ksim::app {

using config::ListReader;
using config::MapReader;

std::optional<std::string> unknown_name_error(const std::string& name, const std::vector<std::string>& valid) {
  if (std::find(valid.begin(), valid.end(), name) != valid.end()) return std::nullopt;
  const auto suggestion = config::closest_name(name, valid);
  return "unknown name '" + config::excerpt(name) + "'" +
         (suggestion ? " (did you mean '" + config::excerpt(*suggestion) + "'?)" : "");
}

std::vector<std::string> read_names(MapReader& in, std::string_view key, std::vector<std::string> default_value,
                                    const NameCheck& check) {
  if (!in.has(key)) {
    in.ignore(key);
    return default_value;
  }
  ListReader list = in.list(key);
  if (list.empty()) throw in.error(key, "must name at least one");
  std::vector<std::string> names = list.values<std::string>();
  for (std::size_t i = 0; check && i < names.size(); ++i) {
    if (const auto why = check(names[i])) throw list.error(i, *why);
  }
  return names;
}

std::vector<std::string> read_names(MapReader& in, std::string_view key, std::vector<std::string> default_value,
                                    const std::vector<std::string>* valid) {
  NameCheck check;
  if (valid) check = [valid](const std::string& name) { return unknown_name_error(name, *valid); };
  return read_names(in, key, std::move(default_value), check);
}

}  // namespace ksim::app
