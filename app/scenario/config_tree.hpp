#pragma once
// The YAML tree as the config readers see it: the state shared by a reader and
// its copies, where a node is (file:line:column, or "--set"), and exact key
// lookup. Internal to app/scenario/config_*.cpp.
#include <yaml-cpp/yaml.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "app/scenario/config_reader.hpp"

namespace ksim::config::detail {

// What reading one document found: the errors that did not stop it, the
// warnings and the keys accepted unread. Shared by the document's readers.
struct Diagnostics {
  // Past this many errors reading stops: the input is not a scenario.
  static constexpr std::size_t kMaxRecorded = 200;
  std::vector<ConfigError> errors;
  std::vector<Warning> warnings;
  std::vector<IgnoredKey> ignored;
  bool accept_foreign = false;

  void add(ConfigError error);  // throws them all past kMaxRecorded
  [[noreturn]] void throw_all() const;
};

// What a MapReader or ListReader (and all its copies) know about one node.
struct ReaderState {
  YAML::Node node;    // undefined when the key is absent
  std::string file;   // the document's file name
  std::string path;   // "network.jitter"; "" for the root
  Location location;  // the node's own position, else the nearest ancestor's
  std::set<std::string, std::less<>> requested;  // keys asked about (maps only)
  std::map<std::string, std::shared_ptr<ReaderState>, std::less<>> children;  // by key or index
  std::shared_ptr<Diagnostics> diagnostics;
  std::optional<ForeignKeys> foreign;       // keys known but not read
  std::shared_ptr<ReaderState> defaults;    // a config_file's keys, under this map's own
  bool recording = false;                   // MapReader::record_values
  ResolvedValues resolved;                  // what a recording map resolved, by key
};

// Where values given by --set are located.
Location override_location();

Location mark_location(const std::string& file, const YAML::Mark& mark);

// Nodes made by apply_override carry no mark: they are located at "--set".
Location location_of(const YAML::Node& node, const std::string& file, const Location& fallback);

std::string join_path(std::string_view path, std::string_view segment);

// How a node shows up after "got": "a mapping", "a list", "nothing", "'abc'".
std::string describe(const YAML::Node& node);

struct Entry {
  YAML::Node key;
  YAML::Node value;
  const std::string* file = nullptr;  // the file it was read from
};

// Exact, string-wise lookup (no yaml-cpp conversions, no node creation).
std::optional<Entry> find_entry(const YAML::Node& map, std::string_view key);
// The same in a reader's map, then in its defaults (a config_file).
std::optional<Entry> find_entry(const ReaderState& state, std::string_view key);

// An empty value ("key:") is located at its key: yaml-cpp puts its mark on the next token.
Location value_location(const ReaderState& state, const Entry& entry);

Location key_location(const ReaderState& state, std::string_view key);

// A reader's state for `node`; records an error for a duplicate key.
std::shared_ptr<ReaderState> make_state(YAML::Node node, std::string file, std::string path, Location location,
                                        std::shared_ptr<Diagnostics> diagnostics);

// The same key always yields the same child state, so two readers of one
// sub-map share what was read.
std::shared_ptr<ReaderState> child_state(ReaderState& parent, std::string_view segment, const YAML::Node& node,
                                         const Location& location);

}  // namespace ksim::config::detail
