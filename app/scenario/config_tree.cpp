#include "app/scenario/config_tree.hpp"

#include "app/scenario/config_messages.hpp"

namespace ksim::config::detail {

namespace {
constexpr std::string_view kOverrideFile = "--set";
}  // namespace

Location override_location() { return Location{std::string(kOverrideFile), 0, 0}; }

Location mark_location(const std::string& file, const YAML::Mark& mark) {
  return Location{file, mark.line + 1, mark.column + 1};
}

Location location_of(const YAML::Node& node, const std::string& file, const Location& fallback) {
  if (!node.IsDefined()) return fallback;
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return override_location();
  return mark_location(file, mark);
}

std::string join_path(std::string_view path, std::string_view segment) {
  if (path.empty()) return std::string(segment);
  return std::string(path) + "." + std::string(segment);
}

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return quoted(node.Scalar());
    default:
      return "nothing";
  }
}

// ---- key lookup --------------------------------------------------------------

std::optional<Entry> find_entry(const YAML::Node& map, std::string_view key) {
  if (!map.IsDefined() || !map.IsMap()) return std::nullopt;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) return Entry{it->first, it->second};
  }
  return std::nullopt;
}

Location value_location(const ReaderState& state, const Entry& entry) {
  const Location key_location = location_of(entry.key, state.file, state.location);
  if (entry.value.IsNull()) return key_location;
  return location_of(entry.value, state.file, key_location);
}

Location key_location(const ReaderState& state, std::string_view key) {
  const std::optional<Entry> entry = find_entry(state.node, key);
  return entry ? value_location(state, *entry) : state.location;
}

namespace {
void check_keys_are_unique(const ReaderState& state) {
  if (!state.node.IsDefined() || !state.node.IsMap()) return;
  std::map<std::string, Location> seen;
  for (auto it = state.node.begin(); it != state.node.end(); ++it) {
    const Location here = location_of(it->first, state.file, state.location);
    if (!it->first.IsScalar()) throw ConfigError(here, state.path, "keys must be plain strings, got " + describe(it->first));
    const std::string& key = it->first.Scalar();
    const auto [previous, inserted] = seen.emplace(key, here);
    if (!inserted) {
      throw ConfigError(here, join_path(state.path, key),
                        "duplicate key " + quoted(key) + " (first given at line " +
                            std::to_string(previous->second.line) + ")");
    }
  }
}
}  // namespace

std::shared_ptr<ReaderState> make_state(YAML::Node node, std::string file, std::string path, Location location) {
  auto state = std::make_shared<ReaderState>();
  state->node = std::move(node);
  state->file = std::move(file);
  state->path = std::move(path);
  state->location = std::move(location);
  check_keys_are_unique(*state);
  return state;
}

std::shared_ptr<ReaderState> child_state(ReaderState& parent, std::string_view segment, const YAML::Node& node,
                                         const Location& location) {
  const auto found = parent.children.find(segment);
  if (found != parent.children.end()) return found->second;
  auto child = make_state(node, parent.file, join_path(parent.path, segment), location);
  parent.children.emplace(std::string(segment), child);
  return child;
}

}  // namespace ksim::config::detail
