#include "sim/core/node.hpp"

#include <cassert>

#include "sim/core/simulation.hpp"

namespace ksim {

std::string_view to_string(NodeState state) {
  switch (state) {
    case NodeState::Running: return "running";
    case NodeState::Paused: return "paused";
    case NodeState::Crashed: return "crashed";
  }
  return "?";
}

Node::Node(Simulation& sim, std::string name, HostId host)
    : sim_(sim),
      name_(std::move(name)),
      host_(host),
      id_(sim.register_node(*this)),
      rng_(sim.stream("node/" + name_)) {}

SimTime Node::now() const { return sim_.now(); }

void Node::start() {
  assert(state_ == NodeState::Crashed);
  state_ = NodeState::Running;
  sim_.trace().record(now(), name_, "node.start", {{"incarnation", incarnation_}});
  if (powered_off_) {
    // Back: what its peers' kernels retransmit reaches it (and meets a reset).
    powered_off_ = false;
    sim_.network().release_held_messages();
  }
  before_event();
  on_start();
  after_event();
  sim_.node_changed(*this, {NodeChange::Kind::Started});
  for (Node* c : companions_) c->restart();
}

std::string_view to_string(CrashKind kind) {
  switch (kind) {
    case CrashKind::Process: return "process";
    case CrashKind::Machine: return "machine";
    case CrashKind::Shutdown: return "shutdown";
  }
  return "?";
}

void Node::crash(CrashKind kind) {
  if (state_ == NodeState::Crashed) {
    if (kind != CrashKind::Machine) return;
    powered_off_ = true;
    sim_.trace().record(now(), name_, "node.power_loss_while_down", {{"incarnation", incarnation_}});
    on_power_loss_while_down();
    for (Node* c : companions_) c->crash(kind);
    return;
  }
  sim_.trace().record(now(), name_, "node.crash", {{"incarnation", incarnation_}, {"crash", to_string(kind)}});
  state_ = NodeState::Crashed;
  ++incarnation_;  // every pending timer of the old incarnation is now void
  deferred_.clear();
  const Node& process = fate_owner_ != nullptr ? *fate_owner_ : *this;
  if (kind == CrashKind::Machine) {
    powered_off_ = true;
    sim_.network().orphan_connections_of(id_);  // a dead machine sends no reset
  } else {
    sim_.network().reset_connections_of(id_, kind == CrashKind::Process ? process.exit_teardown_ : 0);
  }
  shutting_down_ = false;
  on_crash(kind);
  sim_.node_changed(*this, {NodeChange::Kind::Crashed, kind});
  for (Node* c : companions_) c->crash(kind);
  if (fate_owner_ != nullptr && fate_owner_->state_ == NodeState::Running) {
    Node* owner = fate_owner_;
    owner->run_soon([owner, companion = this, kind] { owner->on_companion_stopped(*companion, kind); });
  }
  if (restart_after_shutdown_) {
    // The restart was asked for while the shutdown was still under way.
    restart_after_shutdown_ = false;
    sim_.events().schedule_after(0, [this, incarnation = incarnation_] {
      if (incarnation == incarnation_) restart();
    });
  }
}

void Node::sim_events_schedule_now(InlineFunction<64> event) { sim_.events().schedule_after(0, std::move(event)); }

bool Node::hand_over() {
  Node* partner = fate_owner_ != nullptr ? fate_owner_ : (companions_.empty() ? nullptr : companions_.front());
  if (partner == nullptr) return false;
  partner->run_soon([partner, from = this] { partner->on_handed_over(*from); });
  return true;
}

void Node::request_shutdown() {
  if (state_ != NodeState::Running) return;
  shutting_down_ = true;
  sim_.trace().record(now(), name_, "node.shutdown_requested");
  before_event();
  on_shutdown_requested();
  if (state_ == NodeState::Running) after_event();
  sim_.node_changed(*this, {NodeChange::Kind::ShutdownRequested});
  for (Node* c : companions_) c->request_shutdown();
}

void Node::restart() {
  if (shutting_down_ && state_ != NodeState::Crashed) {
    restart_after_shutdown_ = true;
    return;
  }
  if (state_ != NodeState::Crashed) return;
  start();
}

void Node::pause() {
  if (state_ != NodeState::Running) return;
  state_ = NodeState::Paused;
  sim_.trace().record(now(), name_, "node.pause");
  on_pause();
  sim_.node_changed(*this, {NodeChange::Kind::Paused});
  for (Node* c : companions_) c->pause();
}

void Node::resume() {
  if (state_ != NodeState::Paused) return;
  state_ = NodeState::Running;
  sim_.trace().record(now(), name_, "node.resume", {{"queued", deferred_.size()}});
  on_resume();
  sim_.node_changed(*this, {NodeChange::Kind::Resumed});
  for (Node* c : companions_) c->resume();
  // Replay what queued up, in arrival order, each as its own event now.
  const std::uint32_t incarnation = incarnation_;
  while (!deferred_.empty()) {
    sim_.events().schedule_after(0, [this, incarnation, cb = std::move(deferred_.front())]() mutable {
      if (incarnation == incarnation_) run_or_defer(std::move(cb));
    });
    deferred_.pop_front();
  }
}

void Node::run_or_defer(TimerCallback callback) {
  switch (state_) {
    case NodeState::Running:
      before_event();
      callback();
      if (state_ == NodeState::Running) after_event();
      return;
    case NodeState::Paused: deferred_.push_back(std::move(callback)); return;
    case NodeState::Crashed: return;
  }
}

TimerId Node::set_timer(SimTime delay, TimerCallback callback) {
  assert(state_ != NodeState::Crashed);
  const std::uint32_t incarnation = incarnation_;
  return sim_.events().schedule_after(delay, [this, incarnation, cb = std::move(callback)]() mutable {
    if (incarnation == incarnation_) run_or_defer(std::move(cb));
  });
}

bool Node::cancel_timer(TimerId id) { return sim_.events().cancel(id); }

void Node::deliver_message(ConnectionId connection, MessagePtr message) {
  run_or_defer([this, connection, m = std::move(message)]() mutable { on_message(connection, std::move(m)); });
}

void Node::deliver_connection_closed(ConnectionId connection) {
  run_or_defer([this, connection] { on_connection_closed(connection); });
}

void Node::deliver_connected(ConnectionId connection) {
  run_or_defer([this, connection] { on_connected(connection); });
}

void Node::deliver_written(ConnectionId connection, std::uint64_t position) {
  run_or_defer([this, connection, position] { on_written(connection, position); });
}

ConnectionId Node::connect(NodeId peer) { return sim_.network().connect(id_, peer); }
std::optional<Node::TrackedSend> Node::send_tracked(ConnectionId connection, MessagePtr message,
                                                    std::uint64_t send_buffer_bytes) {
  on_send(connection, *message);
  const auto sent = sim_.network().send_tracked(connection, id_, std::move(message), send_buffer_bytes);
  if (!sent) return std::nullopt;
  return TrackedSend{sent->position, sent->written};
}
bool Node::send(ConnectionId connection, MessagePtr message) {
  on_send(connection, *message);
  return sim_.network().send(connection, id_, std::move(message));
}
bool Node::established(ConnectionId connection) const { return sim_.network().is_established(connection); }
bool Node::accepted(ConnectionId connection) const { return sim_.network().server_of(connection) == id_; }
void Node::close(ConnectionId connection) { sim_.network().close(connection, id_); }

}  // namespace ksim
