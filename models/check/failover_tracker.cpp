#include "models/check/failover_tracker.hpp"

#include <algorithm>

namespace ksim::models {

namespace {

const TraceField* find(std::initializer_list<TraceField> fields, std::string_view key) {
  for (const TraceField& f : fields) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

}  // namespace

void FailoverTracker::observe(SimTime time, std::string_view node, std::string_view kind,
                              std::initializer_list<TraceField> fields) {
  if (kind == "broker.become_leader") {
    const TopicPartition tp{static_cast<std::int32_t>(find(fields, "topic")->number),
                                    static_cast<std::int32_t>(find(fields, "partition")->number)};
    if (!ignored_.count(tp.topic)) became_leader(time, tp, node);
  } else if (kind == "node.crash" && find(fields, "crash")->text != "shutdown") {
    crashed(time, node);
  }
}

void FailoverTracker::became_leader(SimTime time, TopicPartition tp, std::string_view node) {
  leaders_[tp] = std::string(node);
  const auto it = leaderless_.find(tp);
  if (it == leaderless_.end()) return;
  const auto [since, index] = it->second;
  FailoverIncident& incident = incidents_[index];
  incident.max_unavailability = std::max(incident.max_unavailability, time - since);
  incident.unavailable_partition_s += to_seconds(time - since);
  leaderless_.erase(it);
}

void FailoverTracker::crashed(SimTime time, std::string_view node) {
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
