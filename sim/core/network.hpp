#pragma once
// Connections between nodes, with the semantics of Kafka's TCP connections:
// a connection is established by a handshake (a SYN to the server and its
// answer back, along the route, under the same spikes and jitter as data;
// refused when nothing listens there); what its client sends before that
// waits for it, as in a socket's connect-then-write;
// messages on one connection are sent one after another and arrive in order;
// the connections with bytes to send share the links of their routes fairly
// (bandwidth_sharing.hpp), and a message arrives its route's propagation
// latency and a jitter draw after its last byte was sent. Faults cut, slow
// and delay traffic; see network_faults.hpp for their bookkeeping.
#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "sim/network/bandwidth_sharing.hpp"
#include "sim/random/distribution.hpp"
#include "sim/events/event_queue.hpp"
#include "sim/network/message.hpp"
#include "sim/network/network_faults.hpp"
#include "sim/random/random.hpp"
#include "sim/events/ring_queue.hpp"
#include "sim/network/topology.hpp"

namespace ksim {

class Simulation;

struct NetworkOptions {
  Distribution jitter = Distribution::constant(0);
  SimTime loopback_latency = microseconds(5);        // two nodes on one host
  SimTime connection_reset_timeout = seconds(10);    // a cut this long resets the connection
};

// Every message a node sends is, at any moment, exactly one of delivered,
// dropped or in flight: messages_sent = messages_delivered + messages_dropped
// + messages_in_flight.
struct NetworkStats {
  std::uint64_t messages_sent = 0;       // handed to the network by a node, on an open connection or not
  std::uint64_t messages_delivered = 0;  // reached the node at the other end
  std::uint64_t messages_dropped = 0;    // never will: sent on a closed connection, or lost with a reset or close
  std::uint64_t messages_in_flight = 0;  // on the wire or held behind a cut (now; at the end of a run)
  std::uint64_t messages_held = 0;       // times a message was held behind a cut (one message may be held again)
  std::uint64_t bytes_sent = 0;          // of every message sent
  std::uint64_t connections_opened = 0;
  std::uint64_t connections_refused = 0;  // nothing listened at the server when the handshake got there
  std::uint64_t connections_reset = 0;
};

class Network {
 public:
  Network(Simulation& sim, Topology& topology, NetworkOptions options);

  ConnectionId connect(NodeId client, NodeId server);
  // False when the connection is closed; the message is then dropped.
  bool send(ConnectionId connection, NodeId from, MessagePtr message);
  // A send whose writer learns when the socket has taken all of it (a
  // blocking write returning, Java's Send.completed()): at once while the
  // bytes sent and not yet delivered, its own included, fit in the sender's
  // socket send buffer (`send_buffer_bytes`, as SO_SNDBUF), else when enough
  // earlier bytes have been delivered (TCP acknowledges them; the
  // acknowledgement's return is not modelled). A cut stops deliveries, so
  // the buffer fills and writes block. The position returned identifies the
  // send in Node::on_written; nullopt when the connection is closed.
  struct TrackedSend {
    std::uint64_t position = 0;  // the connection direction's bytes sent up to and with this message
    bool written = false;        // the socket took it all at once
  };
  std::optional<TrackedSend> send_tracked(ConnectionId connection, NodeId from, MessagePtr message,
                                          std::uint64_t send_buffer_bytes);
  void close(ConnectionId connection, NodeId by);
  bool is_open(ConnectionId connection) const { return connections_[connection].open; }
  // The handshake completed: its client has heard the server's answer (Node::on_connected).
  bool is_established(ConnectionId connection) const {
    return connections_[connection].handshake == Handshake::Established;
  }
  NodeId peer_of(ConnectionId connection, NodeId self) const;
  NodeId server_of(ConnectionId connection) const { return connections_[connection].directions[0].to; }
  // Resets the node's open connections, `after` from now (a killed
  // process's exit teardown, Node::set_exit_teardown); until then they carry
  // messages as before, and what reaches the dead node is lost.
  void reset_connections_of(NodeId node, SimTime after = 0);
  // The node's machine lost power: it sends no reset, so its peers are not
  // told. What it was still sending is lost, what it had sent whole still
  // arrives; what is sent to it is held as behind a cut (TCP retransmits)
  // until connection_reset_timeout, or until the machine is back and the
  // first retransmission meets a host that knows no such connection (a reset).
  void orphan_connections_of(NodeId node);

  NetworkFaults& faults() { return faults_; }
  const NetworkFaults& faults() const { return faults_; }
  // Re-sends what a cut held back, now that it may have healed.
  void release_held_messages();
  // A link's speed changed (a slowdown began or ended).
  void links_changed() { sharing_.links_changed(); }

  NetworkStats stats() const;  // with messages_in_flight counted now

  // Hears every message a node hands to the network (`delivered` false; it
  // may never arrive) and every message handed to a node (`delivered` true),
  // for views of a run such as a spacetime diagram. A message keeps its
  // address from send to delivery. Observers must not touch the simulation.
  using MessageObserver = std::function<void(const Message& message, NodeId from, NodeId to, bool delivered)>;
  void observe_messages(MessageObserver observer) { message_observers_.push_back(std::move(observer)); }
  const NetworkOptions& options() const { return options_; }
  Topology& topology() { return topology_; }

 private:
  struct Direction {
    NodeId from = 0;
    NodeId to = 0;
    RingQueue<MessagePtr> sending;    // not all sent yet, in send order; the first is on the wire
    RingQueue<MessagePtr> in_flight;  // deliveries scheduled, in arrival order
    RingQueue<MessagePtr> held;       // waiting for a cut to heal, in send order
    RingQueue<MessagePtr> before_established;  // sent before the handshake completed, in send order
    SimTime last_arrival = 0;          // arrivals on one connection never overtake
    SimTime held_since = kNever;
    std::uint32_t epoch = 0;           // bumped when its data is dropped; stale deliveries are ignored
    bool notify_close = false;         // closed by its sender: the peer learns of it after the last message
    std::uint64_t bytes_sent = 0;       // handed to the network, in all
    std::uint64_t bytes_delivered = 0;  // of those, delivered
    // Tracked sends the socket has not taken yet: (position, the buffer's size), in order.
    RingQueue<std::pair<std::uint64_t, std::uint64_t>> unwritten;
  };
  // TCP's three-way handshake as the client sees it (the final ACK rides
  // with the client's first data): a SYN travels to the server, its answer
  // back; a crashed server answers with a reset (connection refused).
  enum class Handshake { SynSent, SynAckSent, Established };
  struct Connection {
    Direction directions[2];
    bool open = true;
    std::uint32_t epoch = 0;  // bumped on reset; stale deliveries are ignored
    Handshake handshake = Handshake::SynSent;
    // The incarnation of each end's process (0: the client, 1: the server,
    // once it answered the SYN): a message for a later one meets a reset.
    std::uint32_t incarnations[2] = {0, 0};
    SimTime connect_started = 0;
    int syn_retransmits = 0;  // SYNs a powered-off server did not answer
  };

  void send_handshake(ConnectionId id);
  void on_handshake_arrival(ConnectionId id, std::uint32_t epoch);
  void syn_unanswered(ConnectionId id);
  bool unreachable(const Direction& d) const;  // cut off, or its receiver's machine is off
  bool receiver_gone(const Connection& c, int direction) const;
  void establish(ConnectionId id);
  void dispatch(ConnectionId id, int direction, MessagePtr message);
  SimTime fault_delay(const Direction& d);
  void drop_before_established(Connection& c);  // what waited for the handshake
  void transmit(ConnectionId id, int direction, MessagePtr message);
  void send_next(ConnectionId id, int direction);
  void on_transmitted(BandwidthSharing::FlowId flow);
  void schedule_arrival(ConnectionId id, int direction, MessagePtr message, SimTime sent);
  void drop_unsent(ConnectionId id, int direction);
  void notify_closed(ConnectionId id, int direction);
  static BandwidthSharing::FlowId flow_of(ConnectionId id, int direction) {
    return static_cast<BandwidthSharing::FlowId>(id) * 2 + static_cast<BandwidthSharing::FlowId>(direction);
  }
  void on_arrival(ConnectionId id, int direction, std::uint32_t epoch);
  void delivered(ConnectionId id, int direction, std::uint64_t bytes);
  void hold(ConnectionId id, int direction, MessagePtr message);
  void check_reset(ConnectionId id, int direction, std::uint32_t epoch);
  void reset(ConnectionId id, std::string_view reason, NodeId notify_except);
  int direction_of(const Connection& c, NodeId from) const;

  Simulation& sim_;
  Topology& topology_;
  NetworkOptions options_;
  NetworkFaults faults_;
  BandwidthSharing sharing_;
  RandomStream rng_;
  std::deque<Connection> connections_;  // a deque: connections never move
  NetworkStats stats_;
  std::vector<MessageObserver> message_observers_;
};

}  // namespace ksim
