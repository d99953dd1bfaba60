#pragma once
// What a Raft replica keeps on disk, apart from its process (PersistentState
// in Kafka's RaftEventSimulationTest): the election state QuorumStateStore
// writes (epoch, leader, voted-for) and the metadata log. The host owns it as
// durable state and hands it to each new RaftReplica after a restart.
//
// A replica writes its election state before it acts on a new epoch, vote or
// leader (QuorumState.durableTransitionTo). FileQuorumStateStore writes a
// file, fsyncs it and renames it; ksim makes that write durable at once (no
// fsync latency). The log's durability is RaftLog's: a process crash keeps
// it, a power loss (lose_power()) keeps what was flushed.
#include "models/raft/raft_log.hpp"

namespace ksim::models {

// ElectionState: the epoch, and its leader or the candidate voted for (or neither).
struct RaftElection {
  Epoch epoch = 0;
  RaftNodeId leader = kNoRaftNode;
  RaftNodeId voted_for = kNoRaftNode;
  bool has_leader() const { return leader != kNoRaftNode; }
  bool has_voted() const { return voted_for != kNoRaftNode; }
  friend bool operator==(const RaftElection&, const RaftElection&) = default;
};

class RaftPersistentState {
 public:
  const RaftElection& election() const { return election_; }
  void write_election(const RaftElection& election) { election_ = election; }

  RaftLog& log() { return log_; }
  const RaftLog& log() const { return log_; }

  // CrashKind::Machine: the log loses what no fsync reached; the election state stays.
  void lose_power() { log_.lose_unflushed(); }

 private:
  RaftElection election_;
  RaftLog log_;
};

}  // namespace ksim::models
