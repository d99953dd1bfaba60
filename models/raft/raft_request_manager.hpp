#pragma once
// One request at a time to each remote replica, as Kafka's RequestManager
// keeps it: a destination is ready, awaiting the response to one correlation
// id (until controller.quorum.request.timeout.ms passes, when it is ready
// again), or backing off (controller.quorum.retry.backoff.ms) after a failed
// one. Only the response to the latest request sent is expected; others are
// ignored. Transitions between roles reset every destination
// (KafkaRaftClient.resetConnections).
#include <cstdint>
#include <map>

#include "models/raft/raft_record.hpp"
#include "sim/events/time.hpp"

namespace ksim::models {

class RaftRequestManager {
 public:
  RaftRequestManager(SimTime request_timeout, SimTime retry_backoff)
      : request_timeout_(request_timeout), retry_backoff_(retry_backoff) {}

  bool is_ready(RaftNodeId destination, SimTime now) const { return ready_at(destination) <= now; }
  // When a request may next be sent to `destination` (0: it is ready now).
  SimTime ready_at(RaftNodeId destination) const;
  // A request is in flight to `destination` and has not timed out.
  bool awaiting(RaftNodeId destination, SimTime now) const;
  bool any_awaiting(SimTime now) const;
  // A request to `destination` went unanswered for the request timeout.
  bool timed_out(RaftNodeId destination, SimTime now) const;
  // `destination` failed a request less than the retry backoff ago.
  bool backing_off(RaftNodeId destination, SimTime now) const;

  void on_sent(RaftNodeId destination, std::int64_t correlation_id, SimTime now);
  bool is_response_expected(RaftNodeId destination, std::int64_t correlation_id) const;
  // The expected response was handled: ready again on success, backing off on failure.
  void on_response(RaftNodeId destination, std::int64_t correlation_id, bool success, SimTime now);
  // The connection failed with a request in flight (KafkaNetworkChannel's error response).
  void on_disconnected(RaftNodeId destination, SimTime now);

  void reset(RaftNodeId destination) { connections_.erase(destination); }
  void reset_all() { connections_.clear(); }

 private:
  enum class State { AwaitingResponse, BackingOff };
  struct Connection {
    State state = State::AwaitingResponse;
    SimTime last_send = 0;
    SimTime last_fail = 0;
    std::int64_t correlation_id = -1;  // in flight, or the last one sent
  };
  SimTime request_timeout_;
  SimTime retry_backoff_;
  std::map<RaftNodeId, Connection> connections_;  // ready destinations have none
};

}  // namespace ksim::models
