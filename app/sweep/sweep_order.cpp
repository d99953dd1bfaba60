#include "app/sweep/sweep_order.hpp"

#include <algorithm>
#include <map>
#include <numeric>

#include "app/report/report_expectations.hpp"
#include "app/scenario/scenario.hpp"
#include "app/scenario/config_reader.hpp"

namespace ksim::app::sweep {

namespace {

double expected_cost(const Scenario& s) {
  double replicas = 0;
  if (s.kafka) {
    for (const auto& topic : s.kafka->topics) replicas += double(topic.partitions) * topic.replication_factor;
  }
  return to_seconds(s.duration + s.drain) * (replicas + 1);
}

// A combination that is wrong only together costs nothing here: its run
// fails with the message `ksim sweep` documents (which run, and why).
double expected_cost(const std::string& scenario, const Plan& plan, const RunSpec& run) {
  try {
    config::Document document = config::Document::load_file(scenario);
    for (const auto& o : run.overrides(plan.parameters)) document.apply_override(o);
    return expected_cost(read_scenario(document, expectation_catalogue()));
  } catch (const config::ConfigError&) {
    return 0;
  }
}

}  // namespace

std::vector<std::size_t> dispatch_order(const std::string& scenario, const Plan& plan,
                                        const std::vector<RunSpec>& runs) {
  std::vector<std::size_t> order(runs.size());
  std::iota(order.begin(), order.end(), 0);
  if (plan.total_runs() / std::max<std::size_t>(1, plan.seeds.size()) > kMaxCombinationsToOrder) return order;
  std::map<std::vector<std::string>, double> cost_of;  // seeds share their combination's cost
  std::vector<double> cost(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto [it, added] = cost_of.try_emplace(runs[i].values, 0.0);
    if (added) it->second = expected_cost(scenario, plan, runs[i]);
    cost[i] = it->second;
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cost[a] > cost[b]; });
  return order;
}

}  // namespace ksim::app::sweep
