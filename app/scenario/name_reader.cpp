#include "app/scenario/name_reader.hpp"

#include <algorithm>

namespace ksim::app {

using config::ListReader;
using config::MapReader;

std::vector<std::string> read_names(MapReader& in, std::string_view key, std::vector<std::string> default_value,
                                    const std::vector<std::string>* valid) {
  if (!in.has(key)) {
    in.ignore(key);
    return default_value;
  }
  ListReader list = in.list(key);
  if (list.empty()) throw in.error(key, "must name at least one");
  std::vector<std::string> names = list.values<std::string>();
  for (std::size_t i = 0; valid && i < names.size(); ++i) {
    if (std::find(valid->begin(), valid->end(), names[i]) != valid->end()) continue;
    const auto suggestion = config::closest_name(names[i], *valid);
    throw list.error(i, "unknown name '" + config::excerpt(names[i]) + "'" +
                            (suggestion ? " (did you mean '" + config::excerpt(*suggestion) + "'?)" : ""));
  }
  return names;
}

}  // namespace ksim::app
