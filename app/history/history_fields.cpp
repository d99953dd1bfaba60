#include "app/history/history_fields.hpp"

namespace ksim::app::history {

using nlohmann::json;

namespace {

std::string type_name(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number with a fraction";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return "something else";
  }
}

}  // namespace

Fields::Fields(const json& object, config::Location where, std::string what)
    : object_(object), where_(std::move(where)), what_(std::move(what)) {
  if (!object_.is_object()) fail("", "expected an object, got " + type_name(object_));
}

void Fields::fail(const std::string& key, const std::string& message) const {
  throw config::ConfigError(where_, key.empty() ? what_ : what_ + "." + key, message);
}

bool Fields::has(const std::string& key) const { return object_.contains(key); }

const json& Fields::field(const std::string& key) {
  read_.insert(key);
  const auto it = object_.find(key);
  if (it == object_.end()) fail(key, "missing field");
  return *it;
}

const json& Fields::raw(const std::string& key) { return field(key); }

std::int64_t Fields::integer(const std::string& key, std::int64_t min, std::int64_t max) {
  const json& value = field(key);
  std::int64_t n = 0;
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(INT64_MAX)) fail(key, "out of range: " + value.dump());
    n = static_cast<std::int64_t>(u);
  } else if (value.is_number_integer()) {
    n = value.get<std::int64_t>();
  } else {
    fail(key, "expected an integer, got " + type_name(value));
  }
  if (n < min || n > max) {
    fail(key, "out of range: " + std::to_string(n) + " (expected " + std::to_string(min) + " to " + std::to_string(max) + ")");
  }
  return n;
}

std::uint64_t Fields::unsigned_integer(const std::string& key) {
  const json& value = field(key);
  if (!value.is_number_unsigned()) fail(key, "expected a non-negative integer, got " + type_name(value));
  return value.get<std::uint64_t>();
}

bool Fields::boolean(const std::string& key) {
  const json& value = field(key);
  if (!value.is_boolean()) fail(key, "expected true or false, got " + type_name(value));
  return value.get<bool>();
}

std::string Fields::text(const std::string& key) {
  const json& value = field(key);
  if (!value.is_string()) fail(key, "expected a string, got " + type_name(value));
  return value.get<std::string>();
}

std::optional<std::string> Fields::text_or_null(const std::string& key) {
  const json& value = field(key);
  if (value.is_null()) return std::nullopt;
  if (!value.is_string()) fail(key, "expected a string or null, got " + type_name(value));
  return value.get<std::string>();
}

const json& Fields::array(const std::string& key) {
  const json& value = field(key);
  if (!value.is_array()) fail(key, "expected an array, got " + type_name(value));
  return value;
}

Fields Fields::object(const std::string& key) {
  const json& value = field(key);
  if (!value.is_object()) fail(key, "expected an object, got " + type_name(value));
  return Fields(value, where_, what_ + "." + key);
}

void Fields::finish() const {
  for (const auto& [key, value] : object_.items()) {
    if (!read_.contains(key)) fail(key, "unknown field '" + config::excerpt(key) + "'");
  }
}

Fields element(const json& array, std::size_t index, const Fields& parent, const std::string& key) {
  return Fields(array[index], parent.where(), parent.what() + "." + key + "." + std::to_string(index));
}

}  // namespace ksim::app::history
