// Java properties files (Kafka's client and server configs) as YAML.
#include "app/scenario/properties_file.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <vector>

namespace ksim::config {

namespace {

// A Java properties file's logical lines (java.util.Properties.load, which
// Kafka's tools use): '#' or '!' comments, key=value, key: value or
// "key value", a trailing backslash continues the line, \t \n \uXXXX escapes.
struct Property {
  std::string key, value;
  int line = 0;
};

std::string unescape(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    const char c = text[++i];
    if (c == 't') out += '\t';
    else if (c == 'n') out += '\n';
    else if (c == 'r') out += '\r';
    else if (c == 'f') out += '\f';
    else if (c == 'u' && i + 4 < text.size()) {
      unsigned code = 0;
      const auto [end, ec] = std::from_chars(text.data() + i + 1, text.data() + (i + 5), code, 16);
      if (ec != std::errc{} || end != text.data() + (i + 5)) {
        out += 'u';
        continue;
      }
      i += 4;
      if (code < 0x80) out += static_cast<char>(code);
      else if (code < 0x800) out += {static_cast<char>(0xC0 | (code >> 6)), static_cast<char>(0x80 | (code & 0x3F))};
      else out += {static_cast<char>(0xE0 | (code >> 12)), static_cast<char>(0x80 | ((code >> 6) & 0x3F)),
                   static_cast<char>(0x80 | (code & 0x3F))};
    } else {
      out += c;
    }
  }
  return out;
}

std::vector<Property> parse_properties(std::string_view text) {
  std::vector<Property> properties;
  int line_number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::string logical;
    const int first_line = line_number + 1;
    bool continued = true;
    while (continued && pos < text.size()) {
      const std::size_t end = std::min(text.find('\n', pos), text.size());
      std::string_view line = text.substr(pos, end - pos);
      pos = end + 1;
      ++line_number;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      const std::size_t start = line.find_first_not_of(" \t\f");
      line = start == std::string_view::npos ? std::string_view() : line.substr(start);
      if (logical.empty() && (line.empty() || line.front() == '#' || line.front() == '!')) break;
      std::size_t backslashes = 0;
      while (backslashes < line.size() && line[line.size() - 1 - backslashes] == '\\') ++backslashes;
      continued = backslashes % 2 == 1;
      logical += continued ? line.substr(0, line.size() - 1) : line;
    }
    if (logical.empty()) continue;
    std::size_t split = 0;
    while (split < logical.size() && logical[split] != '=' && logical[split] != ':' && logical[split] != ' ' &&
           logical[split] != '\t') {
      split += logical[split] == '\\' ? 2 : 1;
    }
    split = std::min(split, logical.size());
    std::size_t value = logical.find_first_not_of(" \t\f", split);
    if (value != std::string::npos && (logical[value] == '=' || logical[value] == ':')) {
      value = logical.find_first_not_of(" \t\f", value + 1);
    }
    properties.push_back({unescape(std::string_view(logical).substr(0, split)),
                          value == std::string::npos ? "" : unescape(std::string_view(logical).substr(value)), first_line});
  }
  return properties;
}

// A YAML flow mapping with each property on its own line, so that yaml-cpp's
// marks give the properties file's line numbers.
std::string yaml_of(const std::vector<Property>& properties) {
  const auto double_quoted = [](const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
      if (c == '"' || c == '\\') out += '\\';
      if (c == '\n') {
        out += "\\n";
        continue;
      }
      out += c;
    }
    return out + "\"";
  };
  std::string yaml;
  int line = 1;
  for (const Property& p : properties) {
    for (; line < p.line; ++line) yaml += "\n";
    yaml += double_quoted(p.key) + ": " + double_quoted(p.value) + "\n";
    ++line;
  }
  return yaml;
}

}  // namespace

std::string properties_as_yaml(std::string_view text) {
  std::vector<Property> properties = parse_properties(text);
  // A key given twice: java.util.Properties keeps the last value.
  std::vector<Property> last;
  for (auto it = properties.rbegin(); it != properties.rend(); ++it) {
    if (std::none_of(last.begin(), last.end(), [&](const Property& p) { return p.key == it->key; })) last.push_back(*it);
  }
  std::reverse(last.begin(), last.end());
  return yaml_of(last);
}

}  // namespace ksim::config
