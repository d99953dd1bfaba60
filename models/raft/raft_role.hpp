#pragma once
// A Raft replica's role in its epoch, and which may follow which: Kafka's
// QuorumState and its EpochState classes (raft/.../QuorumState.java, class
// comment; UnattachedState, CandidateState, LeaderState, FollowerState,
// ResignedState).
//
// At the apache/kafka commit read (1eb7644, October 2024) VotedState no
// longer exists: KAFKA-17067 folded it into UnattachedState with a votedKey.
// ksim keeps Voted as a role of its own (an unattached replica that voted in
// its epoch), as QuorumState's comment still describes it. Prospective is
// KIP-996's (Kafka 4.0+, ProspectiveState): a voter whose election or fetch
// timeout expired asks for pre-votes in its own epoch before it stands; it is
// a soft state (the election state it keeps is the one it had). Without
// KIP-996 (RaftConfig::pre_vote false) no replica is ever Prospective. A
// replica starts in the role its persisted election state gives
// (QuorumState.initialize), which is not a transition; observers (non-voters)
// are only ever Unattached or Follower.
#include <string_view>

namespace ksim::models {

enum class RaftRole {
  Unattached,  // knows its epoch but no leader, and has not voted in it
  Voted,       // voted for a candidate in its epoch (UnattachedState with a votedKey)
  Prospective, // KIP-996: asks for pre-votes in its epoch; a majority makes it a candidate
  Candidate,   // asks for votes in an epoch it started
  Leader,
  Follower,    // fetches from the epoch's leader
  Resigned,    // a leader that gave up its epoch (shutting down, or no majority fetched): no writes, no votes
};
std::string_view to_string(RaftRole role);

// May a replica go from `from` to `to`? (QuorumState's transitionTo* preconditions.)
bool legal(RaftRole from, RaftRole to);

}  // namespace ksim::models
