#pragma once
// The cluster: one simulation built from a scenario, with its nodes, fault
// schedule and nemesis. The driver runs it and reads its figures.
#include <memory>
#include <ostream>
#include <vector>

#include "app/scenario.hpp"
#include "models/rpc_client.hpp"
#include "models/rpc_server.hpp"
#include "sim/fault_injector.hpp"
#include "sim/simulation.hpp"

namespace ksim::app {

struct RunOptions {
  spdlog::level::level_enum log_level = spdlog::level::warn;
  std::ostream* trace_out = nullptr;  // JSON lines, when asked for
};

class Cluster {
 public:
  Cluster(const Scenario& scenario, const RunOptions& options);

  void run();  // to the scenario's duration

  const Scenario& scenario() const { return scenario_; }
  Simulation& sim() { return *sim_; }
  const Simulation& sim() const { return *sim_; }
  const FaultInjector& faults() const { return *faults_; }
  const std::vector<models::RpcServer*>& servers() const { return servers_; }
  const std::vector<models::RpcClient*>& clients() const { return clients_; }

 private:
  Topology build_topology() const;
  void spawn_nodes();
  void schedule_faults();
  void plan_nemesis();
  std::vector<NodeId> resolve_nodes(const std::vector<std::string>& names) const;
  std::vector<LinkId> resolve_links(const std::vector<std::string>& names) const;

  const Scenario& scenario_;
  std::vector<NodePlacement> placements_;
  std::unique_ptr<Simulation> sim_;
  std::unique_ptr<FaultInjector> faults_;
  std::vector<models::RpcServer*> servers_;
  std::vector<models::RpcClient*> clients_;
};

}  // namespace ksim::app
