#pragma once
// A simulated Kafka cluster built from a scenario, to run in phases as a test
// reads: run the scenario with its faults (safety), heal every fault, run
// until the cluster has converged (liveness), then assert on the report.
//
//   ksim::Cluster cluster(ksim::Scenario::load("scenarios/quickstart.yaml").seed(7));
//   cluster.run_until(20s);
//   cluster.heal();
//   const ksim::Liveness live = cluster.run_until_quiet(60s);
//   REQUIRE(live.converged);
//   REQUIRE(cluster.report().delivery->exactly_once);
//
// Everything is simulated time, in integer nanoseconds, from the scenario's
// seed: the same scenario and seed give the same run, bit for bit.
#include <chrono>
#include <memory>
#include <ostream>
#include <string>

#include "ksim/report.hpp"
#include "ksim/scenario.hpp"

namespace ksim {

struct ClusterOptions {
  std::ostream* trace = nullptr;  // every trace record as a JSON line, when set
  // Check the invariants on every partition after every event, not only on
  // those the event changed (slow; both find the same).
  bool check_every_partition = false;
};

// The liveness phase's outcome.
struct Liveness {
  bool converged = false;
  std::chrono::nanoseconds at{};  // when it converged, or when it gave up
  std::string pending;            // what had not converged: "partition 0-2 is under-replicated: ..."
  explicit operator bool() const { return converged; }
};

class Cluster {
 public:
  explicit Cluster(const Scenario& scenario, ClusterOptions options = {});
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;
  ~Cluster();

  // As `ksim run`: the scenario's duration, then its drain.
  void run();
  // Runs until `until` (from the start of the run), faults and workload as scheduled.
  void run_until(std::chrono::nanoseconds until);
  void run_for(std::chrono::nanoseconds duration) { run_until(now() + duration); }
  std::chrono::nanoseconds now() const;

  // Ends every fault now (crashed brokers restart, cuts heal) and cancels those still to come.
  void heal();
  // Runs until the workload is over, no fault is in force, every partition
  // has a leader with every replica in sync, every record is acknowledged or
  // failed, no transaction is open and every consumer group has processed
  // everything committed; at most `timeout` more.
  Liveness run_until_quiet(std::chrono::nanoseconds timeout);

  // The report of the run so far (checkers read the logs as they are now).
  Report report() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ksim
