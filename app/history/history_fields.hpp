#pragma once
// Strict access to the fields of one history line (a JSON object): each
// field asked for by name and type, with a located error ("h.jsonl:12:
// ack.offset: missing field") for a missing field, a wrong type or a value
// out of range, and for every field nobody asked for (finish).
#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "app/scenario/config_reader.hpp"

namespace ksim::app::history {

class Fields {
 public:
  // `what`: the event's kind, or a path inside it ("header.topics.0").
  Fields(const nlohmann::json& object, config::Location where, std::string what);

  std::int64_t integer(const std::string& key, std::int64_t min, std::int64_t max);
  std::uint64_t unsigned_integer(const std::string& key);
  bool boolean(const std::string& key);
  std::string text(const std::string& key);
  std::optional<std::string> text_or_null(const std::string& key);
  const nlohmann::json& array(const std::string& key);
  // A field that is an object, read with its own Fields.
  Fields object(const std::string& key);
  bool has(const std::string& key) const;
  const nlohmann::json& raw(const std::string& key);  // any type; must be present

  // Every field read? Otherwise the first unknown one is an error.
  void finish() const;

  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  const config::Location& where() const { return where_; }
  const std::string& what() const { return what_; }

 private:
  const nlohmann::json& field(const std::string& key);

  const nlohmann::json& object_;
  config::Location where_;
  std::string what_;
  std::set<std::string> read_;
};

// An element of a JSON array as a Fields, located at the array's line.
Fields element(const nlohmann::json& array, std::size_t index, const Fields& parent, const std::string& key);

}  // namespace ksim::app::history
