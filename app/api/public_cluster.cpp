// ksim::Cluster (include/ksim/cluster.hpp) over the harness's Cluster, and
// its Report drawn from the run's report.
#include "ksim/cluster.hpp"

#include <sstream>

#include "app/api/public_scenario.hpp"
#include "app/harness/cluster.hpp"
#include "app/report/report.hpp"

namespace ksim {

namespace {

std::chrono::nanoseconds ns(SimTime t) { return std::chrono::nanoseconds(t); }

// A guarantee checked over nothing did not hold: `vacuous` says why.
DeliveryVerdict delivery_of(const models::DeliveryReport& d) {
  const bool tested = d.vacuous.empty();
  return {d.produced,
          d.acknowledged,
          d.failed,
          d.pending,
          d.lost,
          d.unavailable,
          d.duplicated,
          d.reordered,
          d.failed_but_written,
          tested && d.at_most_once(),
          tested && d.at_least_once(),
          tested && d.exactly_once(),
          d.verdict(),
          d.vacuous};
}

GroupVerdict group_of(const app::GroupFigures& g) {
  const models::ConsumptionReport& r = g.report;
  GroupVerdict v;
  v.processed = r.processed;
  v.committed = r.committed;
  v.unprocessed = r.unprocessed;
  v.duplicates = r.duplicated;
  v.out_of_order = r.out_of_order;
  v.lag = r.lag;
  v.rebalances = r.rebalances.size();
  v.stop_the_world_partition_s = r.stop_the_world_partition_s;
  const bool tested = g.vacuous.empty();
  v.at_most_once = tested && r.at_most_once();
  v.at_least_once = tested && r.at_least_once();
  v.exactly_once = tested && r.exactly_once();
  v.end_to_end_exactly_once = g.end_to_end_vacuous.empty() && g.end_to_end_exactly_once();
  v.vacuous = g.vacuous;
  return v;
}

TransactionsVerdict transactions_of(const app::TransactionFigures& t) {
  return {t.committed,     t.aborted,       t.fenced, t.zombie_writes, t.hanging.size(), t.aborted_reads,
          t.vacuous.empty() && t.exactly_once(), t.vacuous};
}

InvariantViolation violation_of(const models::InvariantViolation& v) {
  const std::string partition =
      v.partition.topic < 0 ? "" : std::to_string(v.partition.topic) + "-" + std::to_string(v.partition.partition);
  return {std::string(v.invariant), ns(v.at), v.seed, partition, v.broker, v.detail};
}

}  // namespace

struct Cluster::Impl {
  app::Scenario scenario;  // the harness's cluster refers to it
  std::unique_ptr<app::Cluster> cluster;
};

Cluster::Cluster(const Scenario& scenario, ClusterOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->scenario = scenario.impl_->scenario;
  app::RunOptions run;
  run.trace_out = options.trace;
  run.invariants = options.check_every_partition ? models::ClusterInvariants::Scope::Everything
                                                 : models::ClusterInvariants::Scope::Changed;
  try {
    impl_->cluster = std::make_unique<app::Cluster>(impl_->scenario, run);
  } catch (const config::ConfigError& e) {
    throw ScenarioError(e.what());  // what only the built cluster can tell (a disconnected network graph)
  }
}

Cluster::~Cluster() = default;

void Cluster::run() { impl_->cluster->run(); }
void Cluster::run_until(std::chrono::nanoseconds until) { impl_->cluster->run_until(until.count()); }
std::chrono::nanoseconds Cluster::now() const { return ns(impl_->cluster->now()); }
void Cluster::heal() { impl_->cluster->heal(); }

Liveness Cluster::run_until_quiet(std::chrono::nanoseconds timeout) {
  const std::optional<std::string> pending = impl_->cluster->run_until_quiet(timeout.count());
  return {!pending, now(), pending.value_or("")};
}

Report Cluster::report() const {
  const app::RunReport r = app::make_report(*impl_->cluster, 0);
  Report report;
  report.seed = r.seed;
  report.trace_hash = format_hash(r.trace_hash);
  report.simulated = ns(from_seconds(r.sim_time_s));
  report.events = r.events;
  if (r.kafka) {
    report.delivery = delivery_of(r.kafka->delivery);
    for (const app::GroupFigures& g : r.kafka->groups) report.groups[g.group] = group_of(g);
    if (r.kafka->transactions) report.transactions = transactions_of(*r.kafka->transactions);
    for (const auto& v : r.kafka->invariants) report.invariants.push_back(violation_of(v));
  }
  for (const app::ExpectationResult& e : r.expectations) report.expectations.push_back({e.name, e.held, e.detail});
  report.expectations_held = r.expectations_held();
  report.json = app::to_json(r).dump();
  std::ostringstream text;
  app::print_report(r, text);
  report.text = text.str();
  return report;
}

}  // namespace ksim
