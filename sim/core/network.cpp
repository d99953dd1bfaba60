#include "sim/core/network.hpp"

#include <algorithm>
#include <cassert>

#include "sim/core/simulation.hpp"

namespace ksim {

Network::Network(Simulation& sim, Topology& topology, NetworkOptions options)
    : sim_(sim), topology_(topology), options_(std::move(options)), faults_(topology),
      sharing_(sim.events(), topology, [this](BandwidthSharing::FlowId flow) { on_transmitted(flow); }),
      rng_(sim.stream("network")) {}

ConnectionId Network::connect(NodeId client, NodeId server) {
  const auto id = static_cast<ConnectionId>(connections_.size());
  Connection& c = connections_.emplace_back();
  c.directions[0].from = client;
  c.directions[0].to = server;
  c.directions[1].from = server;
  c.directions[1].to = client;
  c.incarnations[0] = sim_.node(client).incarnation();
  c.connect_started = sim_.now();
  ++stats_.connections_opened;
  sim_.trace().record(sim_.now(), sim_.node(client).name(), "net.connect",
                      {{"conn", id}, {"peer", sim_.node(server).name()}});
  send_handshake(id);
  return id;
}

// The handshake's next segment (the client's SYN, or the server's answer) on
// its way, as data would go but without taking bandwidth. A cut does not stop
// it (a simplification, docs/engine.md): a connect across a cut succeeds and
// its data is held like any other.
void Network::send_handshake(ConnectionId id) {
  Connection& c = connections_[id];
  const Direction& d = c.directions[c.handshake == Handshake::SynSent ? 0 : 1];
  const HostId from = sim_.node(d.from).host();
  const HostId to = sim_.node(d.to).host();
  const SimTime latency = from == to ? options_.loopback_latency : topology_.propagation_latency(from, to);
  const SimTime at = sim_.now() + latency + fault_delay(d);
  sim_.events().schedule_at(at, [this, id, epoch = c.epoch] { on_handshake_arrival(id, epoch); });
}

void Network::on_handshake_arrival(ConnectionId id, std::uint32_t epoch) {
  Connection& c = connections_[id];
  if (c.epoch != epoch || !c.open) return;
  const Direction& d = c.directions[c.handshake == Handshake::SynSent ? 0 : 1];
  if (c.handshake == Handshake::SynAckSent) {
    establish(id);
    return;
  }
  if (sim_.node(d.to).powered_off()) {
    syn_unanswered(id);
    return;
  }
  // Connection refused: nothing listens on a crashed node; the reset goes back to the client.
  if (sim_.node(d.to).state() == NodeState::Crashed) {
    ++stats_.connections_refused;
    reset(id, "refused", d.to);
    return;
  }
  c.handshake = Handshake::SynAckSent;  // a paused process's kernel answers all the same
  c.incarnations[1] = sim_.node(d.to).incarnation();
  send_handshake(id);
}

// A SYN reached a machine that is off: no answer. The client's kernel sends
// it again after Linux's initial RTO of 1 s, doubling (tcp_syn_retries 6: 1,
// 3, 7, 15, 31 and 63 s after the connect), and the client gives up at its
// connect timeout (Node::connect_timeout: Kafka's
// socket.connection.setup.timeout.ms, KIP-601; else the kernel's 127 s).
void Network::syn_unanswered(ConnectionId id) {
  Connection& c = connections_[id];
  const SimTime timeout = c.connect_started + sim_.node(c.directions[0].from).connect_timeout();
  if (c.syn_retransmits == 0) {
    sim_.events().schedule_at(std::max(timeout, sim_.now()), [this, id, epoch = c.epoch] {
      const Connection& now = connections_[id];
      if (now.epoch == epoch && now.open && now.handshake != Handshake::Established) {
        reset(id, "connect timeout", now.directions[0].to);
      }
    });
  }
  constexpr int kSynRetries = 6;
  if (++c.syn_retransmits > kSynRetries) return;
  const SimTime retransmit = c.connect_started + seconds((std::int64_t{1} << c.syn_retransmits) - 1);
  if (retransmit >= timeout) return;
  sim_.events().schedule_at(std::max(retransmit, sim_.now()), [this, id, epoch = c.epoch] {
    const Connection& now = connections_[id];
    if (now.epoch == epoch && now.open && now.handshake == Handshake::SynSent) send_handshake(id);
  });
}

bool Network::unreachable(const Direction& d) const {
  return faults_.is_cut(d.from, d.to) || sim_.node(d.to).powered_off();
}

// The receiving end runs a process that never had this connection (its
// machine lost power and came back): its kernel answers with a reset.
bool Network::receiver_gone(const Connection& c, int direction) const {
  const Node& to = sim_.node(c.directions[direction].to);
  return c.handshake == Handshake::Established && to.state() != NodeState::Crashed &&
         to.incarnation() != c.incarnations[direction == 0 ? 1 : 0];
}

// The client hears the server's answer: what it sent meanwhile goes out,
// then the client learns the connection is established.
void Network::establish(ConnectionId id) {
  Connection& c = connections_[id];
  c.handshake = Handshake::Established;
  for (int direction = 0; direction < 2; ++direction) {
    RingQueue<MessagePtr> waiting;
    std::swap(waiting, c.directions[direction].before_established);
    while (!waiting.empty()) dispatch(id, direction, waiting.pop_front());
  }
  sim_.node(c.directions[0].from).deliver_connected(id);
}

NodeId Network::peer_of(ConnectionId connection, NodeId self) const {
  const Connection& c = connections_[connection];
  return c.directions[0].from == self ? c.directions[0].to : c.directions[0].from;
}

int Network::direction_of(const Connection& c, NodeId from) const {
  assert(c.directions[0].from == from || c.directions[1].from == from);
  return c.directions[0].from == from ? 0 : 1;
}

NetworkStats Network::stats() const {
  NetworkStats s = stats_;
  for (const Connection& c : connections_) {
    for (const Direction& d : c.directions) {
      s.messages_in_flight += d.before_established.size() + d.sending.size() + d.in_flight.size() + d.held.size();
    }
  }
  return s;
}

bool Network::send(ConnectionId id, NodeId from, MessagePtr message) {
  Connection& c = connections_[id];
  ++stats_.messages_sent;
  stats_.bytes_sent += message->size_bytes();
  for (const MessageObserver& observer : message_observers_) observer(*message, from, peer_of(id, from), false);
  if (!c.open) {
    ++stats_.messages_dropped;
    return false;
  }
  const int direction = direction_of(c, from);
  Direction& d = c.directions[direction];
  d.bytes_sent += message->size_bytes();
  if (c.handshake != Handshake::Established) {
    d.before_established.push_back(std::move(message));
  } else {
    dispatch(id, direction, std::move(message));
  }
  return true;
}

void Network::dispatch(ConnectionId id, int direction, MessagePtr message) {
  const Direction& d = connections_[id].directions[direction];
  if (!d.held.empty() || unreachable(d)) {
    hold(id, direction, std::move(message));
  } else {
    transmit(id, direction, std::move(message));
  }
}

std::optional<Network::TrackedSend> Network::send_tracked(ConnectionId id, NodeId from, MessagePtr message,
                                                          std::uint64_t send_buffer_bytes) {
  if (!send(id, from, std::move(message))) return std::nullopt;
  Direction& d = connections_[id].directions[direction_of(connections_[id], from)];
  const TrackedSend sent{d.bytes_sent, d.bytes_sent - d.bytes_delivered <= send_buffer_bytes};
  if (!sent.written) d.unwritten.push_back({sent.position, send_buffer_bytes});
  return sent;
}

// Delivered bytes leave the sender's socket buffer: the tracked sends that now fit are written.
void Network::delivered(ConnectionId id, int direction, std::uint64_t bytes) {
  Direction& d = connections_[id].directions[direction];
  d.bytes_delivered += bytes;
  while (!d.unwritten.empty() && d.unwritten.front().first - d.bytes_delivered <= d.unwritten.front().second) {
    const std::uint64_t position = d.unwritten.pop_front().first;
    sim_.node(d.from).deliver_written(id, position);
  }
}

// A message goes on the wire once the connection's earlier ones are sent;
// on one host it skips the links.
void Network::transmit(ConnectionId id, int direction, MessagePtr message) {
  Direction& d = connections_[id].directions[direction];
  if (sim_.node(d.from).host() == sim_.node(d.to).host()) {
    schedule_arrival(id, direction, std::move(message), sim_.now() + options_.loopback_latency);
    return;
  }
  d.sending.push_back(std::move(message));
  if (d.sending.size() == 1) send_next(id, direction);
}

void Network::send_next(ConnectionId id, int direction) {
  Direction& d = connections_[id].directions[direction];
  const std::uint64_t bytes = d.sending.front()->size_bytes();
  const std::vector<LinkId>& route = topology_.route(sim_.node(d.from).host(), sim_.node(d.to).host());
  for (const LinkId l : route) {
    Link& link = topology_.link(l);
    link.busy_ns += link.transmission_time(bytes);
    link.bytes_carried += bytes;
  }
  sharing_.start(flow_of(id, direction), route, bytes);
}

// The message's last byte has left: it arrives after the route's latency.
void Network::on_transmitted(BandwidthSharing::FlowId flow) {
  const ConnectionId id = flow / 2;
  const int direction = static_cast<int>(flow % 2);
  Direction& d = connections_[id].directions[direction];
  MessagePtr message = d.sending.pop_front();
  const SimTime latency = topology_.propagation_latency(sim_.node(d.from).host(), sim_.node(d.to).host());
  schedule_arrival(id, direction, std::move(message), sim_.now() + latency);
  if (!d.sending.empty()) {
    send_next(id, direction);
  } else if (d.notify_close) {
    notify_closed(id, direction);
  }
}

void Network::schedule_arrival(ConnectionId id, int direction, MessagePtr message, SimTime at) {
  Direction& d = connections_[id].directions[direction];
  at += fault_delay(d);
  at = std::max(at, d.last_arrival);  // TCP: in order within a connection
  d.last_arrival = at;
  d.in_flight.push_back(std::move(message));
  sim_.events().schedule_at(at, [this, id, direction, epoch = d.epoch] { on_arrival(id, direction, epoch); });
}

// Jitter (a burst's, or the network's) and a latency spike's extra delay.
SimTime Network::fault_delay(const Direction& d) {
  const Distribution* burst = faults_.jitter_override(d.from, d.to);
  const Distribution& jitter = burst ? *burst : options_.jitter;
  SimTime delay = jitter.is_zero() ? 0 : jitter.sample(rng_);
  return delay + faults_.extra_latency(d.from, d.to);
}

void Network::drop_unsent(ConnectionId id, int direction) {
  Direction& d = connections_[id].directions[direction];
  stats_.messages_dropped += d.sending.size();
  d.sending.clear();
  d.notify_close = false;
  sharing_.cancel(flow_of(id, direction));
}

void Network::on_arrival(ConnectionId id, int direction, std::uint32_t epoch) {
  Connection& c = connections_[id];
  Direction& d = c.directions[direction];
  if (d.epoch != epoch) return;  // the connection was reset; the message went with it
  assert(!d.in_flight.empty());
  MessagePtr message = d.in_flight.pop_front();
  if (!d.held.empty() || unreachable(d)) {
    hold(id, direction, std::move(message));
    return;
  }
  if (receiver_gone(c, direction)) {
    ++stats_.messages_dropped;
    reset(id, "reset by peer", d.to);
    return;
  }
  ++stats_.messages_delivered;
  const std::uint64_t bytes = message->size_bytes();
  for (const MessageObserver& observer : message_observers_) observer(*message, d.from, d.to, true);
  sim_.node(d.to).deliver_message(id, std::move(message));
  delivered(id, direction, bytes);
}

void Network::hold(ConnectionId id, int direction, MessagePtr message) {
  Connection& c = connections_[id];
  Direction& d = c.directions[direction];
  ++stats_.messages_held;
  d.held.push_back(std::move(message));
  if (d.held_since != kNever) return;
  d.held_since = sim_.now();
  sim_.events().schedule_after(options_.connection_reset_timeout,
                               [this, id, direction, epoch = c.epoch] { check_reset(id, direction, epoch); });
}

void Network::check_reset(ConnectionId id, int direction, std::uint32_t epoch) {
  Connection& c = connections_[id];
  if (c.epoch != epoch || !c.open) return;
  const Direction& d = c.directions[direction];
  if (d.held_since == kNever || d.held_since + options_.connection_reset_timeout > sim_.now()) return;
  reset(id, "timeout", NodeId(-1));
}

void Network::release_held_messages() {
  for (ConnectionId id = 0; id < connections_.size(); ++id) {
    Connection& c = connections_[id];
    if (!c.open) continue;
    for (int direction = 0; direction < 2; ++direction) {
      Direction& d = c.directions[direction];
      if (d.held.empty() || unreachable(d)) continue;
      RingQueue<MessagePtr> held;
      std::swap(held, d.held);
      d.held_since = kNever;
      while (!held.empty()) transmit(id, direction, held.pop_front());
    }
  }
}

// Both ends learn of the reset after the path's propagation latency, except
// `notify_except` (the node that caused it, if any).
void Network::reset(ConnectionId id, std::string_view reason, NodeId notify_except) {
  Connection& c = connections_[id];
  if (!c.open) return;
  c.open = false;
  ++c.epoch;
  ++stats_.connections_reset;
  drop_before_established(c);
  // What the node that caused the reset had already put on the wire still
  // arrives (a crashed sender does not recall its packets), before its peer
  // learns of the reset; everything else is dropped.
  SimTime last_sent_arrival = 0;
  for (int direction = 0; direction < 2; ++direction) {
    drop_unsent(id, direction);
    Direction& d = c.directions[direction];
    if (d.from == notify_except && !d.in_flight.empty()) {
      last_sent_arrival = d.last_arrival;
    } else {
      ++d.epoch;
      stats_.messages_dropped += d.in_flight.size();
      d.in_flight.clear();
    }
    stats_.messages_dropped += d.held.size();
    d.held.clear();
    d.held_since = kNever;
    d.unwritten.clear();  // never written: the writer learns of the reset instead
  }
  const NodeId a = c.directions[0].from;
  const NodeId b = c.directions[0].to;
  sim_.trace().record(sim_.now(), sim_.node(a).name(), "net.reset",
                      {{"conn", id}, {"peer", sim_.node(b).name()}, {"reason", reason}});
  const SimTime delay = topology_.propagation_latency(sim_.node(a).host(), sim_.node(b).host());
  const SimTime notify_at = std::max(sim_.now() + delay, last_sent_arrival);
  for (int end = 0; end < 2; ++end) {
    const NodeId n = end == 0 ? a : b;
    if (n == notify_except || (n == b && c.handshake != Handshake::Established)) continue;  // b never accepted it
    if (sim_.node(n).incarnation() != c.incarnations[end]) continue;  // its process is gone: nobody to tell
    sim_.events().schedule_at(notify_at, [this, id, n] { sim_.node(n).deliver_connection_closed(id); });
  }
}

// A close by one end (a FIN): what that end already sent is still delivered,
// then the other end learns of the close; what comes back is dropped.
void Network::close(ConnectionId id, NodeId by) {
  Connection& c = connections_[id];
  if (!c.open) return;
  c.open = false;
  ++c.epoch;
  ++stats_.connections_reset;
  const int out = direction_of(c, by);
  drop_before_established(c);
  for (int direction = 0; direction < 2; ++direction) {
    Direction& d = c.directions[direction];
    stats_.messages_dropped += d.held.size() + (direction == out ? 0 : d.in_flight.size());
    d.held.clear();
    d.held_since = kNever;
    if (direction == out) continue;
    drop_unsent(id, direction);
    ++d.epoch;
    d.in_flight.clear();
  }
  Direction& sent = c.directions[out];
  sim_.trace().record(sim_.now(), sim_.node(by).name(), "net.reset",
                      {{"conn", id}, {"peer", sim_.node(sent.to).name()}, {"reason", "closed"}});
  if (c.handshake != Handshake::Established) return;  // the server never accepted it: nobody to tell
  if (sent.sending.empty()) {
    notify_closed(id, out);
  } else {
    sent.notify_close = true;  // after what is still being sent
  }
}

void Network::drop_before_established(Connection& c) {
  for (Direction& d : c.directions) {
    stats_.messages_dropped += d.before_established.size();
    d.before_established.clear();
  }
}

// The FIN follows what `direction`'s sender sent before closing.
void Network::notify_closed(ConnectionId id, int direction) {
  Direction& d = connections_[id].directions[direction];
  d.notify_close = false;
  const NodeId peer = d.to;
  const SimTime delay = topology_.propagation_latency(sim_.node(d.from).host(), sim_.node(peer).host());
  const SimTime notify_at = std::max(sim_.now() + delay, d.in_flight.empty() ? SimTime{0} : d.last_arrival);
  sim_.events().schedule_at(notify_at, [this, id, peer] { sim_.node(peer).deliver_connection_closed(id); });
}

void Network::orphan_connections_of(NodeId node) {
  for (ConnectionId id = 0; id < connections_.size(); ++id) {
    Connection& c = connections_[id];
    if (!c.open || (c.directions[0].from != node && c.directions[0].to != node)) continue;
    if (c.handshake != Handshake::Established) {
      // A connect of its own: the server never accepted it. One to it: its
      // answer to the SYN, if on its way, still arrives.
      if (c.directions[0].from == node) reset(id, "crash", node);
      continue;
    }
    const int out = direction_of(c, node);
    Direction& d = c.directions[out];
    drop_unsent(id, out);
    stats_.messages_dropped += d.held.size();
    d.held.clear();
    d.held_since = kNever;
    d.unwritten.clear();
    sim_.trace().record(sim_.now(), sim_.node(node).name(), "net.orphan",
                        {{"conn", id}, {"peer", sim_.node(d.to).name()}});
  }
}

void Network::reset_connections_of(NodeId node, SimTime after) {
  std::vector<ConnectionId> open;
  for (ConnectionId id = 0; id < connections_.size(); ++id) {
    const Connection& c = connections_[id];
    if (c.open && (c.directions[0].from == node || c.directions[0].to == node)) open.push_back(id);
  }
  if (after == 0) {
    for (const ConnectionId id : open) reset(id, "crash", node);
    return;
  }
  sim_.events().schedule_after(after, [this, node, open = std::move(open)] {
    for (const ConnectionId id : open) reset(id, "crash", node);  // reset() skips those closed since
  });
}

}  // namespace ksim
