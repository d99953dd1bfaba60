#include "models/check/failover_tracker.hpp"

#include <algorithm>

namespace ksim::models {

void FailoverTracker::on_event(SimTime time, const Node& from, const ModelEvent& event) {
  if (const auto* e = std::get_if<BecameLeader>(&event); e && !ignored_.contains(e->partition.topic)) {
    became_leader(time, e->partition, from.name());
  }
}

void FailoverTracker::on_node(SimTime time, const Node& node, NodeChange change) {
  if (change.kind == NodeChange::Kind::Crashed && change.crash != CrashKind::Shutdown) crashed(time, node.name());
}

void FailoverTracker::became_leader(SimTime time, TopicPartition tp, const std::string& node) {
  leaders_[tp] = node;
  const auto it = leaderless_.find(tp);
  if (it == leaderless_.end()) return;
  const auto [since, index] = it->second;
  FailoverIncident& incident = incidents_[index];
  incident.max_unavailability = std::max(incident.max_unavailability, time - since);
  incident.unavailable_partition_s += to_seconds(time - since);
  leaderless_.erase(it);
}

void FailoverTracker::crashed(SimTime time, const std::string& node) {
  if (incidents_.empty() || incidents_.back().at != time) incidents_.push_back({time, {}, 0, 0, 0, 0});
  FailoverIncident& incident = incidents_.back();
  incident.nodes.emplace_back(node);
  for (const auto& [tp, leader] : leaders_) {
    if (leader != node || !leaderless_.try_emplace(tp, time, incidents_.size() - 1).second) continue;
    ++incident.partitions;
  }
}

FailoverFigures FailoverTracker::figures(SimTime end) const {
  FailoverFigures f;
  f.incidents = incidents_;
  for (const auto& [tp, entry] : leaderless_) {
    FailoverIncident& incident = f.incidents[entry.second];
    ++incident.still_unavailable;
    incident.max_unavailability = std::max(incident.max_unavailability, end - entry.first);
    incident.unavailable_partition_s += to_seconds(end - entry.first);
  }
  for (const FailoverIncident& i : f.incidents) {
    f.max_unavailability = std::max(f.max_unavailability, i.max_unavailability);
    f.unavailable_partition_s += i.unavailable_partition_s;
  }
  return f;
}

}  // namespace ksim::models
