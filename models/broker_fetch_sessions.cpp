// The leader's side of KIP-227 fetch sessions (fetch_session.hpp): one per
// follower connection, started again by every full request, and the
// caught-up times owed to the partitions its fetches skipped.
#include <algorithm>

#include "models/broker.hpp"

namespace ksim::models {

FetchSession& Broker::session_for(ConnectionId connection, const FetchRequest& request) {
  FetchSession& session = fetch_sessions_[connection];
  const bool same_list = request.incremental && session.follower() == request.replica_id &&
                         session.size() == request.partitions.size();
  if (same_list) {
    for (const std::uint32_t slot : request.changed) session.follower_changed(slot);
    return session;
  }
  for (std::size_t slot = 0; slot < session.size(); ++slot) {
    if (session.owes_catch_up(slot)) catch_up(session, slot);
  }
  std::vector<std::int32_t> partitions;
  partitions.reserve(request.partitions.size());
  for (const auto& p : request.partitions) partitions.push_back(global_index(p.partition));
  session.reset(request.replica_id, std::move(partitions), partition_changes_.size());
  return session;
}

// The session a parked request was read with, if it is still that request's.
FetchSession* Broker::existing_session(ConnectionId connection, const FetchRequest& request) {
  if (request.replica_id == kNoBroker) return nullptr;
  const auto it = fetch_sessions_.find(connection);
  if (it == fetch_sessions_.end() || it->second.size() != request.partitions.size()) return nullptr;
  return &it->second;
}

void Broker::close_session(ConnectionId connection) {
  const auto it = fetch_sessions_.find(connection);
  if (it == fetch_sessions_.end()) return;
  for (std::size_t slot = 0; slot < it->second.size(); ++slot) {
    if (it->second.owes_catch_up(slot)) catch_up(it->second, slot);
  }
  fetch_sessions_.erase(it);
}

// The fetches that skipped a quiet partition found the follower at the
// leader's end each time: the last of them is its caught-up time.
void Broker::catch_up(const FetchSession& session, std::size_t slot) {
  Replica* r = replica_index_[static_cast<std::size_t>(session.partition(slot))];
  if (!r) return;
  if (FollowerState* f = r->follower(session.follower())) {
    f->last_caught_up = std::max(f->last_caught_up, session.last_fetch());
    f->last_fetch = std::max(f->last_fetch, session.last_fetch());
  }
}

void Broker::catch_up_all_sessions() {
  for (const auto& [connection, session] : fetch_sessions_) {
    for (std::size_t slot = 0; slot < session.size(); ++slot) {
      if (session.owes_catch_up(slot)) catch_up(session, slot);
    }
  }
}

}  // namespace ksim::models
