#include "models/workloads/rpc_client.hpp"

#include <cassert>

#include "sim/core/simulation.hpp"

namespace ksim::models {

RpcClient::RpcClient(Simulation& sim, std::string name, HostId host, RpcClientOptions options)
    : Node(sim, std::move(name), host), options_(std::move(options)) {
  assert(options_.rate_per_s > 0 && !options_.servers.empty());
}

void RpcClient::on_start() {
  links_.clear();
  for (const NodeId server : options_.servers) links_.push_back(ServerLink{server});
  schedule_next_request();
}

void RpcClient::on_crash(CrashKind) {
  stats_.lost_in_crash += outstanding_.size();
  outstanding_.clear();
  links_.clear();
}

void RpcClient::schedule_next_request() {
  const auto gap = static_cast<SimTime>(rng().exponential(1e9 / options_.rate_per_s));
  if (now() + gap >= options_.stop_at) return;
  set_timer(gap, [this] {
    send_request();
    schedule_next_request();
  });
}

void RpcClient::send_request() {
  ServerLink& link = links_[next_server_++ % links_.size()];
  if (!link.connected) {
    if (now() < link.retry_at) {
      ++stats_.not_sent;
      return;
    }
    link.connection = connect(link.server);
    link.connected = true;
  }
  const std::uint64_t id = next_request_id_++;
  auto request = std::make_unique<RpcRequest>();
  request->request_id = id;
  request->bytes = options_.request_bytes;
  request->response_bytes = options_.response_bytes;
  if (!send(link.connection, std::move(request))) {
    ++stats_.not_sent;
    return;
  }
  ++stats_.sent;
  const TimerId timeout = set_timer(options_.request_timeout, [this, id] { on_timeout(id); });
  outstanding_.emplace(id, Outstanding{link.connection, now(), timeout});
}

void RpcClient::on_message(ConnectionId, MessagePtr message) {
  const auto* response = dynamic_cast<const RpcResponse*>(message.get());
  assert(response && "an RPC client only receives responses");
  const auto it = outstanding_.find(response->request_id);
  if (it == outstanding_.end()) return;  // already timed out or failed
  cancel_timer(it->second.timeout);
  stats_.latency.record(now() - it->second.sent_at);
  ++stats_.completed;
  outstanding_.erase(it);
}

void RpcClient::on_timeout(std::uint64_t request_id) {
  const auto it = outstanding_.find(request_id);
  if (it == outstanding_.end()) return;
  ++stats_.timed_out;
  const ConnectionId connection = it->second.connection;
  outstanding_.erase(it);
  sim().trace().record(now(), name(), "rpc.timeout", {{"request", request_id}});
  if (ServerLink* link = link_of(connection)) disconnect(*link);
}

void RpcClient::on_connection_closed(ConnectionId connection) {
  if (ServerLink* link = link_of(connection)) disconnect(*link);
}

// Fails everything in flight on the link's connection and backs off before reconnecting.
void RpcClient::disconnect(ServerLink& link) {
  if (!link.connected) return;
  link.connected = false;
  link.retry_at = now() + options_.reconnect_backoff;
  close(link.connection);
  for (auto it = outstanding_.begin(); it != outstanding_.end();) {
    if (it->second.connection == link.connection) {
      cancel_timer(it->second.timeout);
      ++stats_.failed;
      it = outstanding_.erase(it);
    } else {
      ++it;
    }
  }
}

RpcClient::ServerLink* RpcClient::link_of(ConnectionId connection) {
  for (ServerLink& link : links_) {
    if (link.connected && link.connection == connection) return &link;
  }
  return nullptr;
}

}  // namespace ksim::models
