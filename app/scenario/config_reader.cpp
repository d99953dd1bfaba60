#include "app/scenario/config_reader.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <utility>
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
using detail::single_quoted;
using detail::value_location;

namespace {

using detail::ReaderState;

// ---- unknown keys ------------------------------------------------------------

bool is_foreign(const ReaderState& state, std::string_view key) {
  return state.foreign && std::ranges::binary_search(*state.foreign->names, key);
}

// A chain of one-key maps set by --set ("auto: {offset: {reset: earliest}}"
// from consumers.0.config.auto.offset.reset=earliest): the dotted name and the value.
std::optional<std::pair<std::string, std::string>> dotted_override(const std::string& key, const YAML::Node& value) {
  std::string name = key;
  YAML::Node node = value;
  while (node.IsMap() && node.size() == 1 && node.Mark().is_null()) {
    const auto only = node.begin();
    name += "." + only->first.Scalar();
    const YAML::Node next = only->second;
    node.reset(next);
  }
  if (name == key || !node.IsScalar()) return std::nullopt;
  return std::pair(name, node.Scalar());
}

std::string unknown_key_message(const ReaderState& state, const std::string& key, const YAML::Node& value) {
  if (const auto dotted = dotted_override(key, value)) {
    if (state.requested.contains(dotted->first) || is_foreign(state, dotted->first)) {
      return "unknown key " + single_quoted(key) + ": a name with dots needs brackets, as in --set '" + state.path + "[" +
             dotted->first + "]=" + excerpt(dotted->second) + "'";
    }
  }
  std::optional<std::string> suggestion = closest(key, state.requested);
  if (!suggestion && state.foreign) suggestion = closest(key, *state.foreign->names);
  if (suggestion) return "unknown key " + single_quoted(key) + did_you_mean(suggestion);
  if (state.requested.empty()) return "unknown key " + single_quoted(key) + " (no keys are expected here)";
  return "unknown key " + single_quoted(key) + " (expected " + list_words(state.requested) + ")";
}

void check_unread_key(const ReaderState& state, const YAML::const_iterator& it, const std::string& file) {
  const std::string& key = it->first.Scalar();
  if (state.requested.contains(key)) return;
  const Location location = location_of(it->first, file, state.location);
  const std::string path = join_path(state.path, key);
  if (is_foreign(state, key)) {
    if (state.diagnostics->accept_foreign) {
      state.diagnostics->ignored.push_back({location, path});
    } else {
      state.diagnostics->add(ConfigError(location, path,
                                         single_quoted(key) + " is " + state.foreign->what +
                                             " that ksim does not model (see docs/kafka-model.md; "
                                             "ksim run --ignore-unmodelled accepts it and lists it in the report)"));
    }
    return;
  }
  state.diagnostics->add(ConfigError(location, path, unknown_key_message(state, key, it->second)));
}

void record_unknown_keys(const ReaderState& state) {
  if (state.node.IsDefined() && state.node.IsMap()) {
    for (auto it = state.node.begin(); it != state.node.end(); ++it) {
      if (it->first.IsScalar()) check_unread_key(state, it, state.file);
    }
  }
  if (state.defaults && state.defaults->node.IsMap()) {
    for (auto it = state.defaults->node.begin(); it != state.defaults->node.end(); ++it) {
      if (it->first.IsScalar() && !find_entry(state.node, it->first.Scalar())) {
        check_unread_key(state, it, state.defaults->file);
      }
    }
  }
  for (const auto& [segment, child] : state.children) record_unknown_keys(*child);
}

}  // namespace

// ---- MapReader ---------------------------------------------------------------

MapReader::MapReader(std::shared_ptr<detail::ReaderState> state) : state_(std::move(state)) {}

std::optional<std::string> MapReader::scalar(std::string_view key, std::string_view expected) {
  state_->requested.emplace(key);
  const std::optional<Entry> entry = find_entry(*state_, key);
  if (!entry) return std::nullopt;
  if (!entry->value.IsScalar()) {
    reject(key, "expected " + std::string(expected) + ", got " + describe(entry->value));
    return std::nullopt;
  }
  return entry->value.Scalar();
}

void MapReader::stop() const { state_->diagnostics->throw_all(); }

ConfigError MapReader::missing(std::string_view key) const {
  return ConfigError(state_->location, join_path(state_->path, key), "missing required key " + single_quoted(key));
}

std::string MapReader::get_choice(std::string_view key, std::initializer_list<std::string_view> choices,
                                  std::string_view default_value) {
  const std::optional<std::string> text = scalar(key, "one of " + list_words(choices));
  const bool valid = text && std::ranges::find(choices, std::string_view(*text)) != choices.end();
  if (text && !valid) {
    reject(key, "must be one of " + list_words(choices) + ", got " + single_quoted(*text) + did_you_mean(closest(*text, choices)));
  }
  std::string value = valid ? *text : std::string(default_value);
  if (recording()) note(key, {value, false});
  return value;
}

bool MapReader::has(std::string_view key) const { return find_entry(*state_, key).has_value(); }

bool MapReader::has_map(std::string_view key) const {
  const std::optional<Entry> entry = find_entry(*state_, key);
  return entry && entry->value.IsMap();
}

bool MapReader::has_list(std::string_view key) const {
  const std::optional<Entry> entry = find_entry(*state_, key);
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
  std::optional<Entry> entry = find_entry(*state_, key);
  if (entry && !entry->value.IsMap() && !entry->value.IsNull()) {
    reject(key, "expected a mapping, got " + describe(entry->value));
    entry.reset();
  }
  if (!entry) return MapReader(child_state(*state_, key, YAML::Node(), state_->location));
  return MapReader(child_state(*state_, key, entry->value, value_location(*state_, *entry)));
}

ListReader MapReader::list(std::string_view key) {
  state_->requested.emplace(key);
  std::optional<Entry> entry = find_entry(*state_, key);
  if (entry && !entry->value.IsSequence() && !entry->value.IsNull()) {
    reject(key, "expected a list, got " + describe(entry->value));
    entry.reset();
  }
  if (!entry) return ListReader(child_state(*state_, key, YAML::Node(), state_->location));
  return ListReader(child_state(*state_, key, entry->value, value_location(*state_, *entry)));
}

void MapReader::ignore(std::string_view key) { state_->requested.emplace(key); }

void MapReader::foreign_keys(const ForeignKeys& foreign) { state_->foreign = foreign; }

void MapReader::record_values() { state_->recording = true; }

ResolvedValues MapReader::resolved() const { return state_->resolved; }

bool MapReader::recording() const { return state_->recording; }

void MapReader::note(std::string_view key, ResolvedValue value) {
  for (auto& [name, resolved] : state_->resolved) {
    if (name == key) {
      resolved = std::move(value);
      return;
    }
  }
  state_->resolved.emplace_back(std::string(key), std::move(value));
}

void MapReader::add_defaults(const MapReader& defaults) { state_->defaults = defaults.state_; }

void MapReader::finish_keys() { record_unknown_keys(*state_); }

void MapReader::finish() {
  finish_keys();
  if (!state_->diagnostics->errors.empty()) state_->diagnostics->throw_all();
}

void MapReader::reject(std::string_view key, std::string message) { state_->diagnostics->add(error(key, std::move(message))); }

void MapReader::warn(std::string_view key, std::string message) {
  state_->diagnostics->warnings.push_back({key_location(*state_, key), join_path(state_->path, key), std::move(message)});
}

const std::string& MapReader::file() const { return state_->file; }

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
  const Location location = location_of(item, state_->file, state_->location);
  if (!item.IsMap() && !item.IsNull()) {
    record(error(index, "expected a mapping, got " + describe(item)));
    return MapReader(child_state(*state_, std::to_string(index), YAML::Node(), location));
  }
  return MapReader(child_state(*state_, std::to_string(index), item, location));
}

ListReader ListReader::list_at(std::size_t index) {
  const YAML::Node item = item_or_throw(*this, *state_, index);
  const Location location = location_of(item, state_->file, state_->location);
  if (!item.IsSequence() && !item.IsNull()) {
    record(error(index, "expected a list, got " + describe(item)));
    return ListReader(child_state(*state_, std::to_string(index), YAML::Node(), location));
  }
  return ListReader(child_state(*state_, std::to_string(index), item, location));
}

std::string ListReader::scalar_at(std::size_t index, std::string_view expected) const {
  const YAML::Node item = item_or_throw(*this, *state_, index);
  if (!item.IsScalar()) throw error(index, "expected " + std::string(expected) + ", got " + describe(item));
  return item.Scalar();
}

void ListReader::record(ConfigError error) const { state_->diagnostics->add(std::move(error)); }

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
