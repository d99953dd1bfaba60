#include "models/history/consumption_history.hpp"

#include <algorithm>

namespace ksim::models {

std::string_view to_string(ConsumerEventKind kind) {
  switch (kind) {
    case ConsumerEventKind::Crashed: return "crashed";
    case ConsumerEventKind::Restarted: return "restarted";
    case ConsumerEventKind::PollTimeout: return "poll timeout";
    case ConsumerEventKind::LeftGroup: return "left the group";
    case ConsumerEventKind::Fenced: return "fenced";
    case ConsumerEventKind::RebalanceJoined: return "rebalance joined";
    case ConsumerEventKind::AssignmentSettled: return "assignment settled";
    case ConsumerEventKind::Stopped: return "stopped";
  }
  return "?";
}

std::string_view to_string(FencingCause cause) {
  switch (cause) {
    case FencingCause::MemberEpoch: return "member epoch";
    case FencingCause::RebalanceTimeout: return "rebalance timeout";
    case FencingCause::SessionTimeout: return "session timeout";
  }
  return "?";
}

std::string_view to_string(PositionResetCause cause) {
  switch (cause) {
    case PositionResetCause::NoCommittedOffset: return "no committed offset";
    case PositionResetCause::OffsetOutOfRange: return "offset out of range";
    case PositionResetCause::UnknownLeaderEpoch: return "the committed offset's leader epoch unknown to the leader";
  }
  return "?";
}

namespace {
RebalanceRecord* open_rebalance(std::vector<RebalanceRecord>& rebalances, const std::string& group) {
  const auto it = std::find_if(rebalances.rbegin(), rebalances.rend(),
                               [&](const RebalanceRecord& r) { return r.group == group; });
  return it != rebalances.rend() && it->completed == kNever ? &*it : nullptr;
}
}  // namespace

void ConsumptionHistory::rebalance_started(const std::string& group, const std::string& trigger, SimTime at) {
  if (open_rebalance(rebalances, group)) return;
  RebalanceRecord record;
  record.group = group;
  record.trigger = trigger;
  record.started = at;
  rebalances.push_back(std::move(record));
}

void ConsumptionHistory::rebalance_completed(const std::string& group, std::int32_t generation, std::int32_t members,
                                             std::int32_t partitions_moved, const std::string& protocol, SimTime at) {
  RebalanceRecord* r = open_rebalance(rebalances, group);
  if (!r) {
    rebalance_started(group, "coordinator failover", at);
    r = &rebalances.back();
  }
  r->completed = at;
  r->generation = generation;
  r->members = members;
  r->partitions_moved = partitions_moved;
  r->protocol = protocol;
}

}  // namespace ksim::models
