#include "models/workloads/rpc_server.hpp"

#include <cassert>

#include "sim/core/simulation.hpp"

namespace ksim::models {

RpcServer::RpcServer(Simulation& sim, std::string name, HostId host, RpcServerOptions options)
    : Node(sim, std::move(name), host), options_(std::move(options)) {
  assert(options_.workers > 0);
}

void RpcServer::on_message(ConnectionId connection, MessagePtr message) {
  const auto* request = dynamic_cast<const RpcRequest*>(message.get());
  assert(request && "an RPC server only receives requests");
  ++stats_.received;
  queue_.push_back(Job{connection, request->request_id, request->response_bytes});
  start_next_job();
}

void RpcServer::start_next_job() {
  while (busy_workers_ < options_.workers && !queue_.empty()) {
    const Job job = queue_.front();
    queue_.pop_front();
    ++busy_workers_;
    set_timer(options_.service_time.sample(rng()), [this, job] { finish(job); });
  }
}

void RpcServer::finish(Job job) {
  --busy_workers_;
  auto response = std::make_unique<RpcResponse>();
  response->request_id = job.request_id;
  response->bytes = job.response_bytes;
  if (send(job.connection, std::move(response))) ++stats_.answered;
  start_next_job();
}

void RpcServer::on_crash(CrashKind) {
  stats_.lost_in_crash += queue_.size() + static_cast<std::uint64_t>(busy_workers_);
  queue_.clear();
  busy_workers_ = 0;
}

}  // namespace ksim::models
