// The leader's side of KIP-227 fetch sessions (fetch_session.hpp): one per
// connection that fetches, and the caught-up times owed to the partitions
// a follower's fetches skipped.
#include <algorithm>

#include "models/broker/broker.hpp"

namespace ksim::models {

FetchSession& Broker::session_for(ConnectionId connection, const FetchRequest& request) {
  auto it = fetch_sessions_.find(connection);
  if (it == fetch_sessions_.end() || it->second.fetcher() != request.replica_id) {
    if (it != fetch_sessions_.end()) close_session(connection);
    it = fetch_sessions_.emplace(connection, FetchSession(request.replica_id, partition_changes_.size())).first;
  }
  FetchSession& session = it->second;
  if (request.replica_id != kNoBroker && !request.same_partitions) {
    catch_up_all(session);  // a new list of partitions: what was quiet is read again
    session.forget();
  }
  return session;
}

FetchSession* Broker::existing_session(ConnectionId connection, const FetchRequest& request) {
  const auto it = fetch_sessions_.find(connection);
  if (it == fetch_sessions_.end() || it->second.fetcher() != request.replica_id) return nullptr;
  return &it->second;
}

void Broker::close_session(ConnectionId connection) {
  const auto it = fetch_sessions_.find(connection);
  if (it == fetch_sessions_.end()) return;
  catch_up_all(it->second);
  fetch_sessions_.erase(it);
}

// The fetches that skipped a quiet partition found the follower at the
// leader's end each time: the last of them is its caught-up time.
void Broker::catch_up(const FetchSession& session, std::int32_t partition) {
  Replica* r = replica_index_[static_cast<std::size_t>(partition)];
  if (!r || session.fetcher() == kNoBroker) return;
  r->catch_up_follower(session.fetcher(), session.last_fetch());
}

void Broker::catch_up_all(const FetchSession& session) {
  if (session.fetcher() == kNoBroker) return;
  for (std::int32_t p = 0; p < session.partition_count(); ++p) {
    if (session.owes_catch_up(p)) catch_up(session, p);
  }
}

void Broker::catch_up_all_sessions() {
  for (const auto& [connection, session] : fetch_sessions_) catch_up_all(session);
}

}  // namespace ksim::models
