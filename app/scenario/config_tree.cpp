#include "app/scenario/config_tree.hpp"

#include <algorithm>
#include <string_view>
#include <tuple>

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
      return single_quoted(node.Scalar());
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

std::optional<Entry> find_entry(const ReaderState& state, std::string_view key) {
  if (std::optional<Entry> own = find_entry(state.node, key)) {
    own->file = &state.file;
    return own;
  }
  if (!state.defaults) return std::nullopt;
  return find_entry(*state.defaults, key);
}

Location value_location(const ReaderState& state, const Entry& entry) {
  const std::string& file = entry.file != nullptr ? *entry.file : state.file;
  const Location key_location = location_of(entry.key, file, state.location);
  if (entry.value.IsNull()) return key_location;
  return location_of(entry.value, file, key_location);
}

Location key_location(const ReaderState& state, std::string_view key) {
  const std::optional<Entry> entry = find_entry(state, key);
  return entry ? value_location(state, *entry) : state.location;
}

// ---- diagnostics -------------------------------------------------------------

void Diagnostics::add(ConfigError error) {
  errors.push_back(std::move(error));
  if (errors.size() >= kMaxRecorded) throw_all();
}

namespace {
// Line order within each file, files in the order their first error was found; --set last; no repeats.
std::vector<ConfigError> in_line_order(std::vector<ConfigError> errors) {
  std::vector<std::string> files;
  for (const auto& e : errors) {
    if (std::ranges::find(files, e.location().file) == files.end()) files.push_back(e.location().file);
  }
  const auto order = [&](const ConfigError& e) {
    const Location& l = e.location();
    const auto file = std::ranges::find(files, l.file) - files.begin();
    return std::tuple(l.line == 0 && l.file == "--set", file, l.line, l.column, e.key_path(), e.message());
  };
  std::ranges::stable_sort(errors, [&](const auto& a, const auto& b) { return order(a) < order(b); });
  const auto same = [](const ConfigError& a, const ConfigError& b) { return std::string_view(a.what()) == b.what(); };
  errors.erase(std::unique(errors.begin(), errors.end(), same), errors.end());
  return errors;
}
}  // namespace

void Diagnostics::throw_all() const { throw ConfigErrors(in_line_order(errors)); }

namespace {
void check_keys_are_unique(const ReaderState& state) {
  if (!state.node.IsDefined() || !state.node.IsMap()) return;
  std::map<std::string, Location> seen;
  for (auto it = state.node.begin(); it != state.node.end(); ++it) {
    const Location here = location_of(it->first, state.file, state.location);
    if (!it->first.IsScalar()) {
      state.diagnostics->add(ConfigError(here, state.path, "keys must be plain strings, got " + describe(it->first)));
      continue;
    }
    const std::string& key = it->first.Scalar();
    const auto [previous, inserted] = seen.emplace(key, here);
    if (!inserted) {
      state.diagnostics->add(ConfigError(here, join_path(state.path, key),
                                         "duplicate key " + single_quoted(key) + " (first given at line " +
                                             std::to_string(previous->second.line) + ")"));
    }
  }
}
}  // namespace

std::shared_ptr<ReaderState> make_state(YAML::Node node, std::string file, std::string path, Location location,
                                        std::shared_ptr<Diagnostics> diagnostics) {
  auto state = std::make_shared<ReaderState>();
  state->node = std::move(node);
  state->file = std::move(file);
  state->path = std::move(path);
  state->location = std::move(location);
  state->diagnostics = std::move(diagnostics);
  check_keys_are_unique(*state);
  return state;
}

std::shared_ptr<ReaderState> child_state(ReaderState& parent, std::string_view segment, const YAML::Node& node,
                                         const Location& location) {
  const auto found = parent.children.find(segment);
  if (found != parent.children.end()) return found->second;
  auto child = make_state(node, parent.file, join_path(parent.path, segment), location, parent.diagnostics);
  parent.children.emplace(std::string(segment), child);
  return child;
}

}  // namespace ksim::config::detail
