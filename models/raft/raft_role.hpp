#pragma once
// A Raft replica's role in its epoch, and which may follow which: Kafka's
// QuorumState and its EpochState classes (raft/.../QuorumState.java, class
// comment; UnattachedState, CandidateState, LeaderState, FollowerState,
// ResignedState).
//
// At the apache/kafka commit read (1eb7644, October 2024) VotedState no
// longer exists: KAFKA-17067 folded it into UnattachedState with a votedKey.
// ksim keeps Voted as a role of its own (an unattached replica that voted in
// its epoch), as QuorumState's comment still describes it. There is no
// Prospective role (KIP-996's pre-vote came later). A replica starts in the
// role its persisted election state gives (QuorumState.initialize), which is
// not a transition; observers (non-voters) are only ever Unattached or Follower.
#include <string_view>

namespace ksim::models {

enum class RaftRole {
  Unattached,  // knows its epoch but no leader, and has not voted in it
  Voted,       // voted for a candidate in its epoch (UnattachedState with a votedKey)
  Candidate,   // asks for votes in an epoch it started
  Leader,
  Follower,    // fetches from the epoch's leader
  Resigned,    // a leader that gave up its epoch (shutting down, or no majority fetched): no writes, no votes
};
std::string_view to_string(RaftRole role);

// May a replica go from `from` to `to`? (QuorumState's transitionTo* preconditions.)
bool legal(RaftRole from, RaftRole to);

}  // namespace ksim::models
