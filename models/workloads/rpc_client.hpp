#pragma once
// An open-loop client: requests arrive as a Poisson process and go to the
// servers in turn, one connection per server. Like Kafka's NetworkClient, a
// request that times out closes its connection (failing everything else in
// flight on it), and a closed connection is re-opened after a backoff.
#include <map>
#include <vector>

#include "models/workloads/rpc_messages.hpp"
#include "sim/observe/histogram.hpp"
#include "sim/core/node.hpp"

namespace ksim::models {

struct RpcClientOptions {
  double rate_per_s = 1000;
  std::uint64_t request_bytes = 1024;
  std::uint64_t response_bytes = 1024;
  SimTime request_timeout = seconds(30);       // as request.timeout.ms
  SimTime reconnect_backoff = milliseconds(50);  // as reconnect.backoff.ms
  SimTime stop_at = kNever;                    // no new requests from then on
  std::vector<NodeId> servers;
};

struct RpcClientStats {
  std::uint64_t sent = 0;
  std::uint64_t completed = 0;
  std::uint64_t timed_out = 0;
  std::uint64_t failed = 0;       // their connection closed under them
  std::uint64_t not_sent = 0;     // no usable connection (backing off after a close)
  std::uint64_t lost_in_crash = 0;
  Histogram latency;
};

class RpcClient final : public Node {
 public:
  RpcClient(Simulation& sim, std::string name, HostId host, RpcClientOptions options);
  const RpcClientStats& stats() const { return stats_; }
  std::size_t outstanding() const { return outstanding_.size(); }

 private:
  struct Outstanding {
    ConnectionId connection;
    SimTime sent_at;
    TimerId timeout;
  };
  struct ServerLink {
    NodeId server;
    ConnectionId connection = 0;
    bool connected = false;
    SimTime retry_at = 0;
  };

  void on_start() override;
  void on_crash(CrashKind kind) override;
  void on_message(ConnectionId connection, MessagePtr message) override;
  void on_connection_closed(ConnectionId connection) override;

  void schedule_next_request();
  void send_request();
  void on_timeout(std::uint64_t request_id);
  void disconnect(ServerLink& link);
  ServerLink* link_of(ConnectionId connection);

  RpcClientOptions options_;
  RpcClientStats stats_;
  std::vector<ServerLink> links_;
  std::map<std::uint64_t, Outstanding> outstanding_;  // ordered: deterministic iteration
  std::uint64_t next_request_id_ = 0;
  std::size_t next_server_ = 0;
};

}  // namespace ksim::models
