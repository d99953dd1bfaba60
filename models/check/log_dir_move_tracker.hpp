#pragma once
// What the run's moves of replicas between log dirs (KIP-113) did: each from
// the future replica's creation to its promotion (the move completed) or its
// removal (abandoned: a log dir failed, the replica was deleted), by broker and
// partition.
#include <map>
#include <string>
#include <vector>

#include "models/events/model_event.hpp"

namespace ksim::models {

struct LogDirMoveFigures {
  std::uint64_t started = 0;
  std::uint64_t completed = 0;
  std::uint64_t abandoned = 0;
  std::uint64_t in_progress = 0;  // at the end of the run
  SimTime longest = 0;            // of the completed: from the request to the promotion
  SimTime total = 0;              // summed over the completed
  std::uint64_t bytes_moved = 0;  // the completed moves' logs, as promoted
  struct Abandoned {
    BrokerId broker;
    TopicPartition partition;
    std::string reason;  // "target log dir failed"
  };
  std::vector<Abandoned> abandoned_moves;
};

class LogDirMoveTracker {
 public:
  void on_event(SimTime time, const ModelEvent& event);
  LogDirMoveFigures figures() const;

 private:
  std::map<std::pair<BrokerId, TopicPartition>, SimTime> since_;  // in progress: when it started
  LogDirMoveFigures figures_;
};

}  // namespace ksim::models
