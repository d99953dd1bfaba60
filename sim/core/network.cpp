#include "sim/core/network.hpp"

#include <algorithm>
#include <cassert>

#include "sim/core/simulation.hpp"

namespace ksim {

Network::Network(Simulation& sim, Topology& topology, NetworkOptions options)
    : sim_(sim), topology_(topology), options_(std::move(options)), faults_(topology),
      rng_(sim.stream("network")) {}

ConnectionId Network::connect(NodeId client, NodeId server) {
  const auto id = static_cast<ConnectionId>(connections_.size());
  Connection& c = connections_.emplace_back();
  c.directions[0].from = client;
  c.directions[0].to = server;
  c.directions[1].from = server;
  c.directions[1].to = client;
  ++stats_.connections_opened;
  sim_.trace().record(sim_.now(), sim_.node(client).name(), "net.connect",
                      {{"conn", id}, {"peer", sim_.node(server).name()}});
  // Connection refused: nothing listens on a crashed node.
  if (sim_.node(server).state() == NodeState::Crashed) reset(id, "refused", server);
  return id;
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
    for (const Direction& d : c.directions) s.messages_in_flight += d.in_flight.size() + d.held.size();
  }
  return s;
}

bool Network::send(ConnectionId id, NodeId from, MessagePtr message) {
  Connection& c = connections_[id];
  ++stats_.messages_sent;
  stats_.bytes_sent += message->size_bytes();
  if (!c.open) {
    ++stats_.messages_dropped;
    return false;
  }
  const int direction = direction_of(c, from);
  Direction& d = c.directions[direction];
  if (!d.held.empty() || faults_.is_cut(d.from, d.to)) {
    hold(id, direction, std::move(message));
  } else {
    transmit(id, direction, std::move(message));
  }
  return true;
}

// The message enters each link of the route in turn. It is pipelined like a
// stream of packets: it may start on the next link once its first bytes have
// crossed the previous one, but cannot finish there before it finished here.
SimTime Network::arrival_time(const Direction& d, std::uint64_t size_bytes) {
  const SimTime now = sim_.now();
  const HostId from = sim_.node(d.from).host();
  const HostId to = sim_.node(d.to).host();
  SimTime arrival;
  if (from == to) {
    arrival = now + options_.loopback_latency;
  } else {
    SimTime head = now;    // when the first byte may enter the next link
    SimTime tail = now;    // when the last byte has left the previous link
    for (const LinkId l : topology_.route(from, to)) {
      Link& link = topology_.link(l);
      const SimTime transmission = link.transmission_time(size_bytes);
      const SimTime start = std::max(head, link.free_at);
      const SimTime finish = std::max(start + transmission, tail);
      link.free_at = finish;
      link.busy_ns += transmission;
      link.bytes_carried += size_bytes;
      head = start + link.spec.latency;
      tail = finish + link.spec.latency;
    }
    arrival = tail;
  }
  const Distribution* burst = faults_.jitter_override(d.from, d.to);
  const Distribution& jitter = burst ? *burst : options_.jitter;
  if (!jitter.is_zero()) arrival += jitter.sample(rng_);
  arrival += faults_.extra_latency(d.from, d.to);
  return std::max(arrival, d.last_arrival);  // TCP: in order within a connection
}

void Network::transmit(ConnectionId id, int direction, MessagePtr message) {
  Connection& c = connections_[id];
  Direction& d = c.directions[direction];
  const SimTime arrival = arrival_time(d, message->size_bytes());
  d.last_arrival = arrival;
  d.in_flight.push_back(std::move(message));
  sim_.events().schedule_at(arrival, [this, id, direction, epoch = d.epoch] { on_arrival(id, direction, epoch); });
}

void Network::on_arrival(ConnectionId id, int direction, std::uint32_t epoch) {
  Connection& c = connections_[id];
  Direction& d = c.directions[direction];
  if (d.epoch != epoch) return;  // the connection was reset; the message went with it
  assert(!d.in_flight.empty());
  MessagePtr message = d.in_flight.pop_front();
  if (!d.held.empty() || faults_.is_cut(d.from, d.to)) {
    hold(id, direction, std::move(message));
    return;
  }
  ++stats_.messages_delivered;
  sim_.node(d.to).deliver_message(id, std::move(message));
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
      if (d.held.empty() || faults_.is_cut(d.from, d.to)) continue;
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
  for (Direction& d : c.directions) {
    ++d.epoch;
    stats_.messages_dropped += d.in_flight.size() + d.held.size();
    d.in_flight.clear();
    d.held.clear();
    d.held_since = kNever;
  }
  const NodeId a = c.directions[0].from;
  const NodeId b = c.directions[0].to;
  sim_.trace().record(sim_.now(), sim_.node(a).name(), "net.reset",
                      {{"conn", id}, {"peer", sim_.node(b).name()}, {"reason", reason}});
  const SimTime delay = topology_.propagation_latency(sim_.node(a).host(), sim_.node(b).host());
  for (const NodeId n : {a, b}) {
    if (n == notify_except) continue;
    sim_.events().schedule_after(delay, [this, id, n] { sim_.node(n).deliver_connection_closed(id); });
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
  for (int direction = 0; direction < 2; ++direction) {
    Direction& d = c.directions[direction];
    stats_.messages_dropped += d.held.size() + (direction == out ? 0 : d.in_flight.size());
    d.held.clear();
    d.held_since = kNever;
    if (direction == out) continue;
    ++d.epoch;
    d.in_flight.clear();
  }
  const Direction& sent = c.directions[out];
  const NodeId peer = sent.to;
  sim_.trace().record(sim_.now(), sim_.node(by).name(), "net.reset",
                      {{"conn", id}, {"peer", sim_.node(peer).name()}, {"reason", "closed"}});
  const SimTime delay = topology_.propagation_latency(sim_.node(by).host(), sim_.node(peer).host());
  const SimTime notify_at = std::max(sim_.now() + delay, sent.in_flight.empty() ? SimTime{0} : sent.last_arrival);
  sim_.events().schedule_at(notify_at, [this, id, peer] { sim_.node(peer).deliver_connection_closed(id); });
}

void Network::reset_connections_of(NodeId node) {
  for (ConnectionId id = 0; id < connections_.size(); ++id) {
    const Connection& c = connections_[id];
    if (c.open && (c.directions[0].from == node || c.directions[0].to == node)) reset(id, "crash", node);
  }
}

}  // namespace ksim
