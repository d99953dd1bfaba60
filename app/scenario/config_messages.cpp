// What the config reader says when something is wrong: ConfigError's text,
// the "expected ..." and range messages, and "did you mean" suggestions.
#include "app/scenario/config_messages.hpp"

#include <algorithm>
#include <vector>

#include "app/scenario/config_reader.hpp"

namespace ksim::config {

namespace detail {

std::string single_quoted(std::string_view text) { return "'" + excerpt(text) + "'"; }

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

std::string did_you_mean(const std::optional<std::string>& suggestion) {
  return suggestion ? " (did you mean " + single_quoted(*suggestion) + "?)" : "";
}

std::string mismatch_message(std::string_view expected, std::string_view text, std::string_view reason) {
  std::string message = "expected " + std::string(expected) + ", got " + single_quoted(text);
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

// ---- ConfigError ---------------------------------------------------------------

std::string excerpt(std::string_view text, std::size_t limit) {
  std::string out;
  std::size_t shown = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (shown >= limit) return out + "...";
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      constexpr char kHex[] = "0123456789abcdef";
      out += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
    } else {
      out += static_cast<char>(c);  // UTF-8 is checked when the file is read
    }
    if ((c & 0xC0) != 0x80) ++shown;  // count characters, not continuation bytes
  }
  return out;
}

namespace {
constexpr std::size_t kKeyPathLimit = 120;

std::string error_text(const Location& location, const std::string& key_path, const std::string& message) {
  std::string text = excerpt(location.file, kKeyPathLimit);
  if (location.line > 0) {
    text += ":" + std::to_string(location.line);
    if (location.column > 0) text += ":" + std::to_string(location.column);
  }
  if (!text.empty()) text += ": ";
  if (!key_path.empty()) text += excerpt(key_path, kKeyPathLimit) + ": ";
  return text + message;
}

std::string errors_text(const std::vector<ConfigError>& errors) {
  std::string text;
  const std::size_t shown = std::min(errors.size(), ConfigErrors::kReportedErrors);
  for (std::size_t i = 0; i < shown; ++i) text += (i == 0 ? "" : "\n") + std::string(errors[i].what());
  if (errors.size() > shown) text += "\n... and " + std::to_string(errors.size() - shown) + " more errors";
  return text;
}
}  // namespace

ConfigError::ConfigError(Location location, std::string key_path, std::string message)
    : std::runtime_error(error_text(location, key_path, message)),
      location_(std::move(location)),
      key_path_(std::move(key_path)),
      message_(std::move(message)) {}

ConfigErrors::ConfigErrors(std::vector<ConfigError> errors)
    : ConfigError(errors.front().location(), errors.front().key_path(), errors.front().message()),
      errors_(std::move(errors)) {
  text_ = errors_text(errors_);
}

const char* ConfigErrors::what() const noexcept { return text_.c_str(); }

std::vector<ConfigError> errors_of(const ConfigError& e) {
  if (const auto* several = dynamic_cast<const ConfigErrors*>(&e)) return several->errors();
  return {e};
}

std::string Warning::text() const { return error_text(location, key_path, message); }

std::optional<std::string> closest_name(std::string_view word, const std::vector<std::string>& candidates) {
  return detail::closest(word, candidates);
}

}  // namespace ksim::config
