#pragma once
// The connections a node hosting a RaftReplica keeps to the other replicas
// (the host's side of KafkaRaftClient's NetworkChannel): a request goes on
// the host's own connection to the replica, opened when first needed; a
// response goes back on the connection its request came on. The host opens
// connections and sends; this keeps the maps, and says which replica a
// closed connection served so that the replica can be told
// (RaftReplica::on_disconnected).
#include <map>
#include <optional>
#include <utility>

#include "models/protocol/api_message.hpp"
#include "models/raft/raft_messages.hpp"
#include "sim/network/message.hpp"

namespace ksim::models {

class RaftConnections {
 public:
  // A Raft message arrived on `connection`: a request's response goes back there.
  void received(ConnectionId connection, const Message& message) {
    if (api_message(message).is_response()) return;
    const RaftNodeId source = raft_header(message).source;
    inbound_[source] = connection;
    peer_of_[connection] = source;
  }

  // Sends `message` to replica `to`: a response where its request came from
  // (dropped when that connection is gone: Raft retries), a request on the
  // connection to `to`, which `connect()` opens when there is none.
  template <class Connect, class Send>
  void send(RaftNodeId to, MessagePtr message, Connect connect, Send send) {
    if (api_message(*message).is_response()) {
      if (const auto it = inbound_.find(to); it != inbound_.end()) send(it->second, std::move(message));
      return;
    }
    auto it = outbound_.find(to);
    if (it == outbound_.end()) {
      const ConnectionId connection = connect(to);
      it = outbound_.emplace(to, connection).first;
      peer_of_[connection] = to;
    }
    send(it->second, std::move(message));
  }

  // `connection` closed: the replica it served (forgotten), if it served one.
  std::optional<RaftNodeId> closed(ConnectionId connection) {
    const auto peer = peer_of_.find(connection);
    if (peer == peer_of_.end()) return std::nullopt;
    const RaftNodeId id = peer->second;
    peer_of_.erase(peer);
    if (const auto it = outbound_.find(id); it != outbound_.end() && it->second == connection) outbound_.erase(it);
    if (const auto it = inbound_.find(id); it != inbound_.end() && it->second == connection) inbound_.erase(it);
    return id;
  }

  // The host crashed: its connections are gone.
  void clear() {
    outbound_.clear();
    inbound_.clear();
    peer_of_.clear();
  }

 private:
  std::map<RaftNodeId, ConnectionId> outbound_;  // requests go here
  std::map<RaftNodeId, ConnectionId> inbound_;   // responses go back where the last request came from
  std::map<ConnectionId, RaftNodeId> peer_of_;
};

}  // namespace ksim::models
