#pragma once
// A node is an actor of the simulation: a process on a host. It receives
// messages, sets timers and owns a random stream. It can crash (volatile
// state is lost, timers are dropped, connections reset) and restart, and it
// can be paused like a long GC pause: nothing runs, and messages and timers
// queue up until it resumes.
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "sim/events/inline_function.hpp"
#include "sim/network/message.hpp"
#include "sim/random/random.hpp"
#include "sim/events/event_queue.hpp"

namespace ksim {

class Simulation;

enum class NodeState { Running, Paused, Crashed };
std::string_view to_string(NodeState state);

// A process crash keeps what the OS has (page cache); a machine crash (power
// loss) keeps only what reached stable storage. Models decide what that means.
// A clean shutdown is a process exit after the node's own shutdown work.
enum class CrashKind { Process, Machine, Shutdown };
std::string_view to_string(CrashKind kind);

// What happened to a node, as observers of the simulation hear it (Simulation::observe_nodes).
struct NodeChange {
  enum class Kind { Started, Crashed, ShutdownRequested, Paused, Resumed };
  Kind kind;
  CrashKind crash = CrashKind::Process;  // how it crashed, for Crashed
};

class Node {
 public:
  using TimerCallback = InlineFunction<40>;

  Node(Simulation& sim, std::string name, HostId host);
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  NodeId id() const { return id_; }
  const std::string& name() const { return name_; }
  HostId host() const { return host_; }
  NodeState state() const { return state_; }
  bool is_running() const { return state_ == NodeState::Running; }
  std::uint32_t incarnation() const { return incarnation_; }
  // Its machine lost power (CrashKind::Machine) and is not back: it answers
  // nothing, not even a SYN with a reset.
  bool powered_off() const { return powered_off_; }
  // Not started yet: down since it was created (a crash starts a new incarnation).
  bool never_started() const { return state_ == NodeState::Crashed && incarnation_ == 0; }
  SimTime now() const;

  // Lifecycle, driven by faults and the driver.
  void start();
  void crash(CrashKind kind = CrashKind::Process);
  // A graceful stop (SIGTERM): the node does its shutdown work, then calls
  // crash(CrashKind::Shutdown). By default it stops at once.
  void request_shutdown();
  void restart();
  void pause();
  void resume();

  // One process modelled as two nodes (a broker and its ZooKeeper side):
  // `companion` starts, crashes, shuts down, pauses and resumes with this
  // node, and network faults on this node also hold for it (FaultInjector).
  // Once the companion has stopped on its own (a graceful stop it finished),
  // this node hears it in on_companion_stopped; either may hand the other the
  // next step of a shutdown they do together (hand_over, on_handed_over).
  // A killed process's sockets close only once the kernel has freed its
  // memory (do_exit runs exit_mm before exit_files): its peers learn of a
  // CrashKind::Process crash this much later, and what they send meanwhile
  // is lost. Zero (the default): at once. Companions share it.
  void set_exit_teardown(SimTime teardown) { exit_teardown_ = teardown; }
  SimTime exit_teardown() const { return exit_teardown_; }
  // How long a connect of this node waits for an answer to its SYN (only a
  // machine that is off gives none): Kafka's
  // socket.connection.setup.timeout.ms (KIP-601, 2.7+); without it the
  // kernel's, 127 s (tcp_syn_retries 6).
  void set_connect_timeout(SimTime timeout) { connect_timeout_ = timeout; }
  SimTime connect_timeout() const { return connect_timeout_; }

  void share_fate(Node& companion) {
    companions_.push_back(&companion);
    companion.fate_owner_ = this;
  }
  const std::vector<Node*>& companions() const { return companions_; }

  // Called by the network (already routed and timed).
  void deliver_message(ConnectionId connection, MessagePtr message);
  void deliver_connection_closed(ConnectionId connection);
  void deliver_connected(ConnectionId connection);
  void deliver_written(ConnectionId connection, std::uint64_t position);

 protected:
  Simulation& sim() { return sim_; }
  const Simulation& sim() const { return sim_; }
  RandomStream& rng() { return rng_; }

  // A timer fires only in the incarnation that set it; while paused it waits.
  TimerId set_timer(SimTime delay, TimerCallback callback);
  bool cancel_timer(TimerId id);

  // A new connection to `peer`; what is sent on it waits for its handshake
  // (on_connected), and a refused or timed-out connect closes it (on_connection_closed).
  ConnectionId connect(NodeId peer);
  bool established(ConnectionId connection) const;
  bool send(ConnectionId connection, MessagePtr message);
  // A send the node learns is written (on_written) once its socket takes it
  // (Network::send_tracked): the position, and whether that was at once; nullopt when closed.
  struct TrackedSend {
    std::uint64_t position = 0;
    bool written = false;
  };
  std::optional<TrackedSend> send_tracked(ConnectionId connection, MessagePtr message, std::uint64_t send_buffer_bytes);
  bool accepted(ConnectionId connection) const;  // this node is the connection's server side
  void close(ConnectionId connection);

  virtual void on_start() {}     // first start and every restart
  virtual void on_crash(CrashKind /*kind*/) {}  // drop volatile state here; durable state stays
  // The machine lost power while the process was down: what the machine held
  // for it (the OS page cache of its files) is lost all the same.
  virtual void on_power_loss_while_down() {}
  virtual void on_shutdown_requested() { crash(CrashKind::Shutdown); }
  // A companion (share_fate) crashed or finished its shutdown while this node runs.
  virtual void on_companion_stopped(Node& /*companion*/, CrashKind /*kind*/) {}
  // One process as two nodes: this node's part of a step is done and the
  // other goes on (an in-process call, in an event of its own at once).
  // False when it has no partner (it runs alone, as in unit tests).
  bool hand_over();
  virtual void on_handed_over(Node& /*from*/) {}
  virtual void on_pause() {}
  virtual void on_resume() {}
  virtual void on_message(ConnectionId /*connection*/, MessagePtr /*message*/) {}
  virtual void on_connection_closed(ConnectionId /*connection*/) {}
  // A connection this node opened is established (the server answered its handshake).
  virtual void on_connected(ConnectionId /*connection*/) {}
  // A tracked send that did not fit its socket buffer at once is written now.
  virtual void on_written(ConnectionId /*connection*/, std::uint64_t /*position*/) {}
  // Every message the node sends passes here first (a server's response path, say).
  virtual void on_send(ConnectionId /*connection*/, const Message& /*message*/) {}
  // Around every handler the node runs (message, timer, closed connection, start).
  virtual void before_event() {}
  virtual void after_event() {}

 private:
  void run_or_defer(TimerCallback callback);

  Simulation& sim_;
  std::string name_;
  HostId host_;
  NodeId id_;
  RandomStream rng_;
  NodeState state_ = NodeState::Crashed;  // until start()
  std::uint32_t incarnation_ = 0;
  SimTime exit_teardown_ = 0;
  SimTime connect_timeout_ = seconds(127);
  bool powered_off_ = false;
  std::deque<TimerCallback> deferred_;  // work that arrived while paused, in order
  bool shutting_down_ = false;          // a requested shutdown has not finished yet
  bool restart_after_shutdown_ = false; // restart() came while it was still shutting down
  std::vector<Node*> companions_;
  Node* fate_owner_ = nullptr;  // the node this one is a companion of
  // `step` runs in an event of this node's own, now, if it still runs in this incarnation.
  template <class Step>
  void run_soon(Step step) {
    sim_events_schedule_now([this, step = std::move(step), incarnation = incarnation_]() mutable {
      if (incarnation != incarnation_ || state_ != NodeState::Running) return;
      before_event();
      step();
      if (state_ == NodeState::Running) after_event();
    });
  }
  void sim_events_schedule_now(InlineFunction<64> event);
};

}  // namespace ksim
