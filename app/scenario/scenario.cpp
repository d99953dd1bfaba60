#include "app/scenario/scenario.hpp"

#include <algorithm>
#include <set>

#include "app/scenario/distribution_reader.hpp"
#include "app/scenario/leader_target.hpp"
#include "app/scenario/name_reader.hpp"
#include "app/scenario/units.hpp"

namespace ksim::app {

using config::Bandwidth;
using config::Bytes;
using config::Duration;
using config::Fraction;
using config::ListReader;
using config::MapReader;
using config::Range;
using config::Rate;

namespace {

struct KnownNames {
  std::vector<std::string> targets;
  std::vector<std::string> links;
  std::vector<std::string> log_dirs;
};

LinkSpec read_link(MapReader in, LinkSpec spec) {
  spec.bandwidth_bytes_per_s = in.get<Bandwidth>("bandwidth", spec.bandwidth_bytes_per_s, {1.0, 1e15});
  spec.latency = in.get<Duration>("latency", spec.latency);
  return spec;
}

NetworkSpec read_network(MapReader in, const std::optional<HardwareProfile>& profile) {
  NetworkSpec net;
  if (profile) net.host_link.bandwidth_bytes_per_s = profile->nic_bytes_per_s;
  net.racks = read_names(in, "racks", net.racks);
  net.host_link = read_link(in.map("host_link"), net.host_link);
  net.spine_link = read_link(in.map("spine_link"), net.spine_link);
  net.options.jitter = config::read_distribution(in, "jitter", Distribution::lognormal(microseconds(20), 0.5));
  net.options.loopback_latency = in.get<Duration>("loopback_latency", net.options.loopback_latency);
  net.options.connection_reset_timeout =
      in.get<Duration>("connection_reset_timeout", net.options.connection_reset_timeout, {1, kNever});
  if (in.has("switches")) net.switches = read_names(in, "switches", {});
  ListReader links = in.list("links");
  for (std::size_t i = 0; i < links.size(); ++i) {
    MapReader link = links.map_at(i);
    NetworkSpec::ExplicitLink explicit_link;
    explicit_link.from = link.required<std::string>("from");
    explicit_link.to = link.required<std::string>("to");
    explicit_link.spec = read_link(link, net.host_link);
    explicit_link.location = link.location();
    net.links.push_back(std::move(explicit_link));
  }
  return net;
}

}  // namespace

NodeGroupSpec read_group(MapReader& in, NodeGroupSpec group, const std::vector<std::string>& racks) {
  group.count = in.get<int>("count", group.count, {1, 100000});
  group.rack = in.optional<std::string>("rack");
  if (group.rack && std::find(racks.begin(), racks.end(), *group.rack) == racks.end()) {
    throw in.error("rack", "is not one of network.racks");
  }
  return group;
}

namespace {

RpcSpec read_rpc(MapReader in, const std::vector<std::string>& racks) {
  RpcSpec rpc;
  MapReader servers = in.map("servers");
  rpc.servers = read_group(servers, rpc.servers, racks);
  rpc.server.workers = servers.get<int>("workers", rpc.server.workers, {1, 100000});
  rpc.server.service_time = config::read_distribution(servers, "service_time", rpc.server.service_time);

  MapReader clients = in.map("clients");
  rpc.clients = read_group(clients, rpc.clients, racks);
  auto& c = rpc.client;
  c.rate_per_s = clients.get<Rate>("rate", c.rate_per_s, {1e-6, 1e9});
  c.request_bytes = clients.get<Bytes>("request_size", c.request_bytes, {1, 1ULL << 40});
  c.response_bytes = clients.get<Bytes>("response_size", c.response_bytes, {1, 1ULL << 40});
  c.request_timeout = clients.get<Duration>("request_timeout", c.request_timeout, {1, kNever});
  c.reconnect_backoff = clients.get<Duration>("reconnect_backoff", c.reconnect_backoff);
  return rpc;
}

// Engine faults, and the disk faults of the Kafka models (extension faults).
constexpr std::string_view kDiskFaults[] = {"disk_slow", "disk_full", "disk_failure"};

void read_fault_kind(MapReader& in, Fault& fault) {
  if (!in.has("kind")) throw in.error("kind", "is required");
  const std::string kind = in.get_choice("kind",
                                         {"partition", "jitter_burst", "latency_spike", "link_slowdown", "pause",
                                          "crash", "shutdown", "disk_slow", "disk_full", "disk_failure"},
                                         "crash");
  for (const FaultKind k : kEngineFaultKinds) {
    if (to_string(k) == kind) fault.kind = k;
  }
  if (std::find(std::begin(kDiskFaults), std::end(kDiskFaults), kind) != std::end(kDiskFaults)) {
    fault.kind = FaultKind::Extension;
    fault.extension = kind;
  }
}

// Reads the values that only some fault kinds have, into `fault`.
void read_kind_specific(MapReader& in, Fault& fault, const KnownNames* known) {
  switch (fault.kind) {
    case FaultKind::Partition: fault.one_way = in.get<bool>("one_way", false); break;
    case FaultKind::JitterBurst:
      fault.jitter = config::read_distribution(in, "jitter", Distribution::exponential(milliseconds(5)));
      break;
    case FaultKind::LatencySpike: fault.extra_latency = in.required<Duration>("extra"); break;
    case FaultKind::LinkSlowdown: fault.bandwidth_factor = in.get<Fraction>("factor", 0.1, {1e-6, 1.0}); break;
    case FaultKind::NodePause:
    case FaultKind::NodeShutdown: break;
    case FaultKind::NodeCrash:
      fault.crash_kind = in.get<bool>("power_loss", false) ? CrashKind::Machine : CrashKind::Process;
      break;
    case FaultKind::Extension:
      fault.target = in.required<std::string>("log_dir");
      if (known && std::find(known->log_dirs.begin(), known->log_dirs.end(), fault.target) == known->log_dirs.end()) {
        const auto suggestion = config::closest_name(fault.target, known->log_dirs);
        throw in.error("log_dir", "no broker has a log dir '" + config::excerpt(fault.target) + "'" +
                                      (suggestion ? " (did you mean '" + config::excerpt(*suggestion) + "'?)" : ""));
      }
      if (fault.extension == "disk_slow") fault.bandwidth_factor = in.get<Fraction>("factor", 0.1, {1e-6, 1.0});
      break;
  }
}

// The run ends at duration (+ drain with a Kafka cluster): a fault after that never happens, an
// error; unless --set shortened the run (a quick look at a scenario, a sweep's short runs).
void check_fault_time(MapReader& in, std::string_view key, SimTime at, const Scenario& s, bool shortened) {
  const SimTime end = s.duration + (s.kafka ? s.drain : 0);
  if (at <= end || shortened) return;
  in.reject(key, "is after the end of the run (" + units::format_duration(end) +
                     (s.kafka ? ": duration + drain" : ": duration") + "), so the fault never happens");
}

std::vector<FaultSpec> read_faults(ListReader list, const KnownNames& known, const Scenario& s, bool shortened) {
  // A node target, or a partition's leader when the fault starts (leader:TOPIC-P).
  const NameCheck target_check = [&](const std::string& name) {
    return names_leader(name) ? leader_target_error(s, name) : unknown_name_error(name, known.targets);
  };
  std::vector<FaultSpec> faults;
  for (std::size_t i = 0; i < list.size(); ++i) {
    MapReader in = list.map_at(i);
    FaultSpec spec;
    spec.location = in.location();
    read_fault_kind(in, spec.fault);
    const std::string kind_name = spec.fault.kind == FaultKind::Extension ? spec.fault.extension
                                                                          : std::string(to_string(spec.fault.kind));
    spec.fault.at = in.required<Duration>("at");
    check_fault_time(in, "at", spec.fault.at, s, shortened);
    spec.fault.duration = in.get<Duration>("duration", 0);
    const bool may_be_permanent =
        spec.fault.kind == FaultKind::NodeCrash || spec.fault.kind == FaultKind::NodeShutdown || kind_name == "disk_failure";
    if (spec.fault.duration == 0 && !may_be_permanent) {
      throw in.error("duration", "is required for a " + kind_name + " fault");
    }
    read_kind_specific(in, spec.fault, &known);
    if (spec.fault.kind == FaultKind::LinkSlowdown) {
      spec.links = read_names(in, "links", {}, &known.links);
      if (spec.links.empty()) throw in.error("links", "a link_slowdown needs links (host or rack names)");
    } else {
      const bool needs_nodes = spec.fault.kind == FaultKind::Partition || spec.fault.kind == FaultKind::NodePause ||
                               spec.fault.kind == FaultKind::NodeCrash || spec.fault.kind == FaultKind::NodeShutdown ||
                               spec.fault.kind == FaultKind::Extension;
      spec.nodes = read_names(in, "nodes", needs_nodes ? std::vector<std::string>{} : std::vector<std::string>{"all"},
                              target_check);
      if (spec.nodes.empty()) throw in.error("nodes", "is required for a " + kind_name + " fault");
    }
    if (spec.fault.kind == FaultKind::Partition) spec.other_nodes = read_names(in, "other_nodes", {}, target_check);
    faults.push_back(std::move(spec));
  }
  return faults;
}

// A disk fault's rule: each fault hits one log dir, drawn from `log_dirs`
// (default: every log dir the brokers have), of `count` brokers drawn from
// `targets` (default: the brokers). A disk failure is for good: no duration.
NemesisRuleSpec read_disk_rule(MapReader rule_in, std::string_view name, const KnownNames& known) {
  NemesisRuleSpec rule;
  rule.location = rule_in.location();
  rule.shape.kind = FaultKind::Extension;
  rule.shape.extension = std::string(name);
  rule.rate_per_s = rule_in.required<Rate>("rate", {0.0, 1e6});
  if (name != "disk_failure") {
    rule.duration = config::read_distribution(rule_in, "duration", Distribution::constant(seconds(1)));
  } else {
    rule.duration = Distribution::constant(0);  // for good
    if (rule_in.has("duration")) rule_in.reject("duration", "a disk_failure is for good: it has no duration");
  }
  if (name == "disk_slow") rule.shape.bandwidth_factor = rule_in.get<Fraction>("factor", 0.1, {1e-6, 1.0});
  rule.targets = read_names(rule_in, "targets", {"brokers"}, &known.targets);
  rule.log_dirs = read_names(rule_in, "log_dirs", known.log_dirs, &known.log_dirs);
  rule.count = rule_in.get<int>("count", 1, {1, 100000});
  return rule;
}

NemesisSpec read_nemesis(MapReader in, const KnownNames& known, const Scenario& s, bool shortened) {
  NemesisSpec nemesis;
  nemesis.start = in.get<Duration>("start", 0);
  nemesis.end = in.optional<Duration>("end");
  if (nemesis.end && nemesis.start > *nemesis.end) {
    in.reject("start", "is after nemesis.end (" + units::format_duration(*nemesis.end) + "): no fault would happen");
  } else {
    check_fault_time(in, "start", nemesis.start, s, shortened);
  }
  for (const FaultKind kind : kEngineFaultKinds) {
    const std::string_view name = to_string(kind);
    if (!in.has(name)) {
      in.ignore(name);
      continue;
    }
    MapReader rule_in = in.map(name);
    NemesisRuleSpec rule;
    rule.location = rule_in.location();
    rule.shape.kind = kind;
    rule.rate_per_s = rule_in.required<Rate>("rate", {0.0, 1e6});
    rule.duration = config::read_distribution(rule_in, "duration", Distribution::constant(seconds(1)));
    read_kind_specific(rule_in, rule.shape, &known);
    if (kind == FaultKind::LinkSlowdown) {
      rule.links = read_names(rule_in, "links", {}, &known.links);
      if (rule.links.empty()) throw rule_in.error("links", "a link_slowdown needs links (host or rack names)");
    } else {
      rule.targets = read_names(rule_in, "targets", rule.targets, [&](const std::string& target) -> std::optional<std::string> {
        if (!names_leader(target)) return unknown_name_error(target, known.targets);
        return "names a partition's leader, which is known only when a fault starts; a nemesis draws its targets "
               "before the run: name 'brokers' (any of them) or 'broker-0' ...";
      });
      const bool quorum = s.kafka && s.kafka->controller_count > 1;
      for (const auto& [role, what] : {std::pair{"controller", "the active controller"},
                                       std::pair{"standby-controller", "a controller that is not the active one"}}) {
        if (quorum && std::find(rule.targets.begin(), rule.targets.end(), role) != rule.targets.end()) {
          throw rule_in.error("targets", std::string("names '") + role + "', " + what +
                                             " of the quorum, which is known only when a fault starts; a nemesis "
                                             "draws its targets before the run: name 'controllers' (any of them) "
                                             "or 'controller-0' ...");
        }
      }
      rule.count = rule_in.get<int>("count", 1, {1, 100000});
    }
    nemesis.rules.push_back(std::move(rule));
  }
  for (const std::string_view name : kDiskFaults) {
    if (!in.has(name)) {
      in.ignore(name);
    } else if (!s.kafka) {
      throw in.error(name, "needs a 'brokers' section: a disk fault hits a broker's log dir");
    } else {
      nemesis.rules.push_back(read_disk_rule(in.map(name), name, known));
    }
  }
  return nemesis;
}

// With an explicit graph, every link joins known vertices: switches or nodes' hosts.
void check_explicit_links(const Scenario& s) {
  std::vector<std::string> vertices = s.network.switches;
  for (const auto& node : node_placements(s)) vertices.push_back(node.name);
  for (std::size_t i = 0; i < s.network.links.size(); ++i) {
    const auto& link = s.network.links[i];
    for (const std::string* end : {&link.from, &link.to}) {
      if (std::find(vertices.begin(), vertices.end(), *end) != vertices.end()) continue;
      const auto suggestion = config::closest_name(*end, vertices);
      throw config::ConfigError(link.location, "network.links." + std::to_string(i),
                                "unknown vertex '" + config::excerpt(*end) + "' (not a switch or node)" +
                                    (suggestion ? " (did you mean '" + config::excerpt(*suggestion) + "'?)" : ""));
    }
  }
}

}  // namespace

namespace {

// Was the run's length set by --set? Faults after its end are then only warned about.
bool shortened_by_override(const MapReader& root) {
  const auto overridden = [&](std::string_view key) { return root.has(key) && root.error(key, "").location().line == 0; };
  return overridden("duration") || overridden("drain");
}

// The network's vertices (switches, then every node's host) have distinct
// names: a rack listed twice, a switch named like a node, a producer group
// named like a transform's producers ("NAME-producer").
void check_vertex_names(const MapReader& root, const Scenario& s) {
  std::vector<std::string> names;
  if (s.network.links.empty()) {
    for (const auto& rack : s.network.racks) names.push_back("rack:" + rack);
    names.push_back("spine");
  } else {
    names = s.network.switches;
  }
  for (const auto& node : node_placements(s)) names.push_back(node.name);
  std::set<std::string> seen;
  for (const auto& name : names) {
    if (seen.insert(name).second) continue;
    throw root.error("network", "two vertices of the network are named '" + config::excerpt(name) +
                                    "' (a rack or switch listed twice, or a name two groups of nodes share)");
  }
}

Scenario read_all(const config::Document& document, const ExpectationCatalogue& expectations) {
  MapReader root = document.root();
  Scenario s;
  s.file = document.file_name();
  s.name = root.get<std::string>("name", "");
  s.description = root.get<std::string>("description", "");
  s.seed = root.get<std::uint64_t>("seed", s.seed);
  s.duration = root.get<Duration>("duration", s.duration, {1, kNever / 2});
  s.warmup = root.get<Duration>("warmup", 0);
  if (s.warmup >= s.duration) throw root.error("warmup", "must be shorter than the duration");
  s.drain = root.get<Duration>("drain", s.drain);
  s.profile = read_profile(root, s.file);
  s.network = read_network(root.map("network"), s.profile);
  if (root.has("rpc")) {
    s.rpc = read_rpc(root.map("rpc"), s.network.racks);
  } else {
    root.ignore("rpc");
  }
  s.kafka = read_kafka(root, s.network.racks, s.profile);
  if (s.kafka) {
    s.kafka->operations = read_operations(root.list("operations"), *s.kafka, s.network.racks, s.duration + s.drain);
  } else if (root.has("operations")) {
    throw root.error("operations", "changes a Kafka cluster: the scenario has no brokers:");
  }
  check_vertex_names(root, s);
  check_explicit_links(s);
  KnownNames known{target_names(s), link_names(s), {}};
  if (s.kafka) {
    for (const auto& dir : s.kafka->broker.log_dirs) known.log_dirs.push_back(dir.path);
  }
  const bool shortened = shortened_by_override(root);
  s.faults = read_faults(root.list("faults"), known, s, shortened);
  s.nemesis = read_nemesis(root.map("nemesis"), known, s, shortened);
  const bool disks_given = s.kafka && (root.map("brokers").has("log_dirs") || s.profile);
  s.explore = read_explore(root.map("explore"), {known.targets, known.log_dirs, disks_given, s.duration});
  s.expect = read_expectations(root.map("expect"), s, expectations);
  MapReader report = root.map("report");
  s.report.sample_interval = report.get<Duration>("sample_interval", s.report.sample_interval, {milliseconds(1), kNever / 2});
  root.finish();
  s.warnings = document.warnings();
  s.ignored_configs = document.ignored();
  return s;
}

}  // namespace

Scenario read_scenario(const config::Document& document, const ExpectationCatalogue& expectations) {
  return document.read([&] { return read_all(document, expectations); });
}

void check_something_to_simulate(const config::Document& document, const Scenario& scenario) {
  const config::Location start{document.file_name(), 1, 1};
  if (document.empty()) {
    throw config::ConfigError(start, "", "the scenario is empty: it needs a brokers: or an rpc: section (docs/scenarios.md)");
  }
  if (node_placements(scenario).empty()) {
    throw config::ConfigError(start, "", "nothing to simulate: the scenario has neither a brokers: nor an rpc: section");
  }
}

std::vector<NodePlacement> node_placements(const Scenario& scenario) {
  std::vector<NodePlacement> nodes;
  const auto& racks = scenario.network.racks;
  const auto add_group = [&](const NodeGroupSpec& group, const std::string& group_name, const std::string& prefix) {
    for (int i = 0; i < group.count; ++i) {
      const std::string rack = group.rack ? *group.rack : racks[static_cast<std::size_t>(i) % racks.size()];
      nodes.push_back({prefix + std::to_string(i), group_name, rack, i});
    }
  };
  if (scenario.kafka) {
    add_group(scenario.kafka->brokers, "brokers", "broker-");
    for (const OperationSpec& op : scenario.kafka->operations) {  // brokers added later: the next ids
      if (op.kind == OperationSpec::Kind::AddBroker) {
        nodes.push_back({"broker-" + std::to_string(op.broker), "brokers", op.rack, op.broker});
      }
    }
    // One controller is `controller`; a quorum's are controller-0 ... (group `controllers`),
    // round-robin over the racks unless controller.rack puts them all in one.
    const KafkaSpec& k = *scenario.kafka;
    if (k.zookeeper) {  // before KRaft: a ZooKeeper node; the controller is one of the brokers
      nodes.push_back({"zookeeper", "zookeeper", k.zookeeper_rack.value_or(racks.front()), 0});
    } else if (k.controller_count == 1) {
      nodes.push_back({"controller", "controller", k.controller_rack.value_or(racks.front()), 0});
    } else {
      for (int i = 0; i < k.controller_count; ++i) {
        const std::string rack = k.controller_rack.value_or(racks[static_cast<std::size_t>(i) % racks.size()]);
        nodes.push_back({"controller-" + std::to_string(i), "controllers", rack, i});
      }
    }
    for (const auto& p : scenario.kafka->producers) add_group(p.nodes, p.name, p.name + "-");
    for (const auto& c : scenario.kafka->consumers) add_group(c.nodes, c.name, c.name + "-");
    for (const auto& c : scenario.kafka->consumers) {
      if (!c.transform) continue;
      if (!c.producer_per_partition) {
        add_group(c.nodes, c.name + "-producer", c.name + "-producer-");
        continue;
      }
      const std::int32_t partitions = scenario.kafka->topics[static_cast<std::size_t>(c.workload.topic)].partitions;
      for (int i = 0; i < c.nodes.count; ++i) {
        const std::string rack = c.nodes.rack ? *c.nodes.rack : racks[static_cast<std::size_t>(i) % racks.size()];
        for (std::int32_t p = 0; p < partitions; ++p) {
          nodes.push_back({c.name + "-producer-" + std::to_string(i) + "-" + std::to_string(p), c.name + "-producer", rack,
                           i * partitions + p});
        }
      }
    }
  }
  if (scenario.kafka) {  // after every other Kafka node: share consumers leave the others' placements as they were
    for (const auto& c : scenario.kafka->share_consumers) add_group(c.nodes, c.name, c.name + "-");
  }
  if (scenario.rpc) {
    add_group(scenario.rpc->servers, "servers", "server-");
    add_group(scenario.rpc->clients, "clients", "client-");
  }
  return nodes;
}

std::vector<std::string> target_names(const Scenario& scenario) {
  std::vector<std::string> names{"all"};
  for (const auto& node : node_placements(scenario)) {
    if (std::find(names.begin(), names.end(), node.group) == names.end()) names.push_back(node.group);
  }
  for (const auto& rack : scenario.network.racks) names.push_back("rack:" + rack);
  for (const auto& node : node_placements(scenario)) names.push_back(node.name);
  // The active controller (with ZooKeeper, the broker that is).
  if (scenario.kafka && (scenario.kafka->controller_count > 1 || scenario.kafka->zookeeper)) names.push_back("controller");
  // A KRaft quorum's first controller that is not the active one.
  if (scenario.kafka && scenario.kafka->controller_count > 1) names.push_back("standby-controller");
  if (scenario.kafka) {
    // The broker coordinating that group: a consumer group's, or a share group's (KIP-932: its group
    // coordinator, the leader of the group's __consumer_offsets partition, as for any group).
    std::vector<std::string> groups;
    for (const auto& c : scenario.kafka->consumers) groups.push_back(c.config.group_id);
    for (const auto& c : scenario.kafka->share_consumers) groups.push_back(c.config.group_id);
    for (const auto& group : groups) {
      const std::string name = "coordinator:" + group;
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    for (const auto& p : scenario.kafka->producers) {
      const std::string& id = p.config.transactional_id;
      if (id.empty() || id.find("{name}") != std::string::npos || id.find("{partition}") != std::string::npos) continue;
      const std::string name = "txn-coordinator:" + p.config.transactional_id;
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  return names;
}

std::vector<std::string> link_names(const Scenario& scenario) {
  std::vector<std::string> names;
  if (scenario.network.links.empty()) {
    names = scenario.network.racks;
  } else {
    names = scenario.network.switches;
  }
  for (const auto& node : node_placements(scenario)) names.push_back(node.name);
  return names;
}

}  // namespace ksim::app
