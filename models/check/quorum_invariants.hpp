#pragma once
// The controller quorum's invariants (controllers.count > 1), checked after
// every event as Kafka's RaftEventSimulationTest checks its own (its
// SingleLeader, MonotonicEpoch, MonotonicHighWatermark,
// MajorityReachedHighWatermark invariants and its ConsistentCommittedData
// validation, here as it happens):
//
// - controller_single_leader_per_epoch: one quorum epoch has one leader, over
//   every controller's persisted election state, for the whole run.
// - controller_epoch_monotonic: a controller's persisted epoch never goes back.
// - controller_high_watermark_monotonic: a leading controller's high watermark
//   never goes back within its epoch, is never below one a leader of an
//   earlier epoch reached, nor above one of a later epoch. (Kafka checks the
//   running leader of the largest epoch; when the newest leader crashes while
//   a cut-off older one still leads, that one's does go back, legitimately.)
// - controller_high_watermark_on_majority: what a leading controller counts
//   as committed is flushed on a majority of the voters.
// - controller_committed_metadata_agrees: below its high watermark every
//   running controller's metadata log holds what was first seen committed at
//   each offset: the same record from the same epoch.
//
// Violations have no partition or broker: the detail names the controller.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "models/check/invariant.hpp"
#include "models/controller/controller_quorum.hpp"

namespace ksim::models {

class QuorumInvariants {
 public:
  // Violations go to `violations`.
  QuorumInvariants(const ControllerQuorum& quorum, std::uint64_t seed, std::vector<InvariantViolation>& violations);

  static const std::vector<Invariant>& all();
  void after_event(SimTime now);

 private:
  struct Committed {
    Epoch epoch = 0;
    const RaftRecord* record = nullptr;
  };
  void check_elections(SimTime now);
  void check_leader(const Controller& controller, const RaftReplica& leader, SimTime now);
  void check_committed_log(const Controller& controller, const RaftReplica& replica, SimTime now);
  // Records the start of a violation (once until it holds again); `holds` ends one.
  template <class Detail>  // std::string(): what was seen, formatted only for a violation
  void verdict(bool holds, std::string_view invariant, RaftNodeId controller, SimTime now, const Detail& detail);

  const ControllerQuorum& quorum_;
  std::uint64_t seed_;
  std::vector<InvariantViolation>& violations_;
  std::map<Epoch, RaftNodeId> leaders_;             // single leader per epoch
  std::vector<Epoch> epochs_;                       // by controller: its last persisted epoch
  std::map<Epoch, Offset> leader_high_watermarks_;  // the largest a leader of each epoch showed
  std::vector<Committed> committed_;                // by offset: what was first seen committed there
  std::vector<Offset> checked_;                     // by controller: its log is checked below this
  std::set<std::pair<std::string_view, RaftNodeId>> broken_;
};

}  // namespace ksim::models
