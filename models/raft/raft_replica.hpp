#pragma once
// One replica of the KRaft metadata log (KafkaRaftClient, KIP-595): a voter
// of the controller quorum or an observer (a broker). It is not a node: a
// node hosts it through RaftHost (raft_host.hpp), and a new process builds a
// new replica on the RaftPersistentState its crash left.
//
// Voters elect a leader per epoch: a voter that hears from no leader for its
// randomized election timeout (or a follower whose fetches fail for the
// fetch timeout) becomes a candidate of the next epoch and asks the others
// with Vote; a voter grants one vote per epoch, to a candidate whose log
// (last epoch, end offset) is at least as up to date as its own. The winner
// announces itself with BeginQuorumEpoch and writes a LeaderChange record.
// Followers and observers replicate by fetching from the leader; the leader
// answers a fetch whose last epoch does not match its log with a diverging
// epoch, and the fetcher truncates to it. The high watermark is the offset a
// majority of voters has fetched (flushed), once an entry of the leader's
// epoch is in it. A leader that hears no fetches from a majority resigns and
// sends EndQuorumEpoch. With KIP-996's pre-vote (RaftConfig::pre_vote, Kafka
// 4.0+) a voter whose timeout expires is first Prospective: it asks the voters
// whether they would vote for it (a Vote with PreVote=true in its own epoch,
// which changes nothing on them; a follower that has fetched from its leader
// says no) and becomes a candidate only with a majority of them; otherwise it
// goes back to following the leader it knew, or to Unattached, in the same
// epoch. Like KafkaRaftClient it polls: after every message,
// timer and append it does what its role's poll does, then asks its host for
// a timer at the next deadline.
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/raft/raft_candidate_state.hpp"
#include "models/raft/raft_config.hpp"
#include "models/raft/raft_host.hpp"
#include "models/raft/raft_leader_state.hpp"
#include "models/raft/raft_messages.hpp"
#include "models/raft/raft_persistent_state.hpp"
#include "models/raft/raft_request_manager.hpp"
#include "models/raft/raft_role.hpp"

namespace ksim::models {

struct RaftReplicaStats {
  std::uint64_t elections_started = 0;   // became a candidate
  std::uint64_t elections_won = 0;       // became the leader
  std::uint64_t resignations = 0;        // a leader resigned (check quorum, or resign())
  std::uint64_t truncations = 0;         // diverging-epoch truncations of this replica's log
  std::uint64_t truncated_entries = 0;   // entries they removed
  std::uint64_t fetches_sent = 0;
  // KIP-996
  std::uint64_t prospective = 0;         // became Prospective (asked for pre-votes)
  std::uint64_t pre_votes_won = 0;       // a majority granted them: became a candidate
  std::uint64_t pre_votes_lost = 0;      // rejected by a majority, or the election timeout passed
  std::uint64_t pre_votes_granted = 0;   // as a voter: pre-votes this replica granted
  std::uint64_t pre_votes_rejected = 0;  // and rejected
};

class RaftReplica {
 public:
  // `voters`: the static voter set (controller.quorum.voters); `id` is an
  // observer when it is not in it. `state` outlives the replica.
  RaftReplica(RaftHost& host, RaftNodeId id, std::vector<RaftNodeId> voters, const RaftConfig& config,
              RaftPersistentState& state);
  ~RaftReplica();
  RaftReplica(const RaftReplica&) = delete;
  RaftReplica& operator=(const RaftReplica&) = delete;

  // Takes the role the persisted state gives (QuorumState.initialize) and starts polling.
  void start();

  // ---- from the host ----
  void handle(const Message& message);  // a Raft message (is_raft_message) addressed to this replica
  void on_timer();                      // the timer asked for with RaftHost::set_timer fired
  void on_disconnected(RaftNodeId peer);

  // ---- the leader's API (RaftClient) ----
  // prepareAppend: `records` as one batch, written after the append linger.
  // The offset of its last record, or none unless this replica leads `epoch`.
  std::optional<Offset> append(Epoch epoch, std::vector<RaftRecordPtr> records);
  // resign(epoch): a leader of `epoch` steps down (Resigned, then EndQuorumEpoch).
  void resign(Epoch epoch);

  // ---- state ----
  RaftNodeId id() const { return id_; }
  bool is_voter() const;
  const std::vector<RaftNodeId>& voters() const { return voters_; }
  RaftRole role() const { return role_; }
  Epoch epoch() const { return state_.election().epoch; }
  RaftNodeId leader() const { return state_.election().leader; }  // kNoRaftNode when unknown
  // What this replica knows is committed (none after a restart until a leader says).
  std::optional<Offset> high_watermark() const;
  // True once on_become_leader fired for the current epoch: append() is safe for the state machine.
  bool leader_ready() const { return role_ == RaftRole::Leader && fired_leader_ == id_ && fired_epoch_ == epoch(); }
  const RaftLog& log() const { return state_.log(); }
  const RaftReplicaStats& stats() const { return stats_; }

 private:
  // A fetch the leader holds until it has new entries or its max wait passes (the fetch purgatory).
  struct ParkedFetch {
    RaftNodeId replica = kNoRaftNode;
    std::int64_t correlation_id = 0;
    Epoch current_leader_epoch = 0;
    Offset fetch_offset = 0;
    Epoch last_fetched_epoch = 0;
    std::uint64_t max_bytes = 0;
    SimTime deadline = 0;
    Offset high_watermark = -1;  // KIP-1166: the fetcher's
  };
  enum class Outcome { Handled, Failed, Continue };  // maybeHandleCommonResponse's answers

  // raft_replica.cpp: polling, roles and transitions
  void poll();
  SimTime poll_role();
  SimTime poll_leader();
  SimTime poll_candidate();
  SimTime poll_prospective();
  SimTime poll_follower();
  SimTime poll_unattached();
  SimTime poll_resigned();
  void fire_listeners();
  void arm_timer(SimTime deadline);
  void become(RaftRole to, const RaftElection& election);
  void transition_to_unattached(Epoch epoch);
  void transition_to_voted(RaftNodeId candidate);
  void transition_to_prospective();
  void transition_after_pre_vote_loss();
  void stand();  // an election or fetch timeout: Prospective with KIP-996, else Candidate
  void transition_to_candidate();
  void transition_to_leader();
  void transition_to_follower(Epoch epoch, RaftNodeId leader);
  void transition_to_resigned();
  SimTime random_election_timeout();
  bool has_leader() const { return leader() != kNoRaftNode; }

  // raft_replica_election.cpp: Vote, BeginQuorumEpoch, EndQuorumEpoch, and what all responses share
  void handle_vote(const VoteRequest& request);
  bool can_grant_vote(const VoteRequest& request, bool log_up_to_date) const;
  void handle_vote_response(const VoteResponse& response);
  void handle_begin_quorum_epoch(const BeginQuorumEpochRequest& request);
  void handle_begin_quorum_epoch_response(const BeginQuorumEpochResponse& response);
  void handle_end_quorum_epoch(const EndQuorumEpochRequest& request);
  void handle_end_quorum_epoch_response(const EndQuorumEpochResponse& response);
  Outcome handle_common_response(const RaftResponseFields& response);
  // Every response: ignored unless expected; then the common handling; then, if
  // the response is this API's to handle and carries no error, `on_success`.
  template <class OnSuccess>
  void handle_response(const RaftResponseFields& response, OnSuccess on_success);
  void maybe_transition(RaftNodeId leader, Epoch epoch);
  SimTime send_vote_requests();
  void send_begin_quorum_epoch();
  SimTime send_end_quorum_epoch();
  template <class Request>
  void send_request(RaftNodeId to, std::unique_ptr<Request> request);
  template <class Response>
  void respond(RaftNodeId to, std::int64_t correlation_id, std::unique_ptr<Response> response, Error error);
  SimTime election_backoff(int retries);
  SimTime end_epoch_backoff(const std::vector<RaftNodeId>& preferred_successors) const;

  // raft_replica_fetch.cpp: replication, the high watermark, appends and flushes
  void handle_fetch(const MetadataFetchRequest& request);
  void handle_fetch_response(const MetadataFetchResponse& response);
  std::unique_ptr<MetadataFetchResponse> try_complete_fetch(const ParkedFetch& fetch);
  void answer_parked_fetches(bool all);
  SimTime parked_fetch_deadline() const;
  bool has_news_for(const ParkedFetch& fetch) const;
  SimTime maybe_send_fetch(RaftNodeId to);
  SimTime send_fetch_to_any_voter();
  void update_follower_high_watermark(Offset leader_high_watermark);
  void drain_appends();
  void maybe_start_flush();
  void complete_flush_if_due();
  bool flush_before_fetch() const;

  RaftHost& host_;
  RaftNodeId id_;
  std::vector<RaftNodeId> voters_;  // sorted
  RaftConfig config_;
  RaftPersistentState& state_;
  std::string name_;  // for checked transitions
  RaftRequestManager requests_;
  RaftRole role_ = RaftRole::Unattached;

  SimTime election_deadline_ = kNever;  // Unattached, Voted, Prospective, Candidate, Resigned (kNever for observers)
  SimTime fetch_deadline_ = kNever;     // Follower
  bool fetched_from_leader_ = false;    // Follower: a fetch from its leader succeeded (FollowerState.hasFetchedFromLeader)
  RaftCandidateState candidate_;        // Candidate's votes, or (KIP-996) Prospective's pre-votes
  std::optional<RaftLeaderState> leader_state_;
  bool resign_requested_ = false;
  std::set<RaftNodeId> unacked_resignation_;  // Resigned: voters yet to answer EndQuorumEpoch
  std::vector<RaftNodeId> preferred_successors_;
  std::optional<Offset> high_watermark_;  // any role but Leader's (its own is leader_state_'s)

  std::vector<std::vector<RaftRecordPtr>> pending_;  // the leader's appends waiting for the linger
  Offset next_offset_ = 0;
  SimTime linger_deadline_ = kNever;
  Offset flush_target_ = -1;  // an fsync in progress makes [0, flush_target_) durable
  SimTime flush_done_at_ = kNever;
  std::vector<ParkedFetch> parked_;

  Offset delivered_ = 0;  // the listener's next offset: on_committed told everything below
  RaftNodeId fired_leader_ = kNoRaftNode;  // the last leader change the host heard
  Epoch fired_epoch_ = 0;  // LeaderAndEpoch.UNKNOWN: epoch 0, no leader

  TimerId timer_;
  SimTime timer_deadline_ = kNever;
  bool polling_ = false;
  bool repoll_ = false;
  std::int64_t next_correlation_id_ = 1;
  RaftReplicaStats stats_;
};

template <class Request>
void RaftReplica::send_request(RaftNodeId to, std::unique_ptr<Request> request) {
  request->correlation_id = next_correlation_id_++;
  request->source = id_;
  requests_.on_sent(to, request->correlation_id, host_.now());
  host_.send(to, std::move(request));
}

// KafkaRaftClient.handleResponse and RequestManager.onResponseResult.
template <class OnSuccess>
void RaftReplica::handle_response(const RaftResponseFields& response, OnSuccess on_success) {
  if (!requests_.is_response_expected(response.source, response.correlation_id)) return;
  const Outcome outcome = handle_common_response(response);
  bool success = outcome == Outcome::Handled;
  if (outcome == Outcome::Continue) {
    success = response.error == Error::None;
    if (success) on_success();
  }
  requests_.on_response(response.source, response.correlation_id, success, host_.now());
}

// Every Raft response carries this replica's epoch and the leader it knows.
template <class Response>
void RaftReplica::respond(RaftNodeId to, std::int64_t correlation_id, std::unique_ptr<Response> response,
                          Error error) {
  response->correlation_id = correlation_id;
  response->source = id_;
  response->error = error;
  response->leader_epoch = epoch();
  response->leader_id = leader();
  host_.send(to, std::move(response));
}

}  // namespace ksim::models
