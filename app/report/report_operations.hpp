#pragma once
// The scenario's operations (`operations:`), what the partition
// reassignments they started did (KIP-455) and the moves of replicas between
// log dirs (KIP-113): in the JSON under "reassignments", "log_dir_moves" and
// "operations", in the text report's cluster part when the scenario has operations.
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/harness/cluster.hpp"
#include "app/report/figure_table.hpp"

namespace ksim::app {

struct OperationOutcome {
  std::string what;         // "reassign_partitions orders (4 partitions)"
  SimTime at = 0;           // as scheduled
  SimTime applied_at = kNever;  // when it reached the active controller; never: it did not in time
  std::vector<std::string> errors;  // "partition 2: INVALID_REPLICA_ASSIGNMENT"
  // KIP-113 moves: the broker's log dirs (path, bytes) when it was applied, when
  // its moves were done (at moves_done_at; never: not by the end), and at the end of the run.
  std::vector<std::pair<std::string, std::uint64_t>> log_dirs_before;
  std::vector<std::pair<std::string, std::uint64_t>> log_dirs_after_moves;
  SimTime moves_done_at = kNever;
  std::vector<std::pair<std::string, std::uint64_t>> log_dirs_after;
};

struct OperationFigures {
  models::ReassignmentFigures reassignments;
  models::LogDirMoveFigures log_dir_moves;
  // Of the brokers with several log dirs, the largest ratio of a fullest dir's bytes to its broker's mean at the end.
  double log_dir_skew = 0;
  std::vector<std::string> abandoned_moves;  // "events-3 on broker 0: target log dir failed"
  bool has_log_dir_operations = false;
  std::vector<OperationOutcome> operations;
  std::uint64_t operation_errors = 0;  // partitions an operation could not change
  bool zookeeper = false;              // an added broker is done once registered, not unfenced
};

const Section<OperationFigures>& operations_section();
const Section<OperationFigures>& log_dir_moves_section();
OperationFigures operation_figures(const Cluster& cluster);
void add_operations_json(const OperationFigures& o, nlohmann::ordered_json& j);
void print_operations(const OperationFigures& o, std::ostream& out);

}  // namespace ksim::app
