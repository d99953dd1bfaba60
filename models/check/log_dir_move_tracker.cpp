#include "models/check/log_dir_move_tracker.hpp"

#include <algorithm>

namespace ksim::models {

void LogDirMoveTracker::on_event(SimTime time, const ModelEvent& event) {
  const auto* e = std::get_if<LogDirMoveChanged>(&event);
  if (!e) return;
  const std::pair key{e->broker, e->partition};
  switch (e->phase) {
    case LogDirMovePhase::Started:
      ++figures_.started;
      since_[key] = time;
      return;
    case LogDirMovePhase::Completed: {
      const auto it = since_.find(key);
      if (it == since_.end()) return;
      ++figures_.completed;
      figures_.longest = std::max(figures_.longest, time - it->second);
      figures_.total += time - it->second;
      figures_.bytes_moved += e->bytes;
      since_.erase(it);
      return;
    }
    case LogDirMovePhase::Abandoned:
      ++figures_.abandoned;
      figures_.abandoned_moves.push_back({e->broker, e->partition, std::string(e->reason)});
      since_.erase(key);
      return;
  }
}

LogDirMoveFigures LogDirMoveTracker::figures() const {
  LogDirMoveFigures f = figures_;
  f.in_progress = since_.size();
  return f;
}

}  // namespace ksim::models
