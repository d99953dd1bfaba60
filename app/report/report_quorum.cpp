#include "app/report/report_quorum.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace ksim::app {

namespace {

using Q = QuorumFigures;
using U = FigureUnit;

double ms(SimTime t) { return to_milliseconds(t); }

constexpr Figure<Q> kQuorum[] = {
    {.name = "controllers", .value = of<&Q::controllers>, .label = "controllers"},
    {.name = "first_active_ms",
     .value = [](const Q& q) { return figure_value(q.stats.first_active_at == kNever ? -1.0 : ms(q.stats.first_active_at)); },
     .unit = U::Milliseconds, .label = "first active at"},
    {.name = "failovers", .value = [](const Q& q) { return figure_value(q.stats.failovers); }, .label = "failovers",
     .expect = ExpectAs::Count, .description = "times another controller became the active one (after the first)",
     .expect_key = "controller_failovers"},
    {.name = "raft_epochs", .value = [](const Q& q) { return figure_value(q.stats.raft_elections); },
     .label = "Raft epochs"},
    {.name = "renouncements", .value = [](const Q& q) { return figure_value(q.stats.renouncements); },
     .label = "renounced"},
    {.name = "reverted_records", .value = [](const Q& q) { return figure_value(q.stats.reverted_records); },
     .label = "uncommitted records reverted"},
    {.name = "leaderless_periods", .value = [](const Q& q) { return figure_value(q.stats.inactive_periods); },
     .label = "periods without an active controller", .new_line = true},
    {.name = "leaderless_ms", .value = [](const Q& q) { return figure_value(ms(q.stats.inactive)); },
     .unit = U::Milliseconds, .label = "for", .expect = ExpectAs::Bound,
     .description = "time without an active controller (none running leads the quorum, or the one controller is down), after the first became active",
     .expect_key = "controller_leaderless"},
    {.name = "longest_leaderless_ms", .value = [](const Q& q) { return figure_value(ms(q.stats.longest_inactive)); },
     .unit = U::Milliseconds, .label = "longest", .expect = ExpectAs::Bound,
     .description = "the longest period without an active controller: a controller failover's time",
     .expect_key = "controller_failover"},
};

constexpr Section<Q> kQuorumSection{"controller quorum", SectionScope::Kafka, "controller.quorum", kQuorum};

}  // namespace

const Section<QuorumFigures>& quorum_section() { return kQuorumSection; }

QuorumFigures quorum_figures(const Cluster& cluster) {
  const models::ControllerQuorum& quorum = *cluster.controller();
  if (quorum.is_zookeeper()) {
    return QuorumFigures{static_cast<int>(quorum.zookeeper_sides().size()), quorum.quorum_stats(cluster.sim().now()), true};
  }
  return QuorumFigures{static_cast<int>(quorum.controllers().size()), quorum.quorum_stats(cluster.sim().now())};
}

void add_quorum_json(const QuorumFigures& q, nlohmann::ordered_json& j) { add_json(kQuorumSection, q, j); }

void print_quorum(const QuorumFigures& q, std::ostream& out) {
  if (q.zookeeper) {  // no Raft: the figures that hold for a controller elected through ZooKeeper
    const models::QuorumStats& s = q.stats;
    fmt::print(out, "  controller, ZooKeeper-era: elected among {} brokers  first active at {:.3f}ms  failovers {}\n",
               q.controllers, s.first_active_at == kNever ? -1.0 : ms(s.first_active_at), s.failovers);
    fmt::print(out, "  periods without an active controller {}  for {:.3f}ms  longest {:.3f}ms\n", s.inactive_periods,
               ms(s.inactive), ms(s.longest_inactive));
    return;
  }
  fmt::print(out, "  controller quorum{}\n", q.controllers == 1 ? " (one controller: no Raft)" : ", Raft");
  print_figures(kQuorumSection, q, out);
}

}  // namespace ksim::app
