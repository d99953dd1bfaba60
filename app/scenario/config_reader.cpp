#include "app/scenario/config_reader.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace ksim::config {

// ---- shared state ------------------------------------------------------------

namespace detail {

// What a MapReader or ListReader (and all its copies) know about one node.
struct ReaderState {
  YAML::Node node;    // undefined when the key is absent
  std::string file;   // the document's file name
  std::string path;   // "network.jitter"; "" for the root
  Location location;  // the node's own position, else the nearest ancestor's
  std::set<std::string, std::less<>> requested;  // keys asked about (maps only)
  std::map<std::string, std::shared_ptr<ReaderState>, std::less<>> children;  // by key or index
};

}  // namespace detail

namespace {

using detail::ReaderState;

constexpr std::string_view kOverrideFile = "--set";

Location override_location() { return Location{std::string(kOverrideFile), 0, 0}; }

Location mark_location(const std::string& file, const YAML::Mark& mark) {
  return Location{file, mark.line + 1, mark.column + 1};
}

// Nodes made by apply_override carry no mark: they are located at "--set".
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

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

// How a node shows up after "got": "a mapping", "a list", "nothing", "'abc'".
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

struct Entry {
  YAML::Node key;
  YAML::Node value;
};

// Exact, string-wise lookup (no yaml-cpp conversions, no node creation).
std::optional<Entry> find_entry(const YAML::Node& map, std::string_view key) {
  if (!map.IsDefined() || !map.IsMap()) return std::nullopt;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) return Entry{it->first, it->second};
  }
  return std::nullopt;
}

// An empty value ("key:") is located at its key: yaml-cpp puts its mark on the next token.
Location value_location(const ReaderState& state, const Entry& entry) {
  const Location key_location = location_of(entry.key, state.file, state.location);
  if (entry.value.IsNull()) return key_location;
  return location_of(entry.value, state.file, key_location);
}

Location key_location(const ReaderState& state, std::string_view key) {
  const std::optional<Entry> entry = find_entry(state.node, key);
  return entry ? value_location(state, *entry) : state.location;
}

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

std::shared_ptr<ReaderState> make_state(YAML::Node node, std::string file, std::string path, Location location) {
  auto state = std::make_shared<ReaderState>();
  state->node = std::move(node);
  state->file = std::move(file);
  state->path = std::move(path);
  state->location = std::move(location);
  check_keys_are_unique(*state);
  return state;
}

// The same key always yields the same child state, so two readers of one
// sub-map share what was read.
std::shared_ptr<ReaderState> child_state(ReaderState& parent, std::string_view segment, const YAML::Node& node,
                                         const Location& location) {
  const auto found = parent.children.find(segment);
  if (found != parent.children.end()) return found->second;
  auto child = make_state(node, parent.file, join_path(parent.path, segment), location);
  parent.children.emplace(std::string(segment), child);
  return child;
}

// ---- suggestions -------------------------------------------------------------

// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// The closest candidate, if close enough to be a plausible typo of `word`.
template <class Candidates>
std::optional<std::string> closest(std::string_view word, const Candidates& candidates) {
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (std::string_view candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    if (distance < best_distance && distance < word.size()) {
      best = std::string(candidate);
      best_distance = distance;
    }
  }
  return best;
}

std::string did_you_mean(const std::optional<std::string>& suggestion) {
  return suggestion ? " (did you mean " + quoted(*suggestion) + "?)" : "";
}

// "'a', 'b' or 'c'"
template <class Words>
std::string list_words(const Words& words) {
  std::string out;
  std::size_t index = 0;
  for (std::string_view word : words) {
    if (index > 0) out += index + 1 == std::size(words) ? " or " : ", ";
    out += quoted(word);
    ++index;
  }
  return out;
}

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

// ---- overrides ---------------------------------------------------------------

struct Assignment {
  std::string path;
  std::vector<std::string> segments;
  std::string value;
};

ConfigError override_error(std::string_view path, std::string message) {
  return ConfigError(override_location(), std::string(path), std::move(message));
}

// "a.b.c" -> a, b, c. A segment in brackets may hold dots, for Kafka's config
// names: "brokers.config[replica.lag.time.max.ms]" -> brokers, config, replica.lag.time.max.ms.
std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> segments;
  std::string current;
  bool bracketed = false;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (bracketed) {
      if (c == ']') {
        bracketed = false;
        segments.push_back(std::move(current));
        current.clear();
        if (i + 1 < path.size() && path[i + 1] == '.') ++i;
      } else {
        current += c;
      }
    } else if (c == '[') {
      if (!current.empty()) segments.push_back(std::move(current));
      current.clear();
      bracketed = true;
    } else if (c == '.') {
      segments.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty() || segments.empty() || path.back() == '.') segments.push_back(std::move(current));
  return segments;
}

Assignment parse_assignment(std::string_view text) {
  const std::size_t equals = text.find('=');
  if (equals == std::string_view::npos) {
    throw override_error("", "malformed override " + quoted(text) + ": expected key.path=value");
  }
  Assignment assignment;
  assignment.path = std::string(text.substr(0, equals));
  assignment.value = std::string(text.substr(equals + 1));
  assignment.segments = split_path(assignment.path);
  const bool has_empty_segment = std::ranges::any_of(assignment.segments, [](const auto& s) { return s.empty(); });
  if (has_empty_segment) {
    throw override_error(assignment.path, "malformed override " + quoted(text) + ": empty key in the path");
  }
  return assignment;
}

// A copy with no marks, so that readers locate it at "--set".
YAML::Node without_marks(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar: {
      YAML::Node copy(node.Scalar());
      copy.SetTag(node.Tag());
      return copy;
    }
    case YAML::NodeType::Sequence: {
      YAML::Node copy(YAML::NodeType::Sequence);
      for (const YAML::Node& item : node) copy.push_back(without_marks(item));
      return copy;
    }
    case YAML::NodeType::Map: {
      YAML::Node copy(YAML::NodeType::Map);
      for (auto it = node.begin(); it != node.end(); ++it) copy[without_marks(it->first)] = without_marks(it->second);
      return copy;
    }
    default:
      return YAML::Node(YAML::NodeType::Null);
  }
}

YAML::Node parse_override_value(const Assignment& assignment) {
  try {
    return without_marks(YAML::Load(assignment.value));
  } catch (const YAML::Exception& e) {
    throw override_error(assignment.path, "cannot parse value " + quoted(assignment.value) + ": " + e.msg);
  }
}

std::string prefix_path(const Assignment& assignment, std::size_t count) {
  std::string path;
  for (std::size_t i = 0; i < count; ++i) path = join_path(path, assignment.segments[i]);
  return path;
}

std::optional<std::size_t> parse_index(std::string_view segment) {
  std::size_t index = 0;
  const auto [end, ec] = std::from_chars(segment.data(), segment.data() + segment.size(), index);
  if (ec != std::errc{} || end != segment.data() + segment.size()) return std::nullopt;
  return index;
}

// The node for segments[depth] inside `parent` (which holds segments[0, depth)).
YAML::Node slot(YAML::Node& parent, const Assignment& assignment, std::size_t depth) {
  const std::string& segment = assignment.segments[depth];
  const std::string parent_path = depth == 0 ? "the root" : quoted(prefix_path(assignment, depth));
  if (parent.IsMap()) return parent[segment];
  if (!parent.IsSequence()) {
    throw override_error(assignment.path, "cannot set it: " + parent_path + " is " + describe(parent) +
                                              ", not a mapping or a list");
  }
  const std::optional<std::size_t> index = parse_index(segment);
  if (!index) {
    throw override_error(assignment.path, parent_path + " is a list, so " + quoted(segment) + " must be an index");
  }
  if (*index >= parent.size()) {
    throw override_error(assignment.path, "index " + segment + " is out of range: " + parent_path + " has " +
                                              std::to_string(parent.size()) + " items");
  }
  return parent[*index];
}

void assign(YAML::Node root, const Assignment& assignment, const YAML::Node& value) {
  YAML::Node current = root;
  const std::size_t last = assignment.segments.size() - 1;
  for (std::size_t depth = 0; depth < last; ++depth) {
    YAML::Node next = slot(current, assignment, depth);
    if (!next.IsDefined() || next.IsNull()) next = YAML::Node(YAML::NodeType::Map);
    current.reset(next);  // rebind; operator= would overwrite the node
  }
  YAML::Node target = slot(current, assignment, last);
  target = value;
}

// ---- scalar parsing ----------------------------------------------------------

template <class T>
units::ParseResult<T> parse_integer(std::string_view text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    return units::ParseResult<T>::failure("must be between " + std::to_string(std::numeric_limits<T>::min()) +
                                          " and " + std::to_string(std::numeric_limits<T>::max()));
  }
  if (ec != std::errc{} || end != text.data() + text.size()) return units::ParseResult<T>::failure("");
  return units::ParseResult<T>::success(value);
}

std::string format_double(double value) {
  std::array<char, 64> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), end);
}

}  // namespace

// ---- ConfigError ---------------------------------------------------------------

namespace {
std::string error_text(const Location& location, const std::string& key_path, const std::string& message) {
  std::string text = location.file;
  if (location.line > 0) {
    text += ":" + std::to_string(location.line);
    if (location.column > 0) text += ":" + std::to_string(location.column);
  }
  if (!text.empty()) text += ": ";
  if (!key_path.empty()) text += key_path + ": ";
  return text + message;
}
}  // namespace

ConfigError::ConfigError(Location location, std::string key_path, std::string message)
    : std::runtime_error(error_text(location, key_path, message)),
      location_(std::move(location)),
      key_path_(std::move(key_path)),
      message_(std::move(message)) {}

// ---- messages ----------------------------------------------------------------

namespace detail {

std::string mismatch_message(std::string_view expected, std::string_view text, std::string_view reason) {
  std::string message = "expected " + std::string(expected) + ", got " + quoted(text);
  if (!reason.empty()) message += " (" + std::string(reason) + ")";
  return message;
}

std::string range_message(const std::optional<std::string>& min, const std::optional<std::string>& max,
                          std::string_view text) {
  const std::string got = ", got " + std::string(text);
  if (min && max) return "must be between " + *min + " and " + *max + got;
  if (min) return "must be at least " + *min + got;
  if (max) return "must be at most " + *max + got;
  return "is out of range" + got;
}

}  // namespace detail

// ---- codecs ------------------------------------------------------------------

units::ParseResult<bool> Codec<bool>::parse(std::string_view text) {
  static constexpr std::array<std::string_view, 3> kTrue{"true", "True", "TRUE"};
  static constexpr std::array<std::string_view, 3> kFalse{"false", "False", "FALSE"};
  if (std::ranges::find(kTrue, text) != kTrue.end()) return units::ParseResult<bool>::success(true);
  if (std::ranges::find(kFalse, text) != kFalse.end()) return units::ParseResult<bool>::success(false);
  return units::ParseResult<bool>::failure("");
}
std::string Codec<bool>::format(bool value) { return value ? "true" : "false"; }

units::ParseResult<int> Codec<int>::parse(std::string_view text) { return parse_integer<int>(text); }
std::string Codec<int>::format(int value) { return std::to_string(value); }

units::ParseResult<std::int64_t> Codec<std::int64_t>::parse(std::string_view text) {
  return parse_integer<std::int64_t>(text);
}
std::string Codec<std::int64_t>::format(std::int64_t value) { return std::to_string(value); }

units::ParseResult<std::uint64_t> Codec<std::uint64_t>::parse(std::string_view text) {
  if (!text.empty() && text.front() == '-') return units::ParseResult<std::uint64_t>::failure("must not be negative");
  return parse_integer<std::uint64_t>(text);
}
std::string Codec<std::uint64_t>::format(std::uint64_t value) { return std::to_string(value); }

units::ParseResult<double> Codec<double>::parse(std::string_view text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) {
    return units::ParseResult<double>::failure("");
  }
  return units::ParseResult<double>::success(value);
}
std::string Codec<double>::format(double value) { return format_double(value); }

units::ParseResult<std::string> Codec<std::string>::parse(std::string_view text) {
  return units::ParseResult<std::string>::success(std::string(text));
}
std::string Codec<std::string>::format(const std::string& value) { return value; }

units::ParseResult<SimTime> Codec<Duration>::parse(std::string_view text) { return units::parse_duration(text); }
std::string Codec<Duration>::format(SimTime value) { return units::format_duration(value); }

units::ParseResult<std::uint64_t> Codec<Bytes>::parse(std::string_view text) { return units::parse_bytes(text); }
std::string Codec<Bytes>::format(std::uint64_t value) { return units::format_bytes(value); }

units::ParseResult<double> Codec<Rate>::parse(std::string_view text) { return units::parse_rate(text); }
std::string Codec<Rate>::format(double value) { return units::format_rate(value); }

units::ParseResult<double> Codec<Bandwidth>::parse(std::string_view text) { return units::parse_bandwidth(text); }
std::string Codec<Bandwidth>::format(double value) { return units::format_bandwidth(value); }

units::ParseResult<double> Codec<Fraction>::parse(std::string_view text) { return units::parse_fraction(text); }
std::string Codec<Fraction>::format(double value) { return format_double(value); }

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

// ---- Document ----------------------------------------------------------------

struct Document::Impl {
  YAML::Node root;
  std::string file;
};

Document::Document(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Document::Document(Document&&) noexcept = default;
Document& Document::operator=(Document&&) noexcept = default;
Document::~Document() = default;

Document Document::load_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(Location{path, 0, 0}, "", std::string("cannot read the file: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return from_string(text.str(), path);
}

Document Document::from_string(const std::string& text, std::string file_name) {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(mark_location(file_name, e.mark), "", "invalid YAML: " + e.msg);
  }
  if (documents.size() > 1) {
    throw ConfigError(location_of(documents[1], file_name, Location{file_name, 0, 0}), "",
                      "expected one YAML document, found a second one");
  }
  auto impl = std::make_unique<Impl>();
  const bool empty = documents.empty() || documents.front().IsNull();
  impl->root = empty ? YAML::Load("{}") : documents.front();
  impl->file = std::move(file_name);
  return Document(std::move(impl));
}

void Document::apply_override(std::string_view assignment_text) {
  const Assignment assignment = parse_assignment(assignment_text);
  const YAML::Node value = parse_override_value(assignment);
  try {
    assign(impl_->root, assignment, value);
  } catch (const YAML::Exception& e) {
    throw override_error(assignment.path, "cannot set it: " + e.msg);
  }
}

MapReader Document::root() const {
  const Location start{impl_->file, 1, 1};
  const Location location = location_of(impl_->root, impl_->file, start);
  if (!impl_->root.IsMap()) {
    throw ConfigError(location, "", "expected a mapping of keys to values at the top level, got " +
                                        describe(impl_->root));
  }
  return MapReader(make_state(impl_->root, impl_->file, "", location));
}

const std::string& Document::file_name() const { return impl_->file; }

std::string Document::to_yaml() const {
  YAML::Emitter out;
  out << impl_->root;
  return out.c_str();
}

std::optional<std::string> closest_name(std::string_view word, const std::vector<std::string>& candidates) {
  return closest(word, candidates);
}

}  // namespace ksim::config
