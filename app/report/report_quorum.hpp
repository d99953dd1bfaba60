#pragma once
// The controller quorum's figures: how often the active controller changed
// and how long the cluster had none (a single controller, ksim's default,
// is a quorum of one: it has none while it is down or loading). One figure
// table, in the JSON under controller.quorum and in the text report's
// cluster part.
#include <ostream>

#include <nlohmann/json.hpp>

#include "app/harness/cluster.hpp"
#include "app/report/figure_table.hpp"

namespace ksim::app {

struct QuorumFigures {
  int controllers = 0;  // with ZooKeeper: the brokers, each a candidate
  models::QuorumStats stats;
  bool zookeeper = false;
};

const Section<QuorumFigures>& quorum_section();
QuorumFigures quorum_figures(const Cluster& cluster);
void add_quorum_json(const QuorumFigures& q, nlohmann::ordered_json& j);
void print_quorum(const QuorumFigures& q, std::ostream& out);

}  // namespace ksim::app
