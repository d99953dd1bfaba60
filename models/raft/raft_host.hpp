#pragma once
// What a RaftReplica needs from the node that hosts it (a controller, or a
// broker as an observer), and what it tells it. The replica is not a node: it
// sends through its host, which keeps the connections, and asks it for one
// timer at a time. The host hands it every Raft message (is_raft_message) with
// RaftReplica::handle, calls RaftReplica::on_timer when that timer fires, and
// RaftReplica::on_disconnected when a connection to a replica closes.
//
// The callbacks stand for RaftClient.Listener: handleCommit (on_committed),
// handleLeaderChange naming this replica (on_become_leader) or another or none
// (on_become_follower). They run inside the replica's handlers; the host may
// call append() and resign() from them.
#include <memory>

#include "models/raft/raft_record.hpp"
#include "sim/events/event_queue.hpp"
#include "sim/network/message.hpp"
#include "sim/random/random.hpp"

namespace ksim::models {

class RaftHost {
 public:
  virtual ~RaftHost() = default;

  virtual SimTime now() const = 0;
  // The replica's random stream (election timeouts, backoffs, which voter an observer asks).
  virtual RandomStream& random() = 0;
  // Sends a Raft message to replica `to`: a request on the host's connection
  // to it (connecting if needed), a response back where its request came from.
  // A message that cannot be sent is dropped: Raft retries.
  virtual void send(RaftNodeId to, MessagePtr message) = 0;
  // A timer after which the host calls RaftReplica::on_timer (in this process only).
  virtual TimerId set_timer(SimTime delay) = 0;
  virtual void cancel_timer(TimerId id) = 0;

  // The entries in [from, to) are committed (the high watermark is `to`). After
  // a restart `from` starts at 0 again: the host replays its whole committed
  // log (there are no snapshots), skipping control records.
  virtual void on_committed(Offset /*from*/, Offset /*to*/) {}
  // This replica leads `epoch` and every entry of earlier epochs was handed to
  // on_committed: it may append (KafkaRaftClient's leader change for the
  // local replica, fired once the listener has caught up to the epoch's start).
  virtual void on_become_leader(Epoch /*epoch*/) {}
  // Another replica leads `epoch`, or none yet (kNoRaftNode: an election is on).
  // A leader that resigned hears this once it learns the next epoch.
  virtual void on_become_follower(RaftNodeId /*leader*/, Epoch /*epoch*/) {}
};

}  // namespace ksim::models
