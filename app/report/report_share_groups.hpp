#pragma once
// The share groups of a run (KIP-932): the share group checker's report per
// group (models/check/share_group_checker.hpp) as a figure table, JSON and
// text; `expect: share_groups: {GROUP: ...}` names its figures.
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/history/history_reader.hpp"
#include "app/report/figure_table.hpp"
#include "models/check/share_group_checker.hpp"

namespace ksim::app {

class Cluster;

struct ShareGroupFigures {
  std::string group;
  std::vector<std::string> members;
  std::int32_t delivery_count_limit = 5;
  double lock_duration_s = 30;
  std::uint64_t persister_writes = 0;  // the run's, every share group's
  std::uint64_t persister_loads = 0;
  models::ShareGroupReport report;
  Held delivered_until_done() const { return {report.delivered_until_done(), report.vacuous}; }
};

const Section<ShareGroupFigures>& share_group_section();
std::vector<ShareGroupFigures> share_group_figures(const Cluster& cluster, const models::FinalLogs& logs);
// A recorded history's share groups (`ksim check`): the checker on its share
// events and final logs; the persister's figures are the brokers' and stay 0.
std::vector<ShareGroupFigures> share_group_figures(const RecordedHistory& history);
nlohmann::ordered_json share_groups_json(const std::vector<ShareGroupFigures>& groups);
void print_share_groups(const std::vector<ShareGroupFigures>& groups, std::ostream& out);

}  // namespace ksim::app
