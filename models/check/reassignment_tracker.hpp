#pragma once
// What the run's partition reassignments (KIP-455) did: each from the
// controller writing its target replicas to the change that completed it
// (every target replica in the ISR, the removed ones gone) or cancelled it,
// and the replicas brokers created and deleted on the way.
#include <map>

#include "models/events/model_event.hpp"
#include "sim/core/node.hpp"

namespace ksim::models {

struct ReassignmentFigures {
  std::uint64_t started = 0;    // partitions whose reassignment began (again, if changed while in progress)
  std::uint64_t completed = 0;
  std::uint64_t cancelled = 0;
  std::uint64_t in_progress = 0;  // at the end of the run
  SimTime longest = 0;            // of the completed: from start to completion
  SimTime total = 0;              // summed over the completed
  std::uint64_t replicas_created = 0;
  std::uint64_t replicas_deleted = 0;
  std::uint64_t bytes_deleted = 0;  // the deleted replicas' logs
};

class ReassignmentTracker {
 public:
  void on_event(SimTime time, const ModelEvent& event);
  ReassignmentFigures figures() const;

 private:
  std::map<TopicPartition, SimTime> since_;  // in progress: when it started
  ReassignmentFigures figures_;
};

}  // namespace ksim::models
