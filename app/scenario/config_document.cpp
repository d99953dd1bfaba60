// The scenario document: reading the file (bounded, text only), a properties
// file as a mapping, changing it by --set overrides, and the errors found.
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <sstream>
#include <vector>

#include "app/scenario/config_messages.hpp"
#include "app/scenario/config_reader.hpp"
#include "app/scenario/config_tree.hpp"
#include "app/scenario/properties_file.hpp"
#include "app/scenario/text_file.hpp"

namespace ksim::config {

using detail::describe;
using detail::join_path;
using detail::location_of;
using detail::make_state;
using detail::mark_location;
using detail::override_location;
using detail::single_quoted;

namespace {

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
    throw override_error("", "malformed override " + single_quoted(text) + ": expected key.path=value");
  }
  Assignment assignment;
  assignment.path = std::string(text.substr(0, equals));
  assignment.value = std::string(text.substr(equals + 1));
  assignment.segments = split_path(assignment.path);
  const bool has_empty_segment = std::ranges::any_of(assignment.segments, [](const auto& s) { return s.empty(); });
  if (has_empty_segment) {
    throw override_error(assignment.path, "malformed override " + single_quoted(text) + ": empty key in the path");
  }
  return assignment;
}

// A copy with no marks, so that readers locate it at "--set". An alias may make a
// node hold itself (&a [*a]): past kMaxDepth levels it is an error.
constexpr int kMaxDepth = 64;

YAML::Node without_marks(const YAML::Node& node, const Assignment& assignment, int depth = 0) {
  if (depth > kMaxDepth) {
    throw override_error(assignment.path, "the value nests deeper than " + std::to_string(kMaxDepth) +
                                              " levels (an alias inside itself?)");
  }
  switch (node.Type()) {
    case YAML::NodeType::Scalar: {
      YAML::Node copy(node.Scalar());
      copy.SetTag(node.Tag());
      return copy;
    }
    case YAML::NodeType::Sequence: {
      YAML::Node copy(YAML::NodeType::Sequence);
      for (const YAML::Node& item : node) copy.push_back(without_marks(item, assignment, depth + 1));
      return copy;
    }
    case YAML::NodeType::Map: {
      YAML::Node copy(YAML::NodeType::Map);
      for (auto it = node.begin(); it != node.end(); ++it) {
        copy[without_marks(it->first, assignment, depth + 1)] = without_marks(it->second, assignment, depth + 1);
      }
      return copy;
    }
    default:
      return YAML::Node(YAML::NodeType::Null);
  }
}

YAML::Node parse_override_value(const Assignment& assignment) {
  try {
    return without_marks(YAML::Load(assignment.value), assignment);
  } catch (const YAML::Exception& e) {
    throw override_error(assignment.path, "cannot parse value " + single_quoted(assignment.value) + ": " + e.msg);
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
  const std::string parent_path = depth == 0 ? "the root" : single_quoted(prefix_path(assignment, depth));
  if (parent.IsMap()) return parent[segment];
  if (!parent.IsSequence()) {
    throw override_error(assignment.path, "cannot set it: " + parent_path + " is " + describe(parent) +
                                              ", not a mapping or a list");
  }
  const std::optional<std::size_t> index = parse_index(segment);
  if (!index) {
    throw override_error(assignment.path, parent_path + " is a list, so " + single_quoted(segment) + " must be an index");
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

}  // namespace

// ---- Document ----------------------------------------------------------------

struct Document::Impl {
  YAML::Node root;
  std::string file;
  bool empty = false;
  std::shared_ptr<detail::Diagnostics> diagnostics = std::make_shared<detail::Diagnostics>();
};

Document::Document(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Document::Document(Document&&) noexcept = default;
Document& Document::operator=(Document&&) noexcept = default;
Document::~Document() = default;

Document Document::load_file(const std::string& path) {
  return from_string(read_text_file(path, kMaxFileBytes), path);
}

Document Document::load_properties(const std::string& path) {
  return from_string(properties_as_yaml(read_text_file(path, kMaxFileBytes)), path);
}

namespace {

// Where each YAML document of a text starts, from yaml-cpp's events.
struct DocumentStarts : YAML::EventHandler {
  std::vector<YAML::Mark> marks;
  void OnDocumentStart(const YAML::Mark& mark) override { marks.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// One YAML document, or an error. Not YAML::LoadAll: yaml-cpp 0.7 (Debian 12) loops for ever on a
// ',' outside a flow collection, a new empty document each time at the same place (yaml-cpp issue
// 1040, fixed by pull request 1319 in 0.8.1). Three documents at most are looked at; two starting
// at one place mean the parser is stuck there.
YAML::Node load_one_document(const std::string& text, const std::string& file_name) {
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStarts starts;
    for (int i = 0; i < 3 && parser.HandleNextDocument(starts); ++i) {
    }
    const auto& marks = starts.marks;
    for (std::size_t i = 1; i < marks.size(); ++i) {
      if (marks[i].pos == marks[i - 1].pos) {
        throw ConfigError(mark_location(file_name, marks[i]), "",
                          "invalid YAML: unexpected token here (a ',' outside [ ] or { }?)");
      }
    }
    if (marks.size() > 1) {
      throw ConfigError(mark_location(file_name, marks[1]), "", "expected one YAML document, found a second one");
    }
    return marks.empty() ? YAML::Node() : YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(mark_location(file_name, e.mark), "", "invalid YAML: " + excerpt(e.msg, 200));
  }
}

}  // namespace

Document Document::from_string(const std::string& text, std::string file_name) {
  const YAML::Node document = load_one_document(text, file_name);
  auto impl = std::make_unique<Impl>();
  impl->empty = document.IsNull();
  impl->root = impl->empty ? YAML::Load("{}") : document;
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
  impl_->empty = false;
}

MapReader Document::root() const {
  const Location start{impl_->file, 1, 1};
  const Location location = location_of(impl_->root, impl_->file, start);
  if (!impl_->root.IsMap()) {
    throw ConfigError(location, "", "expected a mapping of keys to values at the top level, got " +
                                        describe(impl_->root));
  }
  return MapReader(make_state(impl_->root, impl_->file, "", location, impl_->diagnostics));
}

bool Document::empty() const { return impl_->empty; }

const std::string& Document::file_name() const { return impl_->file; }

std::string Document::to_yaml() const {
  YAML::Emitter out;
  out << impl_->root;
  return out.c_str();
}

void Document::throw_if_errors() const {
  if (!impl_->diagnostics->errors.empty()) impl_->diagnostics->throw_all();
}

void Document::fail(const ConfigError& error) const {
  for (ConfigError& e : errors_of(error)) impl_->diagnostics->errors.push_back(std::move(e));
  impl_->diagnostics->throw_all();
}

const std::vector<ConfigError>& Document::errors() const { return impl_->diagnostics->errors; }

const std::vector<Warning>& Document::warnings() const { return impl_->diagnostics->warnings; }

void Document::accept_foreign_keys(bool accept) { impl_->diagnostics->accept_foreign = accept; }

const std::vector<IgnoredKey>& Document::ignored() const { return impl_->diagnostics->ignored; }

}  // namespace ksim::config
