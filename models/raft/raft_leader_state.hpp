#pragma once
// What a leader knows in its epoch (LeaderState): each voter's and observer's
// fetch offset, the high watermark, the voters that acknowledged it, and the
// check-quorum timer. The high watermark is the largest offset a majority of
// voters reached (the leader counting its own flushed end), and it moves
// only once it passes the epoch's start offset: the leader must commit an
// entry of its own epoch (the LeaderChange record) before it exposes entries
// of earlier epochs. It never goes back. Observers' fetches do not count.
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "models/raft/raft_record.hpp"
#include "sim/events/time.hpp"

namespace ksim::models {

class RaftLeaderState {
 public:
  RaftLeaderState(RaftNodeId local, Epoch epoch, Offset epoch_start_offset, const std::vector<RaftNodeId>& voters,
                  SimTime now, SimTime fetch_timeout);

  Epoch epoch() const { return epoch_; }
  Offset epoch_start_offset() const { return epoch_start_offset_; }
  std::optional<Offset> high_watermark() const { return high_watermark_; }

  // updateLocalState: the leader's own flushed end offset. True when the high watermark moved.
  bool update_local(Offset flushed_end_offset);
  // updateReplicaState: a valid fetch from `replica` at `fetch_offset`. True when the high watermark moved.
  bool update_replica(RaftNodeId replica, Offset fetch_offset, SimTime now);
  bool is_voter(RaftNodeId replica) const { return voters_.contains(replica); }

  // LeaderState.timeUntilCheckQuorumExpires: kNever with a single voter. The
  // timer restarts whenever voters that, with the leader, make a majority have
  // fetched since it last did (1.5 x the fetch timeout: CHECK_QUORUM_TIMEOUT_FACTOR).
  SimTime check_quorum_deadline() const { return check_quorum_deadline_; }

  // BeginQuorumEpoch goes to every other voter when this passes, then every half fetch timeout.
  SimTime begin_quorum_epoch_deadline() const { return begin_quorum_epoch_deadline_; }
  void begin_quorum_epoch_sent(SimTime now) { begin_quorum_epoch_deadline_ = now + fetch_timeout_ / 2; }
  void acknowledge(RaftNodeId voter);
  bool acknowledged(RaftNodeId voter) const;

  // nonLeaderVotersByDescendingFetchOffset: a resigning leader's preferred successors.
  std::vector<RaftNodeId> voters_by_descending_fetch_offset() const;
  std::optional<Offset> fetch_offset(RaftNodeId replica) const;

 private:
  struct Progress {
    std::optional<Offset> end_offset;  // the last valid fetch's offset (the leader's: its flushed end)
    bool acknowledged = false;         // answered BeginQuorumEpoch or fetched in this epoch
  };
  bool maybe_update_high_watermark();

  RaftNodeId local_;
  Epoch epoch_;
  Offset epoch_start_offset_;
  SimTime fetch_timeout_;
  std::map<RaftNodeId, Progress> voters_;
  std::map<RaftNodeId, Progress> observers_;
  std::optional<Offset> high_watermark_;
  std::set<RaftNodeId> fetched_voters_;  // since the check-quorum timer last restarted
  SimTime check_quorum_deadline_ = kNever;
  SimTime begin_quorum_epoch_deadline_ = 0;  // at once
};

}  // namespace ksim::models
