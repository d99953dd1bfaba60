// Faults on the cluster: the scenario's target names resolved to nodes and
// links (`controller`, `coordinator:GROUP`, `txn-coordinator:ID` and
// `leader:TOPIC-P` when a fault starts), the scheduled faults, the nemesis'
// planned ones, and the disk faults' handlers.
#include "app/harness/cluster.hpp"

#include <algorithm>
#include <set>

#include "app/scenario/leader_target.hpp"
#include "sim/faults/nemesis.hpp"

namespace ksim::app {

// Disk faults act on a log dir (by path) of the target brokers.
void Cluster::register_disk_faults() {
  const auto each_broker = [this](const Fault& fault, auto action) {
    for (const NodeId n : fault.nodes) {
      for (models::Broker* b : brokers_) {
        if (b->id() == n) action(*b);
      }
    }
  };
  faults_->set_extension_handler("disk_slow", [each_broker](const Fault& f, bool starting) {
    each_broker(f, [&](models::Broker& b) { b.slow_log_dir(f.target, starting ? f.bandwidth_factor : 1.0); });
  });
  faults_->set_extension_handler("disk_full", [each_broker](const Fault& f, bool starting) {
    each_broker(f, [&](models::Broker& b) { b.fill_log_dir(f.target, starting); });
  });
  faults_->set_extension_handler("disk_failure", [each_broker](const Fault& f, bool starting) {
    if (starting) each_broker(f, [&](models::Broker& b) { b.fail_log_dir(f.target); });
  });
}

std::vector<NodeId> Cluster::resolve_nodes(const std::vector<std::string>& names) const {
  std::set<NodeId> ids;  // ordered: the same set always yields the same vector
  for (const auto& name : names) {
    if (name.starts_with("coordinator:")) {
      if (const auto broker = coordinator_of(name.substr(12))) ids.insert(brokers_[static_cast<std::size_t>(*broker)]->id());
      continue;
    }
    if (name.starts_with("txn-coordinator:")) {
      if (const auto broker = txn_coordinator_of(name.substr(16))) {
        ids.insert(brokers_[static_cast<std::size_t>(*broker)]->id());
      }
      continue;
    }
    if (const auto target = parse_leader_target(name)) {
      if (const auto broker = leader_of_topic_partition(*target)) ids.insert(brokers_[static_cast<std::size_t>(*broker)]->id());
      continue;
    }
    if (name == "controller" && quorum_ && (quorum_->is_quorum() || quorum_->is_zookeeper())) {
      ids.insert(active_controller_node());
      continue;
    }
    if (name == "standby-controller" && quorum_ && quorum_->is_quorum()) {
      ids.insert(standby_controller_node());
      continue;
    }
    for (std::size_t i = 0; i < placements_.size(); ++i) {
      const auto& p = placements_[i];
      if (name == "all" || name == p.group || name == p.name || name == "rack:" + p.rack) ids.insert(placement_nodes_[i]);
    }
  }
  return {ids.begin(), ids.end()};
}

// The broker leading a scenario topic's partition now; nullopt when the topic
// is not created yet or the partition has no leader.
std::optional<models::BrokerId> Cluster::leader_of_topic_partition(const LeaderTarget& target) const {
  if (!scenario_.kafka) return std::nullopt;
  const auto& topics = scenario_.kafka->topics;
  const auto topic = std::find_if(topics.begin(), topics.end(), [&](const auto& t) { return t.name == target.topic; });
  if (topic == topics.end()) return std::nullopt;
  return leader_now({static_cast<std::int32_t>(topic - topics.begin()), target.partition}, std::nullopt);
}

// A name stands for the uplink of a host (to its rack switch) or of a rack
// (its switch to the spine), both directions; with an explicit graph, for
// every link of that vertex.
std::vector<LinkId> Cluster::resolve_links(const std::vector<std::string>& names) const {
  const Topology& topology = sim_->topology();
  const bool explicit_graph = !scenario_.network.links.empty();
  std::set<LinkId> ids;
  for (const auto& name : names) {
    if (const auto vertex = topology.find(name)) {
      for (const LinkId l : topology.links_touching(*vertex)) ids.insert(l);
    } else if (const auto rack = topology.find("rack:" + name); rack && !explicit_graph) {
      for (const LinkId l : topology.links_touching(*rack)) {
        const Link& link = topology.link(l);
        if (topology.name(link.from) == "spine" || topology.name(link.to) == "spine") ids.insert(l);
      }
    }
  }
  return {ids.begin(), ids.end()};
}

void Cluster::schedule_faults() {
  for (const FaultSpec& spec : scenario_.faults) {
    Fault fault = spec.fault;
    fault.nodes = resolve_nodes(spec.nodes);
    fault.other_nodes = resolve_nodes(spec.other_nodes);
    // Targets known only while running (the active controller, a group's or a
    // transactional.id's coordinator, a partition's leader): resolved when the fault starts.
    const auto names_dynamic = [this](const std::vector<std::string>& names) {
      return std::any_of(names.begin(), names.end(), [this](const std::string& n) {
        const bool controller = (n == "controller" || n == "standby-controller") && quorum_ &&
                                (quorum_->is_quorum() || quorum_->is_zookeeper());
        return controller || n.starts_with("coordinator:") || n.starts_with("txn-coordinator:") || names_leader(n);
      });
    };
    if (names_dynamic(spec.nodes) || names_dynamic(spec.other_nodes)) {
      fault.resolve_at_start = [this, nodes = spec.nodes, others = spec.other_nodes](Fault& f) {
        f.nodes = resolve_nodes(nodes);
        f.other_nodes = resolve_nodes(others);
        // A side named but standing for nobody now: cutting "everyone else" off, or
        // jittering every node, is not what was asked for.
        return !(f.nodes.empty() && !nodes.empty()) && !(f.other_nodes.empty() && !others.empty());
      };
    }
    fault.links = resolve_links(spec.links);
    faults_->schedule(std::move(fault));
  }
}

void Cluster::plan_nemesis() {
  const NemesisSpec& nemesis = scenario_.nemesis;
  const SimTime end = nemesis.end.value_or(scenario_.duration);
  for (const NemesisRuleSpec& spec : nemesis.rules) {
    NemesisRule rule;
    rule.rate_per_s = spec.rate_per_s;
    rule.duration = spec.duration;
    rule.candidates = resolve_nodes(spec.targets);
    rule.targets_per_fault = spec.count;
    rule.shape = spec.shape;
    // One link (both directions) per fault: keep the even ids, plan_rule adds the pair.
    for (const LinkId l : resolve_links(spec.links)) {
      if (l % 2 == 0) rule.candidate_links.push_back(l);
    }
    const bool disk = spec.shape.kind == FaultKind::Extension;  // a disk fault: a log dir of a broker
    if (disk) {
      std::erase_if(rule.candidates, [this](NodeId n) {
        return std::none_of(brokers_.begin(), brokers_.end(), [n](const models::Broker* b) { return b->id() == n; });
      });
      if (rule.candidates.empty()) continue;
      rule.candidate_targets = spec.log_dirs;
      rule.for_good = spec.shape.extension == "disk_failure";
    }
    const std::string stream = "nemesis/" + (disk ? spec.shape.extension : std::string(to_string(spec.shape.kind)));
    faults_->schedule_all(plan_rule(rule, nemesis.start, end, sim_->stream(stream)));
  }
}

}  // namespace ksim::app
