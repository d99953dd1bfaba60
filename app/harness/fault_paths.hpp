#pragma once
// Which paths of the models each fault exercised, for `ksim explore`'s
// coverage (docs/explore.md): when a fault starts, what its targets were
// (a partition leader, a follower, the controller, a client, the coordinator
// of a group in a rebalance or of a transaction being committed, a KIP-848
// member revoking or waiting for partitions) and what was going on (a
// rebalance, a KIP-848 reconciliation, a transaction's commit or abort,
// another fault).
// Learnt from the model events (rebalances, transactions) and the
// controller's partition states (leaders); it changes nothing that runs.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "models/broker/broker.hpp"
#include "models/controller/controller_quorum.hpp"
#include "models/events/model_event.hpp"
#include "sim/faults/fault.hpp"

namespace ksim::app {

// kind -> path -> faults of that kind that took it.
using FaultPathCounts = std::map<std::string, std::map<std::string, std::uint64_t>>;

// Every path a fault may take, in the order reports list them.
const std::vector<std::string>& fault_path_names();

class FaultPaths {
 public:
  // The role of each node by id: "broker", "controller", "producer", "consumer"; and its name.
  FaultPaths(std::vector<std::string> node_roles, std::vector<std::string> node_names)
      : roles_(std::move(node_roles)), names_(std::move(node_names)) {}

  void on_event(const Node& from, const models::ModelEvent& event);
  // A fault of `kind` started on `nodes` (ids); `active` faults were already in force.
  void on_fault(std::string_view kind, const Fault& fault, std::size_t active, const models::ControllerQuorum* controller,
                const std::vector<models::Broker*>& brokers);

  const FaultPathCounts& counts() const { return counts_; }

 private:
  std::vector<std::string> roles_;
  std::vector<std::string> names_;
  std::map<std::string, std::string> rebalancing_;   // group -> its coordinator's node name
  std::map<std::string, std::set<std::string>> reconciling_;  // KIP-848 group -> its members not STABLE (client ids)
  std::map<std::string, std::string> committing_;    // transactional.id -> its coordinator's node name
  FaultPathCounts counts_;
};

}  // namespace ksim::app
