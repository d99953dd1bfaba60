#include "app/report/report_quorum.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <limits>

namespace ksim::app {

namespace {

using Q = QuorumFigures;
using U = FigureUnit;

double ms(SimTime t) { return to_milliseconds(t); }

// A lag's mean or max in milliseconds; NaN (null, "n/a") when no batch was measured.
double lag_ms(const models::QuorumStats::MetadataLag& lag, bool max) {
  if (lag.batches == 0) return std::numeric_limits<double>::quiet_NaN();
  return max ? ms(lag.max) : lag.mean_ms();
}

constexpr Figure<Q> kQuorum[] = {
    {.name = "controllers", .value = of<&Q::controllers>, .label = "controllers"},
    {.name = "first_active_ms",
     .value = [](const Q& q) { return figure_value(q.stats.first_active_at == kNever ? -1.0 : ms(q.stats.first_active_at)); },
     .unit = U::Milliseconds, .label = "first active at"},
    {.name = "failovers", .value = [](const Q& q) { return figure_value(q.stats.failovers); }, .label = "failovers",
     .expect = ExpectAs::Count, .description = "times another controller became the active one (after the first)",
     .expect_key = "controller_failovers"},
    // NaN (n/a) without Raft (one controller, or ZooKeeper): an expectation on it fails rather than holds over nothing.
    {.name = "raft_epochs",
     .value = [](const Q& q) {
       const bool raft = q.controllers > 1 && !q.zookeeper;
       return raft ? figure_value(q.stats.raft_elections) : figure_value(std::numeric_limits<double>::quiet_NaN());
     },
     .label = "Raft epochs", .expect = ExpectAs::Count,
     .description = "the largest Raft epoch a controller persisted: one per candidacy (a cut-off controller raises "
                    "its own at every election timeout without pre-vote, KIP-996); fails without a quorum",
     .expect_key = "controller_raft_epochs"},
    {.name = "renouncements", .value = [](const Q& q) { return figure_value(q.stats.renouncements); },
     .label = "renounced"},
    {.name = "reverted_records", .value = [](const Q& q) { return figure_value(q.stats.reverted_records); },
     .label = "uncommitted records reverted"},
    {.name = "leaderless_periods", .value = [](const Q& q) { return figure_value(q.stats.inactive_periods); },
     .label = "periods without an active controller", .new_line = true, .expect = ExpectAs::Count,
     .description = "periods without an active controller, after the first became active",
     .expect_key = "controller_leaderless_periods"},
    {.name = "leaderless_ms", .value = [](const Q& q) { return figure_value(ms(q.stats.inactive)); },
     .unit = U::Milliseconds, .label = "for", .expect = ExpectAs::Bound,
     .description = "time without an active controller (none running leads the quorum, or the one controller is down), after the first became active",
     .expect_key = "controller_leaderless"},
    {.name = "longest_leaderless_ms", .value = [](const Q& q) { return figure_value(ms(q.stats.longest_inactive)); },
     .unit = U::Milliseconds, .label = "longest", .expect = ExpectAs::Bound,
     .description = "the longest period without an active controller: a controller failover's time",
     .expect_key = "controller_failover"},
    // KIP-631: with a quorum the brokers fetch the metadata log (printed with the brokers' lines below).
    {.name = "metadata_batches_applied", .value = [](const Q& q) { return figure_value(q.stats.metadata_lag.batches); }},
    {.name = "metadata_lag_mean_ms", .value = [](const Q& q) { return figure_value(lag_ms(q.stats.metadata_lag, false)); },
     .unit = U::Milliseconds},
    {.name = "metadata_lag_max_ms", .value = [](const Q& q) { return figure_value(lag_ms(q.stats.metadata_lag, true)); },
     .unit = U::Milliseconds, .expect = ExpectAs::Bound,
     .description = "with a controller quorum, the longest a committed metadata batch took to reach a running broker "
                    "(from its commit on the active controller to the broker applying it: brokers fetch the metadata "
                    "log, KIP-631); a bound fails without a quorum",
     .expect_key = "metadata_lag"},
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

void add_quorum_json(const QuorumFigures& q, nlohmann::ordered_json& j) {
  add_json(kQuorumSection, q, j);
  if (q.stats.metadata_lag_by_broker.empty()) return;
  auto& brokers = j["controller"]["quorum"]["metadata_lag_by_broker"] = nlohmann::ordered_json::array();
  for (std::size_t b = 0; b < q.stats.metadata_lag_by_broker.size(); ++b) {
    const auto& lag = q.stats.metadata_lag_by_broker[b];
    brokers.push_back({{"broker", b}, {"batches", lag.batches}, {"mean_ms", figure_json(lag_ms(lag, false))},
                       {"max_ms", figure_json(lag_ms(lag, true))}});
  }
}

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
  if (q.stats.metadata_lag_by_broker.empty()) return;  // one controller pushes the metadata
  fmt::print(out, "  brokers' metadata lag (commit to applied, KIP-631): {} batches  mean {}  max {}\n",
             q.stats.metadata_lag.batches, format_figure(lag_ms(q.stats.metadata_lag, false), U::Milliseconds),
             format_figure(lag_ms(q.stats.metadata_lag, true), U::Milliseconds));
  std::string line = "   ";
  for (std::size_t b = 0; b < q.stats.metadata_lag_by_broker.size(); ++b) {
    const auto& lag = q.stats.metadata_lag_by_broker[b];
    line += fmt::format(" broker-{} mean {} max {};", b, format_figure(lag_ms(lag, false), U::Milliseconds),
                        format_figure(lag_ms(lag, true), U::Milliseconds));
  }
  line.pop_back();
  fmt::print(out, "{}\n", line);
}

}  // namespace ksim::app
