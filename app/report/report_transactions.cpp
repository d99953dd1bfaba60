#include "app/report/report_transactions.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace ksim::app {

namespace {

using TransactionRow = TransactionFigures;
using U = FigureUnit;

constexpr Figure<TransactionRow> kTransactions[] = {
    {.name = "committed", .value = of<&TransactionRow::committed>, .label = "committed", .expect = ExpectAs::Count,
     .description = "transactions committed"},
    {.name = "aborted", .value = of<&TransactionRow::aborted>, .label = "aborted", .expect = ExpectAs::Count,
     .description = "transactions aborted"},
    {.name = "fenced", .value = of<&TransactionRow::fenced>, .label = "fenced", .expect = ExpectAs::Count,
     .description = "times a transactional producer was fenced by a newer epoch"},
    {.name = "producer_id_mappings_lost", .value = of<&TransactionRow::mappings_lost>, .label = "producer id mappings lost",
     .expect = ExpectAs::Count,
     .description = "INVALID_PRODUCER_ID_MAPPING answers to transactional producers: their transactional.id had "
                    "expired at the coordinator (transactional.id.expiration.ms); the transaction aborts and, from "
                    "2.5 (KIP-360), the producer goes on with a new producer id (before, it stops: fenced)"},
    {.name = "producer_ids_renewed", .value = of<&TransactionRow::producer_ids_renewed>, .label = "producer ids renewed",
     .expect = ExpectAs::Count,
     .description = "transactions v2 (KIP-890): a producer's epoch, bumped at every commit or abort, reached "
                    "Short.MAX_VALUE - 1 and the coordinator gave it a new producer id at epoch 0 with EndTxn"},
    {.name = "output_missing", .value = of<&TransactionRow::output_missing>, .label = "output missing", .new_line = true,
     .expect = ExpectAs::Count, .description = "acknowledged (committed) records not in the log"},
    {.name = "output_duplicates", .value = of<&TransactionRow::output_duplicates>, .label = "duplicated", .expect = ExpectAs::Count,
     .description = "records committed twice"},
    {.name = "zombie_writes", .value = of<&TransactionRow::zombie_writes>, .label = "zombie writes", .expect = ExpectAs::Count,
     .description = "records of a fenced epoch committed after the fencing"},
    {.name = "aborted_reads", .value = of<&TransactionRow::aborted_reads>, .label = "aborted records read by read_committed consumers",
     .new_line = true, .expect = ExpectAs::Count, .description = "aborted records read by read_committed consumers"},
    {.name = "aborted_reads_read_uncommitted", .value = of<&TransactionRow::aborted_reads_uncommitted>,
     .label = "by read_uncommitted ones"},
    {.name = "max_lso_lag", .value = of<&TransactionRow::max_lso_lag>, .unit = U::Records, .label = "largest LSO lag", .new_line = true},
    {.name = "hanging", .value = of<&TransactionRow::hanging_count>, .label = "hanging transactions", .expect = ExpectAs::Count,
     .description = "transactions holding back a partition's last stable offset longer than the transaction timeout"},
    {.name = "hanging_threshold_s", .value = [](const TransactionRow& t) { return figure_value(to_seconds(t.hanging_threshold)); },
     .unit = U::Seconds, .label = "hanging threshold"},
    {.name = "vacuous", .value = of<&TransactionRow::vacuous>, .unit = U::Text},
    {.name = "exactly_once", .value = [](const TransactionRow& t) { return figure_value(Held{t.exactly_once(), t.vacuous}); },
     .unit = U::Held, .expect = ExpectAs::Flag,
     .description = "no committed record lost or duplicated, no aborted record read by a read_committed "
                    "consumer, no zombie write, no hanging transaction"},
};

constexpr Section<TransactionRow> kTransactionsSection{"transactions", SectionScope::Transactions, "transactions", kTransactions};

}  // namespace

const Section<TransactionFigures>& transactions_section() { return kTransactionsSection; }

void check_transaction_output(TransactionFigures& t, const models::DeliveryReport& delivery,
                              const std::vector<GroupFigures>& groups, const std::map<std::string, bool>& read_committed) {
  t.output_missing = delivery.lost;
  t.output_duplicates = delivery.duplicated;
  for (const auto& g : groups) {
    if (g.transform) {
      t.output_missing += g.transform->missing;  // end to end: inputs without an output, outputs twice
      t.output_duplicates += g.transform->duplicates;
    }
    const auto it = read_committed.find(g.group);
    (it == read_committed.end() || it->second ? t.aborted_reads : t.aborted_reads_uncommitted) += g.report.aborted_reads;
  }
}

TransactionFigures transaction_figures(const Cluster& cluster, const models::DeliveryReport& delivery,
                                       const std::vector<GroupFigures>& groups, const std::string& vacuous) {
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
      t.mappings_lost += s.mappings_lost;
      t.producer_ids_renewed += s.producer_ids_renewed;
      timeout = std::max(timeout, kafka.producers[i].config.transaction_timeout);
    }
  }
  for (const models::Producer* p : cluster.transform_producers()) {
    t.committed += p->stats().transactions_committed;
    t.aborted += p->stats().transactions_aborted;
    t.fenced += p->stats().fenced;
    t.mappings_lost += p->stats().mappings_lost;
    t.producer_ids_renewed += p->stats().producer_ids_renewed;
  }
  for (const auto& entry : kafka.consumers) {
    if (entry.transform && !entry.transform->transactional_id.empty()) {
      timeout = std::max(timeout, entry.transform->transaction_timeout);
    }
  }
  std::map<std::string, bool> read_committed;
  for (const auto& entry : kafka.consumers) read_committed.emplace(entry.config.group_id, entry.config.read_committed);
  check_transaction_output(t, delivery, groups, read_committed);
  t.zombie_writes = cluster.zombie_writes();
  t.max_lso_lag = cluster.max_lso_lag();
  // A transaction the coordinator knows is aborted within its timeout (and the next abort check).
  t.hanging_threshold = timeout + kafka.broker.transaction_coordinator.abort_check_interval;
  t.hanging = cluster.hanging_transactions(t.hanging_threshold);
  t.vacuous = t.committed == 0 ? "no transaction committed" : vacuous;
  return t;
}

nlohmann::ordered_json transactions_json(const TransactionFigures& t) {
  nlohmann::ordered_json hanging = nlohmann::ordered_json::array();
  for (const auto& h : t.hanging) {
    hanging.push_back({{"topic", h.partition.topic}, {"partition", h.partition.partition}, {"producer_id", h.producer_id},
                       {"first_offset", h.first_offset}, {"open_since_s", to_seconds(h.since)}});
  }
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  add_json(kTransactionsSection, t, j, "");
  j["hanging_transactions"] = hanging;
  return j;
}

void print_transactions(const TransactionFigures& t, std::ostream& out) {
  const std::string verdict = !t.exactly_once()     ? "VIOLATED"
                              : !t.vacuous.empty() ? "vacuous (" + t.vacuous + ")"
                                                   : "exactly-once";
  fmt::print(out, "\ntransactions: {}\n", verdict);
  print_figures(kTransactionsSection, t, out);
  for (const auto& h : t.hanging) {
    fmt::print(out, "    partition {}-{}: producer {} since offset {}, open since {:.3f}s\n", h.partition.topic,
               h.partition.partition, h.producer_id, h.first_offset, to_seconds(h.since));
  }
}

}  // namespace ksim::app
