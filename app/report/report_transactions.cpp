#include "app/report/report_transactions.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace ksim::app {

TransactionFigures transaction_figures(const Cluster& cluster, const models::DeliveryReport& delivery,
                                       const std::vector<GroupFigures>& groups) {
  TransactionFigures t;
  const KafkaSpec& kafka = *cluster.scenario().kafka;
  SimTime timeout = 0;
  for (std::size_t i = 0, p = 0; i < kafka.producers.size(); ++i) {
    for (int n = 0; n < kafka.producers[i].nodes.count; ++n, ++p) {
      if (kafka.producers[i].config.transactional_id.empty()) continue;
      const auto& s = cluster.producers()[p]->stats();
      t.committed += s.transactions_committed;
      t.aborted += s.transactions_aborted;
      t.fenced += s.fenced;
      timeout = std::max(timeout, kafka.producers[i].config.transaction_timeout);
    }
  }
  t.output_missing = delivery.lost;
  t.output_duplicates = delivery.duplicated;
  for (const models::Producer* p : cluster.transform_producers()) {
    t.committed += p->stats().transactions_committed;
    t.aborted += p->stats().transactions_aborted;
    t.fenced += p->stats().fenced;
  }
  for (const auto& g : groups) {
    if (!g.transform) continue;
    t.output_missing += g.transform->missing;  // end to end: inputs without an output, outputs twice
    t.output_duplicates += g.transform->duplicates;
  }
  for (const auto& entry : kafka.consumers) {
    if (entry.transform && !entry.transform->transactional_id.empty()) {
      timeout = std::max(timeout, entry.transform->transaction_timeout);
    }
  }
  for (const auto& entry : kafka.consumers) {
    for (const auto& g : groups) {
      if (g.group != entry.config.group_id) continue;
      (entry.config.read_committed ? t.aborted_reads : t.aborted_reads_uncommitted) += g.report.aborted_reads;
    }
  }
  t.zombie_writes = cluster.zombie_writes();
  t.max_lso_lag = cluster.max_lso_lag();
  // A transaction the coordinator knows is aborted within its timeout (and the next abort check).
  t.hanging_threshold = timeout + kafka.broker.transaction_coordinator.abort_check_interval;
  t.hanging = cluster.hanging_transactions(t.hanging_threshold);
  return t;
}

nlohmann::ordered_json transactions_json(const TransactionFigures& t) {
  nlohmann::ordered_json hanging = nlohmann::ordered_json::array();
  for (const auto& h : t.hanging) {
    hanging.push_back({{"topic", h.partition.topic}, {"partition", h.partition.partition}, {"producer_id", h.producer_id},
                       {"first_offset", h.first_offset}, {"open_since_s", to_seconds(h.since)}});
  }
  return {{"committed", t.committed},
          {"aborted", t.aborted},
          {"fenced", t.fenced},
          {"output_missing", t.output_missing},
          {"output_duplicates", t.output_duplicates},
          {"aborted_reads", t.aborted_reads},
          {"aborted_reads_read_uncommitted", t.aborted_reads_uncommitted},
          {"zombie_writes", t.zombie_writes},
          {"max_lso_lag", t.max_lso_lag},
          {"hanging", t.hanging.size()},
          {"hanging_transactions", hanging},
          {"exactly_once", t.exactly_once()}};
}

void print_transactions(const TransactionFigures& t, std::ostream& out) {
  fmt::print(out, "\ntransactions: {}\n", t.exactly_once() ? "exactly-once" : "VIOLATED");
  fmt::print(out, "  committed {}  aborted {}  fenced {}\n", t.committed, t.aborted, t.fenced);
  fmt::print(out, "  output missing {}  duplicated {}  zombie writes {}\n", t.output_missing, t.output_duplicates,
             t.zombie_writes);
  fmt::print(out, "  aborted records read: by read_committed consumers {}, by read_uncommitted ones {}\n",
             t.aborted_reads, t.aborted_reads_uncommitted);
  fmt::print(out, "  largest LSO lag {} records  hanging transactions {} (open longer than {:.0f}s)\n", t.max_lso_lag,
             t.hanging.size(), to_seconds(t.hanging_threshold));
  for (const auto& h : t.hanging) {
    fmt::print(out, "    partition {}-{}: producer {} since offset {}, open since {:.3f}s\n", h.partition.topic,
               h.partition.partition, h.producer_id, h.first_offset, to_seconds(h.since));
  }
}

}  // namespace ksim::app
