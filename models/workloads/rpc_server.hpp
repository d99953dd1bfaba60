#pragma once
// A server that answers each request after a service time drawn from a
// distribution, with a fixed number of workers and a FIFO queue.
#include <deque>

#include "models/workloads/rpc_messages.hpp"
#include "sim/random/distribution.hpp"
#include "sim/core/node.hpp"

namespace ksim::models {

struct RpcServerOptions {
  Distribution service_time = Distribution::exponential(microseconds(200));
  int workers = 4;
};

struct RpcServerStats {
  std::uint64_t received = 0;
  std::uint64_t answered = 0;
  std::uint64_t lost_in_crash = 0;  // queued or in service when the server crashed
};

class RpcServer final : public Node {
 public:
  RpcServer(Simulation& sim, std::string name, HostId host, RpcServerOptions options);
  const RpcServerStats& stats() const { return stats_; }

 private:
  struct Job {
    ConnectionId connection;
    std::uint64_t request_id;
    std::uint64_t response_bytes;
  };
  void on_message(ConnectionId connection, MessagePtr message) override;
  void on_crash(CrashKind kind) override;
  void start_next_job();
  void finish(Job job);

  RpcServerOptions options_;
  RpcServerStats stats_;
  std::deque<Job> queue_;
  int busy_workers_ = 0;
};

}  // namespace ksim::models
