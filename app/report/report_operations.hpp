#pragma once
// The scenario's operations (`operations:`) and what the partition
// reassignments they started did (KIP-455): in the JSON under
// "reassignments" and "operations", in the text report's cluster part
// when the scenario has operations.
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
};

struct OperationFigures {
  models::ReassignmentFigures reassignments;
  std::vector<OperationOutcome> operations;
  std::uint64_t operation_errors = 0;  // partitions an operation could not change
};

const Section<OperationFigures>& operations_section();
OperationFigures operation_figures(const Cluster& cluster);
void add_operations_json(const OperationFigures& o, nlohmann::ordered_json& j);
void print_operations(const OperationFigures& o, std::ostream& out);

}  // namespace ksim::app
