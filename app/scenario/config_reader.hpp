#pragma once
// Strict reader for scenario files (YAML).
//
//   auto doc = config::Document::load_file("scenario.yaml");
//   doc.apply_override("network.jitter.median=5ms");          // --set
//   config::MapReader root = doc.root();
//   config::MapReader net = root.map("network");
//   SimTime latency = net.get<config::Duration>("latency", milliseconds(1));
//   int brokers = root.required<int>("brokers", {1, 1000});
//   root.finish();  // throws every error found, keys nobody asked about included
//
// Every key in the YAML must be asked about by someone, so typos surface as
// "unknown key 'jiter' (did you mean 'jitter'?)" instead of silently using a
// default. All failures are ConfigError, located at file:line:column.
//
// Errors are collected by the document: a bad value (wrong type, unit,
// range or choice), an unknown or duplicate key is recorded and reading goes
// on with the default, so that one run reports all of a file's errors;
// finish() (or Document::read) throws them together as ConfigErrors, in line
// order. An error the reader cannot go on from (a missing required key, an
// error thrown by model code, YAML that does not parse) is thrown at once;
// Document::read adds the errors recorded before it.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "sim/events/time.hpp"
#include "app/scenario/units.hpp"

namespace ksim::config {

// 1-based; line 0 = unknown (e.g. a value that came from --set).
struct Location {
  std::string file;
  int line = 0;
  int column = 0;
};

// what() = "file:line:column: key.path: message", or "file: key.path: message"
// when the line is unknown; the key path part is left out when empty.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(Location location, std::string key_path, std::string message);
  const Location& location() const { return location_; }
  const std::string& key_path() const { return key_path_; }
  const std::string& message() const { return message_; }

 private:
  Location location_;
  std::string key_path_;
  std::string message_;
};

// Several errors of one document, in line order (the first is this error's
// own location and message); what() has one per line, at most kReportedErrors.
class ConfigErrors : public ConfigError {
 public:
  static constexpr std::size_t kReportedErrors = 20;
  explicit ConfigErrors(std::vector<ConfigError> errors);  // not empty
  const std::vector<ConfigError>& errors() const { return errors_; }
  const char* what() const noexcept override;

 private:
  std::vector<ConfigError> errors_;
  std::string text_;
};

// Each error of `e`: itself, or those of a ConfigErrors.
std::vector<ConfigError> errors_of(const ConfigError& e);

// A located remark on a value that is accepted but probably not meant.
struct Warning {
  Location location;
  std::string key_path;
  std::string message;
  std::string text() const;  // "file:line:column: key.path: message"
};

// A key accepted without being read (a Kafka config ksim does not model,
// with ksim run --ignore-unmodelled).
struct IgnoredKey {
  Location location;
  std::string key_path;
};

// Names a map may hold that ksim knows but does not read, e.g. Kafka's
// producer configs: an unread key among them is reported as `what` (or,
// when the document accepts them, ignored and listed) instead of unknown.
struct ForeignKeys {
  const std::vector<std::string>* names = nullptr;  // sorted
  std::string what;  // "a Kafka producer config"
};

// ---- value types -----------------------------------------------------------
// Plain types read as themselves: bool, int, std::int64_t, std::uint64_t,
// double, std::string. Quantities with units are read through tags:
//   get<Duration>  -> SimTime (ns)       "250ms", "1.5s", "0"
//   get<Bytes>     -> std::uint64_t      "16KiB", "1MB", "512"
//   get<Rate>      -> double per second  "10k/s", "50/ms"
//   get<Bandwidth> -> double bytes/s     "10Gbps", "100MB/s"
//   get<Fraction>  -> double             "0.25", "50%"
struct Duration {};
struct Bytes {};
struct Rate {};
struct Bandwidth {};
struct Fraction {};

// Codec<T>: the value type read for T, how it is described in "expected ..."
// messages, how it is parsed and how it is shown in range messages.
template <class T>
struct Codec;

template <>
struct Codec<bool> {
  using value_type = bool;
  static constexpr std::string_view expected = "true or false";
  static units::ParseResult<bool> parse(std::string_view text);
  static std::string format(bool value);
};
template <>
struct Codec<int> {
  using value_type = int;
  static constexpr std::string_view expected = "an integer";
  static units::ParseResult<int> parse(std::string_view text);
  static std::string format(int value);
};
template <>
struct Codec<std::int64_t> {
  using value_type = std::int64_t;
  static constexpr std::string_view expected = "an integer";
  static units::ParseResult<std::int64_t> parse(std::string_view text);
  static std::string format(std::int64_t value);
};
template <>
struct Codec<std::uint64_t> {
  using value_type = std::uint64_t;
  static constexpr std::string_view expected = "a non-negative integer";
  static units::ParseResult<std::uint64_t> parse(std::string_view text);
  static std::string format(std::uint64_t value);
};
template <>
struct Codec<double> {
  using value_type = double;
  static constexpr std::string_view expected = "a number";
  static units::ParseResult<double> parse(std::string_view text);
  static std::string format(double value);
};
template <>
struct Codec<std::string> {
  using value_type = std::string;
  static constexpr std::string_view expected = "a string";
  static units::ParseResult<std::string> parse(std::string_view text);
  static std::string format(const std::string& value);
};
template <>
struct Codec<Duration> {
  using value_type = SimTime;
  static constexpr std::string_view expected = "a duration like 250ms";
  static units::ParseResult<SimTime> parse(std::string_view text);
  static std::string format(SimTime value);
};
template <>
struct Codec<Bytes> {
  using value_type = std::uint64_t;
  static constexpr std::string_view expected = "a size like 16KiB or 1MB";
  static units::ParseResult<std::uint64_t> parse(std::string_view text);
  static std::string format(std::uint64_t value);
};
template <>
struct Codec<Rate> {
  using value_type = double;
  static constexpr std::string_view expected = "a rate like 1000/s";
  static units::ParseResult<double> parse(std::string_view text);
  static std::string format(double value);
};
template <>
struct Codec<Bandwidth> {
  using value_type = double;
  static constexpr std::string_view expected = "a bandwidth like 10Gbps or 100MB/s";
  static units::ParseResult<double> parse(std::string_view text);
  static std::string format(double value);
};
template <>
struct Codec<Fraction> {
  using value_type = double;
  static constexpr std::string_view expected = "a fraction like 0.5 or 50%";
  static units::ParseResult<double> parse(std::string_view text);
  static std::string format(double value);
};

template <class T>
using Value = typename Codec<T>::value_type;

// A value a recording map resolved for a key: the one read, or the default
// when the key was absent. What `ksim validate --resolved` prints of Kafka's
// config maps, so that the reader's names and defaults are the only table.
struct ResolvedValue {
  std::variant<bool, std::int64_t, std::uint64_t, double, std::string> value;
  bool duration = false;  // an std::int64_t of nanoseconds (a Duration)

  template <class T>
  static ResolvedValue of(const Value<T>& v) {
    if constexpr (std::is_same_v<T, Duration>) {
      return {std::int64_t{v}, true};
    } else if constexpr (std::is_same_v<Value<T>, bool> || std::is_same_v<Value<T>, std::string> ||
                         std::is_same_v<Value<T>, double> || std::is_same_v<Value<T>, std::uint64_t>) {
      return {v, false};
    } else {
      return {static_cast<std::int64_t>(v), false};
    }
  }
};
// Key -> resolved value, in the order the keys were first asked about.
using ResolvedValues = std::vector<std::pair<std::string, ResolvedValue>>;

// Inclusive bounds: get<int>("port", 9092, {1, 65535}),
// get<Duration>("timeout", seconds(1), Range<SimTime>::at_least(milliseconds(1))).
template <class V>
struct Range {
  V min;
  V max;

  Range(V min_value, V max_value) : min(min_value), max(max_value) {}
  template <class U>
  Range(const Range<U>& other) : min(static_cast<V>(other.min)), max(static_cast<V>(other.max)) {}

  static Range at_least(V lowest) { return {lowest, std::numeric_limits<V>::max()}; }
  static Range at_most(V highest) { return {std::numeric_limits<V>::lowest(), highest}; }

  bool contains(const V& value) const { return !(value < min) && !(max < value); }
  bool has_min() const { return min != std::numeric_limits<V>::lowest(); }
  bool has_max() const { return max != std::numeric_limits<V>::max(); }
};

namespace detail {
struct ReaderState;

// "expected a duration like 250ms, got '10' (missing unit, e.g. 250ms)"
std::string mismatch_message(std::string_view expected, std::string_view text, std::string_view reason);
// "must be between 1 and 65535, got 0" / "must be at least 1ms, got 0"
std::string range_message(const std::optional<std::string>& min, const std::optional<std::string>& max,
                          std::string_view text);

// A duration under a key named like Kafka's configs ("linger.ms") may be a
// bare number in the key's unit, as in a properties file.
template <class T>
units::ParseResult<Value<T>> parse_for(std::string_view text, std::string_view key) {
  if constexpr (std::is_same_v<T, Duration>) {
    return units::parse_duration(text, units::bare_duration_unit(key));
  } else {
    return Codec<T>::parse(text);
  }
}

// Parses and range-checks one scalar; the failure text is a ConfigError message.
template <class T>
units::ParseResult<Value<T>> decode(std::string_view text, const Range<Value<T>>* range, std::string_view key = {}) {
  auto parsed = parse_for<T>(text, key);
  if (!parsed) return units::ParseResult<Value<T>>::failure(mismatch_message(Codec<T>::expected, text, parsed.error()));
  if (range != nullptr && !range->contains(parsed.value())) {
    const auto min = range->has_min() ? std::optional(Codec<T>::format(range->min)) : std::nullopt;
    const auto max = range->has_max() ? std::optional(Codec<T>::format(range->max)) : std::nullopt;
    return units::ParseResult<Value<T>>::failure(range_message(min, max, text));
  }
  return parsed;
}
}  // namespace detail

class ListReader;

// A view of one YAML mapping. Copies share the record of which keys were read.
class MapReader {
 public:
  template <class T>
  Value<T> get(std::string_view key, Value<T> default_value) {
    return noted<T>(key, optional_value<T>(key, nullptr).value_or(std::move(default_value)));
  }
  template <class T>
  Value<T> get(std::string_view key, Value<T> default_value, const Range<Value<T>>& range) {
    return noted<T>(key, optional_value<T>(key, &range).value_or(std::move(default_value)));
  }
  template <class T>
  std::optional<Value<T>> optional(std::string_view key) {
    return noted<T>(key, optional_value<T>(key, nullptr));
  }
  template <class T>
  std::optional<Value<T>> optional(std::string_view key, const Range<Value<T>>& range) {
    return noted<T>(key, optional_value<T>(key, &range));
  }
  template <class T>
  Value<T> required(std::string_view key) {
    return noted<T>(key, required_value<T>(key, nullptr));
  }
  template <class T>
  Value<T> required(std::string_view key, const Range<Value<T>>& range) {
    return noted<T>(key, required_value<T>(key, &range));
  }

  // One of `choices`; otherwise "must be one of 'a', 'b' or 'c', got 'x' (did you mean 'b'?)".
  std::string get_choice(std::string_view key, std::initializer_list<std::string_view> choices,
                         std::string_view default_value);

  bool has(std::string_view key) const;  // does not count as reading the key
  bool has_map(std::string_view key) const;  // present and a mapping; does not count as reading
  bool has_list(std::string_view key) const;  // present and a sequence; does not count as reading
  std::vector<std::string> keys() const;  // in document order, for maps keyed by names

  MapReader map(std::string_view key);    // absent or empty value -> empty reader
  ListReader list(std::string_view key);  // absent or empty value -> empty list
  void ignore(std::string_view key);      // accept the key (and everything under it) unread

  // Keys this map may hold unread (Kafka's configs that ksim does not model).
  void foreign_keys(const ForeignKeys& foreign);
  // From now on, every value read from this map (get, optional, required,
  // get_choice), or the default given for an absent key, is recorded;
  // resolved() lists them. Reading is not changed.
  void record_values();
  ResolvedValues resolved() const;
  // Defaults for this map's keys from another document (a properties file
  // given as config_file); the map's own keys win. Its errors are located there.
  void add_defaults(const MapReader& defaults);

  // Records an error for each key that nobody asked about, in this map or in
  // any map or list reached from it; then throws every error the document
  // has recorded (ConfigErrors). Never called implicitly.
  void finish();
  void finish_keys();  // the same without throwing (a map read again later)

  // A recoverable error at `key`: recorded, and reading goes on.
  void reject(std::string_view key, std::string message);
  // A warning at `key`, listed with the scenario.
  void warn(std::string_view key, std::string message);
  const std::string& file() const;  // the document's file

  Location location() const;
  const std::string& path() const;  // "network.jitter"; "" for the root
  // For model code doing its own checks; located at the key's value.
  ConfigError error(std::string_view key, std::string message) const;

 private:
  friend class Document;
  friend class ListReader;
  explicit MapReader(std::shared_ptr<detail::ReaderState> state);

  bool recording() const;
  void note(std::string_view key, ResolvedValue value);
  template <class T>
  Value<T> noted(std::string_view key, Value<T> value) {
    if (recording()) note(key, ResolvedValue::of<T>(value));
    return value;
  }
  template <class T>
  std::optional<Value<T>> noted(std::string_view key, std::optional<Value<T>> value) {
    if (value && recording()) note(key, ResolvedValue::of<T>(*value));
    return value;
  }

  template <class T>
  std::optional<Value<T>> optional_value(std::string_view key, const Range<Value<T>>* range) {
    const std::optional<std::string> text = scalar(key, Codec<T>::expected);
    if (!text) return std::nullopt;
    auto decoded = detail::decode<T>(*text, range, key);
    if (!decoded) {
      reject(key, decoded.error());
      return std::nullopt;
    }
    return decoded.value();
  }
  template <class T>
  Value<T> required_value(std::string_view key, const Range<Value<T>>* range) {
    std::optional<Value<T>> value = optional_value<T>(key, range);
    if (value) return std::move(*value);
    if (!has(key)) throw missing(key);
    stop();  // a bad value, recorded: no default to go on with
  }

  // Marks `key` as read; its scalar text, or nullopt when absent (or, after
  // recording an error, when the value is a mapping, a list or empty).
  std::optional<std::string> scalar(std::string_view key, std::string_view expected);
  ConfigError missing(std::string_view key) const;
  [[noreturn]] void stop() const;  // throws the errors recorded so far

  std::shared_ptr<detail::ReaderState> state_;
};

// A view of one YAML sequence; items are addressed as "path.index".
class ListReader {
 public:
  std::size_t size() const;
  bool empty() const { return size() == 0; }

  MapReader map_at(std::size_t index);  // empty item -> empty reader
  ListReader list_at(std::size_t index);  // a list of lists; empty item -> empty list
  template <class T>
  Value<T> at(std::size_t index) const {
    return value_at<T>(index, nullptr);
  }
  template <class T>
  Value<T> at(std::size_t index, const Range<Value<T>>& range) const {
    return value_at<T>(index, &range);
  }
  template <class T>
  std::vector<Value<T>> values() const {
    std::vector<Value<T>> all;
    for (std::size_t i = 0; i < size(); ++i) all.push_back(at<T>(i));
    return all;
  }

  Location location() const;
  const std::string& path() const;
  ConfigError error(std::size_t index, std::string message) const;

 private:
  friend class MapReader;
  explicit ListReader(std::shared_ptr<detail::ReaderState> state);

  template <class T>
  Value<T> value_at(std::size_t index, const Range<Value<T>>* range) const {
    const std::string text = scalar_at(index, Codec<T>::expected);
    auto decoded = detail::decode<T>(text, range);
    if (!decoded) throw error(index, decoded.error());  // no default to go on with
    return decoded.value();
  }
  std::string scalar_at(std::size_t index, std::string_view expected) const;
  void record(ConfigError error) const;

  std::shared_ptr<detail::ReaderState> state_;
};

// Owns the parsed YAML tree, the file name and what reading it found.
class Document {
 public:
  // What load_file reads at most: a scenario is a few KiB.
  static constexpr std::size_t kMaxFileBytes = 4 << 20;
  // Refuses a directory, a file over kMaxFileBytes (a device or FIFO is read
  // up to it), and binary text (a NUL byte, invalid UTF-8).
  static Document load_file(const std::string& path);
  static Document from_string(const std::string& text, std::string file_name);
  // A Java properties file (key=value lines) as a flat mapping of strings,
  // each located at its line; for a Kafka client's or broker's config_file.
  static Document load_properties(const std::string& path);

  Document(Document&&) noexcept;
  Document& operator=(Document&&) noexcept;
  ~Document();

  // "network.jitter.median=5ms", "faults.0.at=3s", "clients.count=4".
  // Missing maps are created; a numeric segment indexes an existing list
  // item; the value is parsed as YAML ("true", "[1, 2]", "{a: 1}").
  // Errors are ConfigError with file "--set".
  void apply_override(std::string_view assignment);

  MapReader root() const;  // an empty file reads as an empty mapping
  bool empty() const;      // nothing but comments and blank lines
  const std::string& file_name() const;
  std::string to_yaml() const;  // the tree after overrides, for reports

  // Runs `read` (which reads this document); throws the errors it recorded,
  // with the one it threw, if any, as one ConfigErrors in line order.
  template <class Read>
  auto read(Read&& read) const -> decltype(read()) {
    try {
      if constexpr (std::is_void_v<decltype(read())>) {
        read();
        throw_if_errors();
      } else {
        auto result = read();
        throw_if_errors();
        return result;
      }
    } catch (const ConfigError& e) {
      fail(e);
    }
  }
  void throw_if_errors() const;
  [[noreturn]] void fail(const ConfigError& error) const;  // `error` after the recorded ones
  const std::vector<ConfigError>& errors() const;  // recorded so far
  const std::vector<Warning>& warnings() const;
  // Foreign keys (Kafka configs ksim does not model) are accepted and listed, not errors.
  void accept_foreign_keys(bool accept);
  const std::vector<IgnoredKey>& ignored() const;

 private:
  struct Impl;
  explicit Document(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// At most `limit` characters of `text`, unprintable bytes as \xNN, "..." when cut:
// what an error message shows of a value or key.
std::string excerpt(std::string_view text, std::size_t limit = 60);

// The candidate closest to `word` if it is a plausible typo of it (for "did you mean").
std::optional<std::string> closest_name(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace ksim::config
