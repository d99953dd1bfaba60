#pragma once
// The transactions of a run: what the transactional producers committed,
// aborted and were fenced from; whether read_committed consumers ever saw an
// aborted record; zombie writes (a fenced epoch's records committed after the
// fencing); and hanging transactions (a partition's last stable offset held
// back longer than the transaction timeout by a transaction no coordinator
// will finish). One figure table, as JSON and text.
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/harness/cluster.hpp"
#include "app/report/figure_table.hpp"
#include "app/report/report_groups.hpp"
#include "models/check/delivery_checker.hpp"

namespace ksim::app {

struct TransactionFigures {
  std::uint64_t committed = 0, aborted = 0, fenced = 0;
  std::uint64_t mappings_lost = 0;      // INVALID_PRODUCER_ID_MAPPING answers (the transactional.id expired)
  std::uint64_t producer_ids_renewed = 0;  // transactions v2: an exhausted epoch gave a new producer id
  std::uint64_t output_missing = 0;     // acknowledged (committed) records not in the log
  std::uint64_t output_duplicates = 0;  // committed twice
  std::uint64_t aborted_reads = 0;      // by read_committed consumers: must be 0
  std::uint64_t aborted_reads_uncommitted = 0;  // by read_uncommitted consumers: allowed
  std::uint64_t zombie_writes = 0;
  std::int64_t max_lso_lag = 0;  // records between a high watermark and its last stable offset, at most
  std::vector<models::OpenTransaction> hanging;
  SimTime hanging_threshold = 0;
  std::uint64_t hanging_count() const { return hanging.size(); }
  std::string vacuous;  // "no transaction committed", or the run's reason; "" when something was checked
  bool exactly_once() const {
    return output_missing == 0 && output_duplicates == 0 && aborted_reads == 0 && zombie_writes == 0 && hanging.empty();
  }
};

const Section<TransactionFigures>& transactions_section();

// What the checkers give of the transactions, from a run or a recorded
// history: committed output missing or written twice (the producers' and the
// transforms'), aborted records read, by the group's isolation.level
// (`read_committed`, by group.id).
void check_transaction_output(TransactionFigures& t, const models::DeliveryReport& delivery,
                              const std::vector<GroupFigures>& groups, const std::map<std::string, bool>& read_committed);

TransactionFigures transaction_figures(const Cluster& cluster, const models::DeliveryReport& delivery,
                                       const std::vector<GroupFigures>& groups, const std::string& vacuous);
nlohmann::ordered_json transactions_json(const TransactionFigures& t);
void print_transactions(const TransactionFigures& t, std::ostream& out);

}  // namespace ksim::app
