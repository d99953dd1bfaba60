#include "models/raft/raft_request_manager.hpp"

namespace ksim::models {

SimTime RaftRequestManager::ready_at(RaftNodeId destination) const {
  const auto it = connections_.find(destination);
  if (it == connections_.end()) return 0;
  const Connection& c = it->second;
  return c.state == State::AwaitingResponse ? c.last_send + request_timeout_ : c.last_fail + retry_backoff_;
}

bool RaftRequestManager::awaiting(RaftNodeId destination, SimTime now) const {
  const auto it = connections_.find(destination);
  return it != connections_.end() && it->second.state == State::AwaitingResponse &&
         now < it->second.last_send + request_timeout_;
}

bool RaftRequestManager::any_awaiting(SimTime now) const {
  for (const auto& [destination, c] : connections_) {
    if (awaiting(destination, now)) return true;
  }
  return false;
}

bool RaftRequestManager::timed_out(RaftNodeId destination, SimTime now) const {
  const auto it = connections_.find(destination);
  return it != connections_.end() && it->second.state == State::AwaitingResponse &&
         now >= it->second.last_send + request_timeout_;
}

bool RaftRequestManager::backing_off(RaftNodeId destination, SimTime now) const {
  const auto it = connections_.find(destination);
  return it != connections_.end() && it->second.state == State::BackingOff &&
         now < it->second.last_fail + retry_backoff_;
}

void RaftRequestManager::on_sent(RaftNodeId destination, std::int64_t correlation_id, SimTime now) {
  Connection& c = connections_[destination];
  c.state = State::AwaitingResponse;
  c.last_send = now;
  c.correlation_id = correlation_id;
}

// ConnectionState.isResponseExpected: a timed-out request's response is still
// expected until another is sent.
bool RaftRequestManager::is_response_expected(RaftNodeId destination, std::int64_t correlation_id) const {
  const auto it = connections_.find(destination);
  return it != connections_.end() && it->second.state == State::AwaitingResponse &&
         it->second.correlation_id == correlation_id;
}

void RaftRequestManager::on_response(RaftNodeId destination, std::int64_t correlation_id, bool success,
                                     SimTime now) {
  if (!is_response_expected(destination, correlation_id)) return;
  if (success) {
    connections_.erase(destination);
    return;
  }
  Connection& c = connections_[destination];
  c.state = State::BackingOff;
  c.last_fail = now;
}

void RaftRequestManager::on_disconnected(RaftNodeId destination, SimTime now) {
  const auto it = connections_.find(destination);
  if (it == connections_.end() || it->second.state != State::AwaitingResponse) return;
  it->second.state = State::BackingOff;
  it->second.last_fail = now;
}

}  // namespace ksim::models
