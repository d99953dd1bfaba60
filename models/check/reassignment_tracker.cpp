#include "models/check/reassignment_tracker.hpp"

#include <algorithm>

namespace ksim::models {

void ReassignmentTracker::on_event(SimTime time, const ModelEvent& event) {
  if (const auto* e = std::get_if<ReassignmentChanged>(&event)) {
    switch (e->phase) {
      case ReassignmentPhase::Started:
        ++figures_.started;
        since_.try_emplace(e->partition, time);  // a change of target keeps the first start
        return;
      case ReassignmentPhase::Completed: {
        const auto it = since_.find(e->partition);
        if (it == since_.end()) return;
        ++figures_.completed;
        figures_.longest = std::max(figures_.longest, time - it->second);
        figures_.total += time - it->second;
        since_.erase(it);
        return;
      }
      case ReassignmentPhase::Cancelled:
        ++figures_.cancelled;
        since_.erase(e->partition);
        return;
    }
  } else if (std::holds_alternative<ReplicaCreated>(event)) {
    ++figures_.replicas_created;
  } else if (const auto* d = std::get_if<ReplicaDeleted>(&event)) {
    ++figures_.replicas_deleted;
    figures_.bytes_deleted += d->bytes;
  }
}

ReassignmentFigures ReassignmentTracker::figures() const {
  ReassignmentFigures f = figures_;
  f.in_progress = since_.size();
  return f;
}

}  // namespace ksim::models
