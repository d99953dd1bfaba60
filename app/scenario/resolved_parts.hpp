#pragma once
// The pieces of the resolved scenario that its two files share
// (resolved_scenario.cpp, resolved_kafka.cpp). Internal to them.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/scenario/scenario.hpp"

namespace ksim::app {

nlohmann::json distribution_json(const Distribution& d);  // {text, mean_ns, constant}
// Targets known only while running: "coordinator:GROUP", "txn-coordinator:ID",
// "leader:TOPIC-P", and with a controller quorum "controller" (the active one).
bool is_dynamic_target(const Scenario& scenario, const std::string& name);
std::vector<std::string> dynamic_targets(const Scenario& scenario, const std::vector<std::string>& names);
// The node names a list of targets stands for, in creation order (as Cluster::resolve_nodes).
std::vector<std::string> resolve_node_names(const Scenario& scenario, const std::vector<std::string>& names);
// brokers, controller, topics, producers, consumers.
void add_kafka_json(const Scenario& scenario, nlohmann::json& out);

}  // namespace ksim::app
