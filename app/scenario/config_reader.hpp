#pragma once
// Strict reader for scenario files (YAML).
//
//   auto doc = config::Document::load_file("scenario.yaml");
//   doc.apply_override("network.jitter.median=5ms");          // --set
//   config::MapReader root = doc.root();
//   config::MapReader net = root.map("network");
//   SimTime latency = net.get<config::Duration>("latency", milliseconds(1));
//   int brokers = root.required<int>("brokers", {1, 1000});
//   root.finish();  // throws for the first key nobody asked about
//
// Every key in the YAML must be asked about by someone, so typos surface as
// "unknown key 'jiter' (did you mean 'jitter'?)" instead of silently using a
// default. All failures are ConfigError, located at file:line:column.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
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

// Parses and range-checks one scalar; the failure text is a ConfigError message.
template <class T>
units::ParseResult<Value<T>> decode(std::string_view text, const Range<Value<T>>* range) {
  auto parsed = Codec<T>::parse(text);
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
    return optional_value<T>(key, nullptr).value_or(std::move(default_value));
  }
  template <class T>
  Value<T> get(std::string_view key, Value<T> default_value, const Range<Value<T>>& range) {
    return optional_value<T>(key, &range).value_or(std::move(default_value));
  }
  template <class T>
  std::optional<Value<T>> optional(std::string_view key) {
    return optional_value<T>(key, nullptr);
  }
  template <class T>
  std::optional<Value<T>> optional(std::string_view key, const Range<Value<T>>& range) {
    return optional_value<T>(key, &range);
  }
  template <class T>
  Value<T> required(std::string_view key) {
    return required_value<T>(key, nullptr);
  }
  template <class T>
  Value<T> required(std::string_view key, const Range<Value<T>>& range) {
    return required_value<T>(key, &range);
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

  // Throws for the first key, in document order, that nobody asked about, in
  // this map or in any map or list reached from it. Never called implicitly.
  void finish();

  Location location() const;
  const std::string& path() const;  // "network.jitter"; "" for the root
  // For model code doing its own checks; located at the key's value.
  ConfigError error(std::string_view key, std::string message) const;

 private:
  friend class Document;
  friend class ListReader;
  explicit MapReader(std::shared_ptr<detail::ReaderState> state);

  template <class T>
  std::optional<Value<T>> optional_value(std::string_view key, const Range<Value<T>>* range) {
    const std::optional<std::string> text = scalar(key, Codec<T>::expected);
    if (!text) return std::nullopt;
    auto decoded = detail::decode<T>(*text, range);
    if (!decoded) throw error(key, decoded.error());
    return decoded.value();
  }
  template <class T>
  Value<T> required_value(std::string_view key, const Range<Value<T>>* range) {
    std::optional<Value<T>> value = optional_value<T>(key, range);
    if (!value) throw missing(key);
    return std::move(*value);
  }

  // Marks `key` as read; its scalar text, or nullopt when absent.
  // Throws when the value is a mapping, a list or empty.
  std::optional<std::string> scalar(std::string_view key, std::string_view expected);
  ConfigError missing(std::string_view key) const;

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
    if (!decoded) throw error(index, decoded.error());
    return decoded.value();
  }
  std::string scalar_at(std::size_t index, std::string_view expected) const;

  std::shared_ptr<detail::ReaderState> state_;
};

// Owns the parsed YAML tree and the file name.
class Document {
 public:
  static Document load_file(const std::string& path);
  static Document from_string(const std::string& text, std::string file_name);

  Document(Document&&) noexcept;
  Document& operator=(Document&&) noexcept;
  ~Document();

  // "network.jitter.median=5ms", "faults.0.at=3s", "clients.count=4".
  // Missing maps are created; a numeric segment indexes an existing list
  // item; the value is parsed as YAML ("true", "[1, 2]", "{a: 1}").
  // Errors are ConfigError with file "--set".
  void apply_override(std::string_view assignment);

  MapReader root() const;  // an empty file reads as an empty mapping
  const std::string& file_name() const;
  std::string to_yaml() const;  // the tree after overrides, for reports

 private:
  struct Impl;
  explicit Document(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The candidate closest to `word` if it is a plausible typo of it (for "did you mean").
std::optional<std::string> closest_name(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace ksim::config
