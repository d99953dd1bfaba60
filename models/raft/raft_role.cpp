#include "models/raft/raft_role.hpp"

namespace ksim::models {

std::string_view to_string(RaftRole role) {
  switch (role) {
    case RaftRole::Unattached: return "Unattached";
    case RaftRole::Voted: return "Voted";
    case RaftRole::Prospective: return "Prospective";
    case RaftRole::Candidate: return "Candidate";
    case RaftRole::Leader: return "Leader";
    case RaftRole::Follower: return "Follower";
    case RaftRole::Resigned: return "Resigned";
  }
  return "?";
}

// QuorumState.transitionTo*: each checks the state it leaves.
bool legal(RaftRole from, RaftRole to) {
  using enum RaftRole;
  switch (to) {
    // transitionToUnattached: a larger epoch was learned, in any role; or (KIP-996)
    // a prospective lost its pre-vote and knows no leader (the same epoch).
    case Unattached: return true;
    // unattachedAddVotedState: only an unattached replica that has not voted in
    // its epoch; or a prospective that had voted in its epoch lost its pre-vote.
    case Voted: return from == Unattached || from == Prospective;
    // transitionToProspective (KIP-996): an election or fetch timeout, or a
    // candidate's backoff ended; never a leader, a resigned leader (it moves to
    // the next epoch Unattached first) or a prospective.
    case Prospective: return from == Unattached || from == Voted || from == Follower || from == Candidate;
    // transitionToCandidate: an election or fetch timeout, or a candidate's retry
    // (before KIP-996), or a prospective's pre-vote majority; never from Leader.
    case Candidate: return from != Leader;
    // transitionToLeader: only a candidate, once a majority granted its votes.
    case Leader: return from == Candidate;
    // transitionToFollower: a leader of this epoch or a larger one is learned. A
    // leader follows only a larger epoch's leader, as a follower does another's.
    case Follower: return true;
    // transitionToResigned: only a leader.
    case Resigned: return from == Leader;
  }
  return false;
}

}  // namespace ksim::models
