#include "app/scenario/expectations.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "app/scenario/scenario.hpp"

namespace ksim::app {

using config::MapReader;

namespace {

// A key one map of `expect:` may hold, and the figure it names.
struct Candidate {
  std::string key;
  const ExpectableSection* section = nullptr;
  const ExpectableFigure* figure = nullptr;
  bool at_most = false;  // a bound's max_
};

// The keys of the catalogue's sections of `scopes`: a bound's max_ and min_, the others as they are.
std::vector<Candidate> keys_of(const ExpectationCatalogue& catalogue, std::initializer_list<SectionScope> scopes) {
  std::vector<Candidate> keys;
  for (const ExpectableSection& section : catalogue) {
    if (std::find(scopes.begin(), scopes.end(), section.scope) == scopes.end()) continue;
    for (const ExpectableFigure& figure : section.figures) {
      const std::string key(figure.key);
      switch (figure.as) {
        case ExpectAs::Nothing: break;
        case ExpectAs::Bound:
          if (!boundable(figure.unit)) throw std::logic_error("a bound on '" + config::excerpt(key) + "', whose unit has none");
          keys.push_back({"max_" + key, &section, &figure, true});
          keys.push_back({"min_" + key, &section, &figure, false});
          break;
        case ExpectAs::Count:
        case ExpectAs::Flag:
        case ExpectAs::Guarantee: keys.push_back({key, &section, &figure}); break;
      }
    }
  }
  for (std::size_t i = 0; i < keys.size(); ++i) {
    for (std::size_t j = i + 1; j < keys.size(); ++j) {
      if (keys[i].key == keys[j].key) throw std::logic_error("two figures are expectable as '" + config::excerpt(keys[i].key) + "'");
    }
  }
  return keys;
}

// What `scenario` lacks for its report to have a section of `scope`; "" when nothing.
std::string missing_section(SectionScope scope, const Scenario& scenario) {
  switch (scope) {
    case SectionScope::Run:
    case SectionScope::Group:
    case SectionScope::ShareGroup: return "";  // a group's expectations name the group, checked before its keys
    case SectionScope::Rpc: return scenario.rpc ? "" : "no rpc workload (no rpc: section)";
    case SectionScope::Kafka: return scenario.kafka ? "" : "no Kafka cluster (no brokers: section)";
    case SectionScope::Transactions:
      return scenario.kafka && scenario.kafka->has_transactions() ? "" : "no transactional producer (no transactional.id)";
    case SectionScope::Tiered:
      if (scenario.kafka && std::any_of(scenario.kafka->topics.begin(), scenario.kafka->topics.end(),
                                        [](const auto& t) { return t.log.remote_storage_enable; })) {
        return "";
      }
      return "no topic with remote.storage.enable";
  }
  return "";
}

CountExpectation read_count(MapReader& in, std::string_view key) {
  const std::string text = in.required<std::string>(key);
  CountExpectation e;
  std::size_t digits = 0;
  for (const char* op : {">=", "<=", ">", "<", "=="}) {
    if (text.rfind(op, 0) == 0) {
      e.op = op;
      digits = std::string_view(op).size();
      break;
    }
  }
  const std::string number = text.substr(digits);
  if (number.empty() || !std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    throw in.error(key, "expected a count or a comparison like \">0\", \"0\" or \"<=10\", got '" + config::excerpt(text) + "'");
  }
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), e.value);
  if (ec != std::errc{}) throw in.error(key, "the count '" + config::excerpt(number) + "' is too large");
  return e;
}

// A bound, in the figure's unit: a duration is read as one and kept in the unit's ms or s.
double read_bound(MapReader& in, std::string_view key, FigureUnit unit) {
  switch (unit) {
    case FigureUnit::Count:
    case FigureUnit::Records: return static_cast<double>(in.required<std::uint64_t>(key));
    case FigureUnit::Bytes: return static_cast<double>(in.required<config::Bytes>(key));
    case FigureUnit::Fraction: return in.required<config::Fraction>(key, {0.0, 1.0});
    case FigureUnit::Milliseconds: return to_milliseconds(in.required<config::Duration>(key));
    case FigureUnit::Seconds: return to_seconds(in.required<config::Duration>(key));
    case FigureUnit::PartitionSeconds:
    case FigureUnit::Ratio: return in.required<double>(key, {0.0, 1e12});
    case FigureUnit::PerSecond:
    case FigureUnit::RecordsPerSecond: return in.required<config::Rate>(key);
    case FigureUnit::BytesPerSecond: return in.required<config::Bandwidth>(key);
    case FigureUnit::Held:
    case FigureUnit::Flag:
    case FigureUnit::Verdict:
    case FigureUnit::Text:
    case FigureUnit::Names: break;
  }
  throw std::logic_error("a bound on '" + std::string(key) + "', whose unit has none");
}

Expectation read_one(MapReader& in, const Candidate& c, const std::string& prefix, const std::string& group) {
  Expectation e;
  e.name = prefix + c.key;
  e.section = std::string(c.section->name);
  e.group = group;
  e.figure = std::string(c.figure->figure);
  e.as = c.figure->as;
  switch (e.as) {
    case ExpectAs::Count: e.count = read_count(in, c.key); break;
    case ExpectAs::Bound:
      e.at_most = c.at_most;
      e.bound = read_bound(in, c.key, c.figure->unit);
      break;
    case ExpectAs::Flag: e.flag = in.required<bool>(c.key); break;
    case ExpectAs::Guarantee:
      e.guarantee = in.get_choice(c.key, {"none", "at-most-once", "at-least-once", "exactly-once"}, "none");
      break;
    case ExpectAs::Nothing: break;  // never a candidate
  }
  return e;
}

// The group.ids of the scenario's consumers, in order.
std::vector<std::string> group_ids(const Scenario& scenario) {
  std::vector<std::string> groups;
  if (!scenario.kafka) return groups;
  for (const auto& c : scenario.kafka->consumers) {
    if (std::find(groups.begin(), groups.end(), c.config.group_id) == groups.end()) groups.push_back(c.config.group_id);
  }
  return groups;
}

// The share groups of the scenario's share consumers (KIP-932), in order.
std::vector<std::string> share_group_ids(const Scenario& scenario) {
  std::vector<std::string> groups;
  if (!scenario.kafka) return groups;
  for (const auto& c : scenario.kafka->share_consumers) {
    if (std::find(groups.begin(), groups.end(), c.config.group_id) == groups.end()) groups.push_back(c.config.group_id);
  }
  return groups;
}

class ExpectationReader {
 public:
  ExpectationReader(const Scenario& scenario, const ExpectationCatalogue& catalogue)
      : scenario_(scenario),
        top_(keys_of(catalogue, {SectionScope::Run, SectionScope::Rpc, SectionScope::Kafka, SectionScope::Tiered})),
        transactions_(keys_of(catalogue, {SectionScope::Transactions})),
        group_(keys_of(catalogue, {SectionScope::Group})),
        share_group_(keys_of(catalogue, {SectionScope::ShareGroup})),
        groups_(group_ids(scenario)),
        share_groups_(share_group_ids(scenario)) {}

  std::vector<Expectation> read(MapReader in) {
    for (const std::string& key : in.keys()) {
      if (key == "transactions") {
        read_figures(in.map(key), transactions_, "transactions.", "");
      } else if (key == "groups") {
        read_groups(in.map(key));
      } else if (key == "share_groups") {
        read_share_groups(in.map(key));
      } else {
        read_figure(in, key, top_, "", "");
      }
    }
    for (const char* key : {"transactions", "groups", "share_groups"}) in.ignore(key);
    asked_about(in, top_);
    in.finish_keys();
    return std::move(read_);
  }

 private:
  void read_groups(MapReader by_group) {
    for (const std::string& name : by_group.keys()) {
      if (std::find(groups_.begin(), groups_.end(), name) == groups_.end()) {
        const auto suggestion = config::closest_name(name, groups_);
        throw by_group.error(name, "no consumer group '" + config::excerpt(name) + "'" +
                                       (suggestion ? " (did you mean '" + config::excerpt(*suggestion) + "'?)" : ""));
      }
      read_figures(by_group.map(name), group_, "groups." + name + ".", name);
    }
  }

  void read_share_groups(MapReader by_group) {
    for (const std::string& name : by_group.keys()) {
      if (std::find(share_groups_.begin(), share_groups_.end(), name) == share_groups_.end()) {
        const auto suggestion = config::closest_name(name, share_groups_);
        throw by_group.error(name, "no share group '" + config::excerpt(name) + "'" +
                                       (suggestion ? " (did you mean '" + config::excerpt(*suggestion) + "'?)" : ""));
      }
      read_figures(by_group.map(name), share_group_, "share_groups." + name + ".", name);
    }
  }

  void read_figures(MapReader in, const std::vector<Candidate>& keys, const std::string& prefix,
                    const std::string& group) {
    for (const std::string& key : in.keys()) read_figure(in, key, keys, prefix, group);
    asked_about(in, keys);
  }

  // Reads `key` if it names a figure; any other key is left for finish(), which suggests the nearest that does.
  void read_figure(MapReader& in, const std::string& key, const std::vector<Candidate>& keys, const std::string& prefix,
                   const std::string& group) {
    const auto it = std::find_if(keys.begin(), keys.end(), [&](const Candidate& c) { return c.key == key; });
    if (it == keys.end()) return;
    const std::string why = missing_section(it->section->scope, scenario_);
    if (!why.empty()) {
      throw in.error(key, "'" + config::excerpt(key) + "' is a figure of the " + std::string(it->section->name) +
                              " section, and this scenario has " + why);
    }
    read_.push_back(read_one(in, *it, prefix, group));
  }

  // Every name a map may hold counts as asked about, so that finish() suggests the nearest.
  static void asked_about(MapReader& in, const std::vector<Candidate>& keys) {
    for (const Candidate& c : keys) in.ignore(c.key);
  }

  const Scenario& scenario_;
  std::vector<Candidate> top_, transactions_, group_, share_group_;
  std::vector<std::string> groups_, share_groups_;
  std::vector<Expectation> read_;
};

}  // namespace

bool boundable(FigureUnit unit) {
  return unit != FigureUnit::Held && unit != FigureUnit::Flag && unit != FigureUnit::Verdict &&
         unit != FigureUnit::Text && unit != FigureUnit::Names;
}

bool CountExpectation::holds(std::uint64_t actual) const {
  if (op == ">") return actual > value;
  if (op == ">=") return actual >= value;
  if (op == "<") return actual < value;
  if (op == "<=") return actual <= value;
  return actual == value;
}

std::vector<Expectation> read_expectations(MapReader in, const Scenario& scenario,
                                           const ExpectationCatalogue& catalogue) {
  return ExpectationReader(scenario, catalogue).read(std::move(in));
}

}  // namespace ksim::app
