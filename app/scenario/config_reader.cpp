#include "app/scenario/config_reader.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "app/scenario/config_messages.hpp"
#include "app/scenario/config_tree.hpp"

namespace ksim::config {

using detail::child_state;
using detail::closest;
using detail::describe;
using detail::did_you_mean;
using detail::Entry;
using detail::find_entry;
using detail::join_path;
using detail::key_location;
using detail::list_words;
using detail::location_of;
using detail::quoted;
using detail::value_location;

namespace {

using detail::ReaderState;

// ---- unknown keys ------------------------------------------------------------

std::string unknown_key_message(const ReaderState& state, const std::string& key) {
  const std::optional<std::string> suggestion = closest(key, state.requested);
  if (suggestion) return "unknown key " + quoted(key) + did_you_mean(suggestion);
  if (state.requested.empty()) return "unknown key " + quoted(key) + " (no keys are expected here)";
  return "unknown key " + quoted(key) + " (expected " + list_words(state.requested) + ")";
}

void collect_unknown_keys(const ReaderState& state, std::vector<ConfigError>& found) {
  if (state.node.IsDefined() && state.node.IsMap()) {
    for (auto it = state.node.begin(); it != state.node.end(); ++it) {
      const std::string& key = it->first.Scalar();
      if (state.requested.contains(key)) continue;
      found.emplace_back(location_of(it->first, state.file, state.location), join_path(state.path, key),
                         unknown_key_message(state, key));
    }
  }
  for (const auto& [segment, child] : state.children) collect_unknown_keys(*child, found);
}

// Document order; keys added by --set (line 0) come last.
bool comes_first(const ConfigError& a, const ConfigError& b) {
  const auto order = [](const Location& l) { return std::tuple(l.line == 0, l.line, l.column); };
  return order(a.location()) < order(b.location());
}

}  // namespace

// ---- MapReader ---------------------------------------------------------------

MapReader::MapReader(std::shared_ptr<detail::ReaderState> state) : state_(std::move(state)) {}

std::optional<std::string> MapReader::scalar(std::string_view key, std::string_view expected) {
  state_->requested.emplace(key);
  const std::optional<Entry> entry = find_entry(state_->node, key);
  if (!entry) return std::nullopt;
  if (!entry->value.IsScalar()) {
    throw error(key, "expected " + std::string(expected) + ", got " + describe(entry->value));
  }
  return entry->value.Scalar();
}

ConfigError MapReader::missing(std::string_view key) const {
  return ConfigError(state_->location, join_path(state_->path, key), "missing required key " + quoted(key));
}

std::string MapReader::get_choice(std::string_view key, std::initializer_list<std::string_view> choices,
                                  std::string_view default_value) {
  const std::optional<std::string> text = scalar(key, "one of " + list_words(choices));
  if (!text) return std::string(default_value);
  if (std::ranges::find(choices, std::string_view(*text)) != choices.end()) return *text;
  throw error(key, "must be one of " + list_words(choices) + ", got " + quoted(*text) +
                       did_you_mean(closest(*text, choices)));
}

bool MapReader::has(std::string_view key) const { return find_entry(state_->node, key).has_value(); }

bool MapReader::has_map(std::string_view key) const {
  const std::optional<Entry> entry = find_entry(state_->node, key);
  return entry && entry->value.IsMap();
}

bool MapReader::has_list(std::string_view key) const {
  const std::optional<Entry> entry = find_entry(state_->node, key);
  return entry && entry->value.IsSequence();
}

std::vector<std::string> MapReader::keys() const {
  std::vector<std::string> names;
  if (!state_->node.IsDefined() || !state_->node.IsMap()) return names;
  for (auto it = state_->node.begin(); it != state_->node.end(); ++it) names.push_back(it->first.Scalar());
  return names;
}

MapReader MapReader::map(std::string_view key) {
  state_->requested.emplace(key);
  const std::optional<Entry> entry = find_entry(state_->node, key);
  if (!entry) return MapReader(child_state(*state_, key, YAML::Node(), state_->location));
  if (!entry->value.IsMap() && !entry->value.IsNull()) {
    throw error(key, "expected a mapping, got " + describe(entry->value));
  }
  return MapReader(child_state(*state_, key, entry->value, value_location(*state_, *entry)));
}

ListReader MapReader::list(std::string_view key) {
  state_->requested.emplace(key);
  const std::optional<Entry> entry = find_entry(state_->node, key);
  if (!entry) return ListReader(child_state(*state_, key, YAML::Node(), state_->location));
  if (!entry->value.IsSequence() && !entry->value.IsNull()) {
    throw error(key, "expected a list, got " + describe(entry->value));
  }
  return ListReader(child_state(*state_, key, entry->value, value_location(*state_, *entry)));
}

void MapReader::ignore(std::string_view key) { state_->requested.emplace(key); }

void MapReader::finish() {
  std::vector<ConfigError> unknown;
  collect_unknown_keys(*state_, unknown);
  if (unknown.empty()) return;
  throw *std::ranges::min_element(unknown, comes_first);
}

Location MapReader::location() const { return state_->location; }

const std::string& MapReader::path() const { return state_->path; }

ConfigError MapReader::error(std::string_view key, std::string message) const {
  return ConfigError(key_location(*state_, key), join_path(state_->path, key), std::move(message));
}

// ---- ListReader --------------------------------------------------------------

ListReader::ListReader(std::shared_ptr<detail::ReaderState> state) : state_(std::move(state)) {}

std::size_t ListReader::size() const {
  const YAML::Node& node = state_->node;
  return node.IsDefined() && node.IsSequence() ? node.size() : 0;
}

namespace {
YAML::Node item_or_throw(const ListReader& list, const ReaderState& state, std::size_t index) {
  if (index >= list.size()) {
    throw list.error(index, "there is no item " + std::to_string(index) + " (the list has " +
                                std::to_string(list.size()) + ")");
  }
  const YAML::Node& node = state.node;
  return node[index];
}
}  // namespace

MapReader ListReader::map_at(std::size_t index) {
  const YAML::Node item = item_or_throw(*this, *state_, index);
  if (!item.IsMap() && !item.IsNull()) throw error(index, "expected a mapping, got " + describe(item));
  const Location location = location_of(item, state_->file, state_->location);
  return MapReader(child_state(*state_, std::to_string(index), item, location));
}

ListReader ListReader::list_at(std::size_t index) {
  const YAML::Node item = item_or_throw(*this, *state_, index);
  if (!item.IsSequence() && !item.IsNull()) throw error(index, "expected a list, got " + describe(item));
  const Location location = location_of(item, state_->file, state_->location);
  return ListReader(child_state(*state_, std::to_string(index), item, location));
}

std::string ListReader::scalar_at(std::size_t index, std::string_view expected) const {
  const YAML::Node item = item_or_throw(*this, *state_, index);
  if (!item.IsScalar()) throw error(index, "expected " + std::string(expected) + ", got " + describe(item));
  return item.Scalar();
}

Location ListReader::location() const { return state_->location; }

const std::string& ListReader::path() const { return state_->path; }

ConfigError ListReader::error(std::size_t index, std::string message) const {
  Location location = state_->location;
  if (index < size()) {
    const YAML::Node& node = state_->node;
    location = location_of(node[index], state_->file, location);
  }
  return ConfigError(location, join_path(state_->path, std::to_string(index)), std::move(message));
}

}  // namespace ksim::config
