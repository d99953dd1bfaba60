#include "app/failover_tracker.hpp"

#include <algorithm>

namespace ksim::app {

namespace {

std::int64_t field(std::initializer_list<TraceField> fields, std::string_view key) {
  for (const TraceField& f : fields) {
    if (f.key == key) return f.number;
  }
  return -1;
}

std::string_view text_field(std::initializer_list<TraceField> fields, std::string_view key) {
  for (const TraceField& f : fields) {
    if (f.key == key) return f.text;
  }
  return {};
}

}  // namespace

void FailoverTracker::observe(SimTime time, std::string_view node, std::string_view kind,
                              std::initializer_list<TraceField> fields) {
  if (kind == "broker.become_leader") {
    const models::TopicPartition tp{static_cast<std::int32_t>(field(fields, "topic")),
                                    static_cast<std::int32_t>(field(fields, "partition"))};
    if (ignored_.count(tp.topic)) return;
    leaders_[tp] = std::string(node);
    const auto since = leaderless_since_.find(tp);
    if (since == leaderless_since_.end()) return;
    const SimTime waited = time - since->second;
    ++done_.partitions_failed_over;
    done_.max_unavailability = std::max(done_.max_unavailability, waited);
    done_.unavailable_partition_s += to_seconds(waited);
    leaderless_since_.erase(since);
  } else if (kind == "node.crash" && text_field(fields, "crash") != "shutdown") {
    for (const auto& [tp, leader] : leaders_) {
      if (leader == node) leaderless_since_.try_emplace(tp, time);
    }
  }
}

FailoverFigures FailoverTracker::figures(SimTime end) const {
  FailoverFigures f = done_;
  for (const auto& [tp, since] : leaderless_since_) {
    ++f.still_unavailable;
    f.max_unavailability = std::max(f.max_unavailability, end - since);
    f.unavailable_partition_s += to_seconds(end - since);
  }
  return f;
}

}  // namespace ksim::app
