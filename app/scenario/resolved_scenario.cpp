// The resolved scenario (ksim validate --resolved): the run, the nodes, the
// faults, the nemesis and the expectations; the Kafka sections are in
// resolved_kafka.cpp.
#include "app/scenario/resolved_scenario.hpp"

#include <algorithm>

#include "app/scenario/leader_target.hpp"
#include "app/scenario/resolved_parts.hpp"
#include "app/scenario/units.hpp"

namespace ksim::app {

using nlohmann::json;

namespace {

std::string fault_kind_name(const Fault& fault) {
  return fault.kind == FaultKind::Extension ? fault.extension : std::string(to_string(fault.kind));
}

// The values only some kinds of fault have.
void kind_specific(const Fault& fault, json& out) {
  switch (fault.kind) {
    case FaultKind::Partition: out["one_way"] = fault.one_way; break;
    case FaultKind::JitterBurst: out["jitter"] = distribution_json(fault.jitter); break;
    case FaultKind::LatencySpike: out["extra_latency_ns"] = fault.extra_latency; break;
    case FaultKind::LinkSlowdown: out["factor"] = fault.bandwidth_factor; break;
    case FaultKind::NodePause:
    case FaultKind::NodeShutdown: break;
    case FaultKind::NodeCrash: out["power_loss"] = fault.crash_kind == CrashKind::Machine; break;
    case FaultKind::Extension:
      out["log_dir"] = fault.target;
      if (fault.extension == "disk_slow") out["factor"] = fault.bandwidth_factor;
      break;
  }
}

json fault_json(const Scenario& scenario, const FaultSpec& spec) {
  const Fault& f = spec.fault;
  json out;
  out["kind"] = fault_kind_name(f);
  out["at_ns"] = f.at;
  out["duration_ns"] = f.duration;
  // A crash, shutdown or disk failure of duration 0 is never undone.
  out["until_ns"] = f.duration == 0 ? json(nullptr) : json(f.at + f.duration);
  out["targets"] = spec.nodes;
  out["nodes"] = resolve_node_names(scenario, spec.nodes);
  out["dynamic_targets"] = dynamic_targets(scenario, spec.nodes);
  out["other_targets"] = spec.other_nodes;
  out["other_nodes"] = resolve_node_names(scenario, spec.other_nodes);
  out["links"] = spec.links;
  kind_specific(f, out);
  out["line"] = spec.location.line;
  return out;
}

json nemesis_json(const Scenario& scenario) {
  const NemesisSpec& n = scenario.nemesis;
  json out;
  out["start_ns"] = n.start;
  out["end_ns"] = n.end.value_or(scenario.duration);
  json rules = json::array();
  for (const NemesisRuleSpec& rule : n.rules) {
    json r;
    r["kind"] = fault_kind_name(rule.shape);
    r["rate_per_s"] = rule.rate_per_s;
    r["duration"] = distribution_json(rule.duration);
    r["targets"] = rule.targets;
    r["nodes"] = resolve_node_names(scenario, rule.targets);
    r["count"] = rule.count;
    r["links"] = rule.links;
    kind_specific(rule.shape, r);
    if (rule.shape.kind == FaultKind::Extension) {  // a disk fault: a log dir drawn per fault
      r.erase("log_dir");
      r["log_dirs"] = rule.log_dirs;
    }
    rules.push_back(std::move(r));
  }
  out["rules"] = std::move(rules);
  return out;
}

std::string_view expect_as_name(ExpectAs as) {
  switch (as) {
    case ExpectAs::Nothing: return "nothing";
    case ExpectAs::Count: return "count";
    case ExpectAs::Bound: return "bound";
    case ExpectAs::Flag: return "flag";
    case ExpectAs::Guarantee: return "guarantee";
  }
  return "";
}

json expectation_json(const Expectation& e) {
  json out;
  out["name"] = e.name;
  out["section"] = e.section;
  out["group"] = e.group.empty() ? json(nullptr) : json(e.group);
  out["figure"] = e.figure;
  out["as"] = expect_as_name(e.as);
  switch (e.as) {
    case ExpectAs::Count: out["count"] = {{"op", e.count.op}, {"value", e.count.value}}; break;
    case ExpectAs::Bound:
      out["at_most"] = e.at_most;
      out["bound"] = e.bound;
      break;
    case ExpectAs::Flag: out["flag"] = e.flag; break;
    case ExpectAs::Guarantee: out["guarantee"] = e.guarantee; break;
    case ExpectAs::Nothing: break;
  }
  return out;
}

}  // namespace

json distribution_json(const Distribution& d) {
  json out;
  out["text"] = d.describe();
  out["mean_ns"] = d.mean_ns();
  out["constant"] = d.kind() == Distribution::Kind::Constant;
  return out;
}

bool is_dynamic_target(const Scenario& scenario, const std::string& name) {
  // A quorum's active controller, or with ZooKeeper the broker that is the controller then (Cluster::resolve_nodes).
  if (name == "controller") return scenario.kafka && (scenario.kafka->controller_count > 1 || scenario.kafka->zookeeper);
  if (name == "standby-controller") return scenario.kafka && scenario.kafka->controller_count > 1;
  return name.starts_with("coordinator:") || name.starts_with("txn-coordinator:") || names_leader(name);
}

std::vector<std::string> dynamic_targets(const Scenario& scenario, const std::vector<std::string>& names) {
  std::vector<std::string> dynamic;
  for (const auto& name : names) {
    if (is_dynamic_target(scenario, name)) dynamic.push_back(name);
  }
  return dynamic;
}

// As the cluster resolves them (Cluster::resolve_nodes), in creation order;
// the targets known only while running (a group's coordinator) are left out.
std::vector<std::string> resolve_node_names(const Scenario& scenario, const std::vector<std::string>& names) {
  std::vector<std::string> nodes;
  for (const NodePlacement& p : node_placements(scenario)) {
    const bool named = std::any_of(names.begin(), names.end(), [&](const std::string& name) {
      return name == "all" || name == p.group || name == p.name || name == "rack:" + p.rack;
    });
    if (named) nodes.push_back(p.name);
  }
  return nodes;
}

json resolved_scenario(const Scenario& s) {
  json out;
  out["format"] = "ksim-resolved-scenario";
  out["version"] = kResolvedScenarioVersion;
  out["file"] = s.file;
  out["name"] = s.name;
  out["description"] = s.description;
  out["seed"] = s.seed;
  out["duration_ns"] = s.duration;
  out["duration"] = units::format_duration(s.duration);
  out["drain_ns"] = s.kafka ? s.drain : 0;
  out["drain"] = units::format_duration(s.kafka ? s.drain : 0);
  out["end_ns"] = s.duration + (s.kafka ? s.drain : 0);
  out["profile"] = s.profile ? json(s.profile->name) : json(nullptr);
  out["racks"] = s.network.racks;
  json nodes = json::array();
  for (const NodePlacement& p : node_placements(s)) {
    nodes.push_back({{"name", p.name}, {"group", p.group}, {"rack", p.rack}, {"index", p.index}});
  }
  out["nodes"] = std::move(nodes);
  if (s.kafka) add_kafka_json(s, out);
  out["has_rpc"] = s.rpc.has_value();
  json faults = json::array();
  for (const FaultSpec& spec : s.faults) faults.push_back(fault_json(s, spec));
  out["faults"] = std::move(faults);
  out["nemesis"] = nemesis_json(s);
  out["report"] = {{"sample_interval_ns", s.report.sample_interval},
                   {"sample_interval", units::format_duration(s.report.sample_interval)}};
  json expect = json::array();
  for (const Expectation& e : s.expect) expect.push_back(expectation_json(e));
  out["expect"] = std::move(expect);
  json warnings = json::array();
  for (const auto& w : s.warnings) warnings.push_back(w.text());
  out["warnings"] = std::move(warnings);
  json ignored = json::array();
  for (const auto& k : s.ignored_configs) ignored.push_back(k.key_path);
  out["ignored_configs"] = std::move(ignored);
  return out;
}

}  // namespace ksim::app
