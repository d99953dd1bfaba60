#pragma once
// A sim Node hosting a RaftReplica (models/raft/) the way a controller will:
// its durable state (election state and metadata log) survives its crashes,
// losing what was not flushed in a power loss; the replica is built anew at
// every start; the node keeps the connections (requests on its own to each
// replica, responses back where their request came from) and replays the
// committed log into a state machine of sequence numbers.
#include <cassert>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/raft/raft_connections.hpp"
#include "models/raft/raft_replica.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::testing {

using models::Epoch;
using models::Offset;
using models::RaftNodeId;

// The workload's record: a sequence number, unique in the run.
struct SequenceRecord final : models::RaftRecord {
  explicit SequenceRecord(std::uint64_t v) : value(v) {}
  std::uint64_t value;
  std::uint64_t size_bytes() const override { return 24; }
};

// What every replica of one test quorum shares.
struct RaftQuorum {
  std::vector<RaftNodeId> voters;
  models::RaftConfig config;
  std::vector<NodeId> nodes;  // the sim node of each replica, by its id
};

// What a node tells its cluster's checks.
class RaftTestListener {
 public:
  virtual void applied(RaftNodeId replica, Offset offset, std::uint64_t value) = 0;
  virtual void leader_elected(RaftNodeId replica, Epoch epoch) = 0;

 protected:
  ~RaftTestListener() = default;
};

class RaftTestNode final : public Node {
 public:
  RaftTestNode(Simulation& sim, std::string name, HostId host, RaftNodeId raft_id, const RaftQuorum& quorum,
               RaftTestListener& listener);
  ~RaftTestNode() override;

  RaftNodeId raft_id() const { return raft_id_; }
  models::RaftReplica* replica() { return replica_.get(); }  // null while down
  const models::RaftReplica* replica() const { return replica_.get(); }
  models::RaftPersistentState& durable() { return durable_; }
  const models::RaftPersistentState& durable() const { return durable_; }
  // The sequence numbers this incarnation's state machine replayed, in offset order.
  const std::vector<std::uint64_t>& applied() const { return applied_; }
  // The last leader change the replica told its host (on_become_leader or on_become_follower).
  std::pair<RaftNodeId, Epoch> told_leader() const { return told_leader_; }

 protected:
  void on_start() override {
    applied_.clear();
    told_leader_ = {models::kNoRaftNode, 0};
    replica_ = std::make_unique<models::RaftReplica>(*host_, raft_id_, quorum_.voters, quorum_.config, durable_);
    replica_->start();
  }

  // The process state goes; a power loss also takes what the log had not flushed.
  void on_crash(CrashKind kind) override {
    replica_.reset();
    connections_.clear();
    if (kind == CrashKind::Machine) durable_.lose_power();
  }

  void on_message(ConnectionId connection, MessagePtr message) override {
    assert(models::is_raft_message(*message));
    connections_.received(connection, *message);
    replica_->handle(*message);
  }

  void on_connection_closed(ConnectionId connection) override {
    if (const auto peer = connections_.closed(connection)) replica_->on_disconnected(*peer);
  }

 private:
  class Host;

  void send_to(RaftNodeId to, MessagePtr message) {
    connections_.send(
        to, std::move(message),
        [this](RaftNodeId peer) { return connect(quorum_.nodes.at(static_cast<std::size_t>(peer))); },
        [this](ConnectionId connection, MessagePtr m) { send(connection, std::move(m)); });
  }

  // The state machine: committed sequence numbers, replayed in offset order.
  void apply(Offset from, Offset to) {
    for (Offset offset = from; offset < to; ++offset) {
      const models::RaftEntry& entry = durable_.log().at(offset);
      if (entry.record->is_control()) continue;
      const auto value = static_cast<const SequenceRecord&>(*entry.record).value;
      applied_.push_back(value);
      listener_.applied(raft_id_, offset, value);
    }
  }

  RaftNodeId raft_id_;
  const RaftQuorum& quorum_;
  RaftTestListener& listener_;
  RandomStream raft_rng_;
  models::RaftPersistentState durable_;
  std::unique_ptr<Host> host_;
  std::unique_ptr<models::RaftReplica> replica_;
  std::vector<std::uint64_t> applied_;
  std::pair<RaftNodeId, Epoch> told_leader_{models::kNoRaftNode, 0};
  models::RaftConnections connections_;
};

// The replica's host: the node's clock, stream, connections and timers.
class RaftTestNode::Host final : public models::RaftHost {
 public:
  explicit Host(RaftTestNode& node) : node_(node) {}
  SimTime now() const override { return node_.now(); }
  RandomStream& random() override { return node_.raft_rng_; }
  void send(RaftNodeId to, MessagePtr message) override { node_.send_to(to, std::move(message)); }
  TimerId set_timer(SimTime delay) override {
    return node_.set_timer(delay, [n = &node_] {
      if (n->replica_) n->replica_->on_timer();
    });
  }
  void cancel_timer(TimerId id) override { node_.cancel_timer(id); }
  void on_committed(Offset from, Offset to) override { node_.apply(from, to); }
  void on_become_leader(Epoch epoch) override {
    node_.told_leader_ = {node_.raft_id_, epoch};
    node_.listener_.leader_elected(node_.raft_id_, epoch);
  }
  void on_become_follower(RaftNodeId leader, Epoch epoch) override { node_.told_leader_ = {leader, epoch}; }

 private:
  RaftTestNode& node_;
};

inline RaftTestNode::RaftTestNode(Simulation& sim, std::string name, HostId host, RaftNodeId raft_id,
                                  const RaftQuorum& quorum, RaftTestListener& listener)
    : Node(sim, name, host),
      raft_id_(raft_id),
      quorum_(quorum),
      listener_(listener),
      raft_rng_(sim.stream("raft/" + name)),
      host_(std::make_unique<Host>(*this)) {}

inline RaftTestNode::~RaftTestNode() = default;

}  // namespace ksim::testing
