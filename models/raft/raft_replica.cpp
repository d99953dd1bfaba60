// RaftReplica: starting, polling, and the transitions between roles
// (KafkaRaftClient's poll* and transitionTo* methods, QuorumState).
#include "models/raft/raft_replica.hpp"

#include <algorithm>
#include <cassert>

#include "sim/core/state_machine.hpp"

namespace ksim::models {

RaftReplica::RaftReplica(RaftHost& host, RaftNodeId id, std::vector<RaftNodeId> voters, const RaftConfig& config,
                         RaftPersistentState& state)
    : host_(host),
      id_(id),
      voters_(std::move(voters)),
      config_(config),
      state_(state),
      name_(std::to_string(id)),
      requests_(config.request_timeout, config.retry_backoff) {
  std::sort(voters_.begin(), voters_.end());
  assert(!voters_.empty() && "a quorum has voters");
  assert(std::adjacent_find(voters_.begin(), voters_.end()) == voters_.end() && "voters are distinct");
  assert(config_.election_timeout > 0 && config_.fetch_timeout > 0);
}

RaftReplica::~RaftReplica() {
  if (timer_) host_.cancel_timer(timer_);
}

bool RaftReplica::is_voter() const { return std::binary_search(voters_.begin(), voters_.end(), id_); }

std::optional<Offset> RaftReplica::high_watermark() const {
  return role_ == RaftRole::Leader ? leader_state_->high_watermark() : high_watermark_;
}

SimTime RaftReplica::random_election_timeout() {
  const auto spread = static_cast<std::uint64_t>(config_.election_timeout);
  return host_.now() + config_.election_timeout + static_cast<SimTime>(host_.random().below(spread));
}

// QuorumState.initialize, then KafkaRaftClient.initialize's first steps. The
// role the persisted election gives is where this process starts, not a transition.
void RaftReplica::start() {
  const RaftElection election = state_.election();
  const RaftLog& log = state_.log();
  const bool voter = is_voter();
  assert((voter || (!election.has_voted() && election.leader != id_)) && "an observer never votes or leads");
  if (election.epoch < log.last_epoch()) {
    // The log has an epoch the election state never recorded: take it, with no leader known.
    role_ = RaftRole::Unattached;
    state_.write_election({log.last_epoch(), kNoRaftNode, kNoRaftNode});
  } else if (election.leader == id_) {
    // A leader restarts Resigned in its epoch: it may not vote in it, and
    // entries it lost with unflushed data are never written again at their offsets.
    role_ = RaftRole::Resigned;
    for (const RaftNodeId v : voters_) {
      if (v != id_) unacked_resignation_.insert(v);
    }
  } else if (election.voted_for == id_) {
    role_ = RaftRole::Candidate;
    candidate_ = RaftCandidateState(id_, voters_, 1);
  } else if (election.has_voted()) {
    role_ = RaftRole::Voted;
  } else if (election.has_leader()) {
    role_ = RaftRole::Follower;
    fetch_deadline_ = host_.now() + config_.fetch_timeout;
  } else {
    role_ = RaftRole::Unattached;
  }
  if (voter && role_ != RaftRole::Follower) election_deadline_ = random_election_timeout();
  if (role_ == RaftRole::Candidate && candidate_.won()) {
    transition_to_leader();  // onBecomeCandidate: a single voter wins at once
  } else if (voter && voters_.size() == 1 && role_ != RaftRole::Candidate) {
    stand();
  }
  poll();
}

void RaftReplica::handle(const Message& message) {
  assert(is_raft_message(message));
  const ApiMessage& m = api_message(message);
  const ApiKey key = m.api_key();
  if (key == ApiKey::Vote) {
    if (m.is_response()) handle_vote_response(message_as<VoteResponse>(m));
    else handle_vote(message_as<VoteRequest>(m));
  } else if (key == ApiKey::BeginQuorumEpoch) {
    if (m.is_response()) handle_begin_quorum_epoch_response(message_as<BeginQuorumEpochResponse>(m));
    else handle_begin_quorum_epoch(message_as<BeginQuorumEpochRequest>(m));
  } else if (key == ApiKey::EndQuorumEpoch) {
    if (m.is_response()) handle_end_quorum_epoch_response(message_as<EndQuorumEpochResponse>(m));
    else handle_end_quorum_epoch(message_as<EndQuorumEpochRequest>(m));
  } else if (m.is_response()) {
    handle_fetch_response(message_as<MetadataFetchResponse>(m));
  } else {
    handle_fetch(message_as<MetadataFetchRequest>(m));
  }
  poll();
}

void RaftReplica::on_timer() {
  timer_ = TimerId{};
  timer_deadline_ = kNever;
  poll();
}

void RaftReplica::on_disconnected(RaftNodeId peer) {
  requests_.on_disconnected(peer, host_.now());
  poll();
}

std::optional<Offset> RaftReplica::append(Epoch epoch, std::vector<RaftRecordPtr> records) {
  if (role_ != RaftRole::Leader || epoch != this->epoch() || records.empty()) return std::nullopt;
  // BatchAccumulator.maybeResetLinger: the first append starts the linger.
  if (pending_.empty()) linger_deadline_ = host_.now() + config_.append_linger;
  next_offset_ += static_cast<Offset>(records.size());
  pending_.push_back(std::move(records));
  poll();
  return next_offset_ - 1;
}

void RaftReplica::resign(Epoch epoch) {
  if (role_ != RaftRole::Leader || epoch != this->epoch()) return;  // already another epoch: fulfilled
  resign_requested_ = true;
  poll();
}

// KafkaRaftClient.poll: the role's poll, then the listeners (pollListeners),
// again while something is due now; then one timer at the next deadline.
void RaftReplica::poll() {
  if (polling_) {
    repoll_ = true;  // an append or resign from a callback
    return;
  }
  polling_ = true;
  for (int round = 0;; ++round) {
    assert(round < 64 && "a replica's poll does not settle");
    repoll_ = false;
    complete_flush_if_due();
    answer_parked_fetches(false);
    SimTime deadline = poll_role();
    fire_listeners();
    deadline = std::min({deadline, flush_done_at_, parked_fetch_deadline()});
    if (!repoll_ && deadline > host_.now()) {
      arm_timer(deadline);
      break;
    }
  }
  polling_ = false;
}

SimTime RaftReplica::poll_role() {
  switch (role_) {
    case RaftRole::Leader: return poll_leader();
    case RaftRole::Candidate: return poll_candidate();
    case RaftRole::Prospective: return poll_prospective();
    case RaftRole::Follower: return poll_follower();
    case RaftRole::Unattached:
    case RaftRole::Voted: return poll_unattached();
    case RaftRole::Resigned: return poll_resigned();
  }
  return kNever;
}

void RaftReplica::arm_timer(SimTime deadline) {
  if (deadline == timer_deadline_ && timer_) return;
  if (timer_) host_.cancel_timer(timer_);
  timer_ = TimerId{};
  timer_deadline_ = deadline;
  if (deadline != kNever) timer_ = host_.set_timer(deadline - host_.now());
}

// KafkaRaftClient.pollLeader.
SimTime RaftReplica::poll_leader() {
  const SimTime now = host_.now();
  if (resign_requested_ || now >= leader_state_->check_quorum_deadline()) {
    transition_to_resigned();
    return now;
  }
  if (!pending_.empty() && now >= linger_deadline_) drain_appends();
  maybe_start_flush();
  if (now >= leader_state_->begin_quorum_epoch_deadline()) send_begin_quorum_epoch();
  return std::min({linger_deadline_, leader_state_->check_quorum_deadline(),
                   leader_state_->begin_quorum_epoch_deadline()});
}

// KafkaRaftClient.pollCandidate: vote requests until the election times out,
// then a random backoff (binary exponential in the retries), then the next
// epoch (with KIP-996, Prospective first: pre-votes again).
SimTime RaftReplica::poll_candidate() {
  const SimTime now = host_.now();
  if (candidate_.backing_off()) {
    if (now < candidate_.backoff_deadline()) return candidate_.backoff_deadline();
    stand();
    return now;
  }
  if (now >= election_deadline_) {
    candidate_.start_backoff(now + election_backoff(candidate_.retries()));
    return candidate_.backoff_deadline();
  }
  return std::min(election_deadline_, send_vote_requests());
}

// KafkaRaftClient.pollProspective (KIP-996): pre-votes until a majority grants
// them (handle_vote_response makes it a candidate) or rejects them, or the
// election timeout passes; then it goes back (prospectiveTransitionAfterElectionLoss).
SimTime RaftReplica::poll_prospective() {
  const SimTime now = host_.now();
  if (candidate_.lost() || now >= election_deadline_) {
    transition_after_pre_vote_loss();
    return now;
  }
  return std::min(election_deadline_, send_vote_requests());
}

// pollFollowerAsVoter and pollFollowerAsObserver.
SimTime RaftReplica::poll_follower() {
  const SimTime now = host_.now();
  const RaftNodeId leader = this->leader();
  if (is_voter()) {
    if (now >= fetch_deadline_) {
      stand();
      return now;
    }
    return std::min(fetch_deadline_, maybe_send_fetch(leader));
  }
  // An observer whose leader stopped answering asks any voter who leads now.
  if (now >= fetch_deadline_) return send_fetch_to_any_voter();
  if (requests_.timed_out(leader, now)) {
    requests_.reset(leader);
    return std::min(fetch_deadline_, send_fetch_to_any_voter());
  }
  if (requests_.backing_off(leader, now)) return std::min(fetch_deadline_, send_fetch_to_any_voter());
  return std::min(fetch_deadline_, maybe_send_fetch(leader));
}

// pollUnattachedAsVoter (an election timeout starts an election) and pollUnattachedAsObserver.
SimTime RaftReplica::poll_unattached() {
  if (!is_voter()) return send_fetch_to_any_voter();
  if (host_.now() < election_deadline_) return election_deadline_;
  stand();
  return host_.now();
}

// KafkaRaftClient.pollResigned: EndQuorumEpoch to voters until they answer;
// the election timeout makes it a candidate. With KIP-996 it moves to the next
// epoch Unattached instead, its election timer expired (it would otherwise be
// a prospective that follows itself when it loses): Prospective at once.
SimTime RaftReplica::poll_resigned() {
  const SimTime retry = send_end_quorum_epoch();
  if (host_.now() < election_deadline_) return std::min(election_deadline_, retry);
  if (config_.pre_vote) {
    transition_to_unattached(epoch() + 1);
    election_deadline_ = host_.now();
  } else {
    transition_to_candidate();
  }
  return host_.now();
}

// updateListenersProgress and ListenerContext.maybeFireLeaderChange.
void RaftReplica::fire_listeners() {
  if (const auto hw = high_watermark(); hw && *hw > delivered_) {
    assert(*hw <= log().end_offset());
    const Offset from = delivered_;
    delivered_ = *hw;
    host_.on_committed(from, *hw);
  }
  if (role_ == RaftRole::Resigned) return;  // KAFKA-17333: a resigned leader tells nothing
  const RaftNodeId leader = this->leader();
  const Epoch epoch = this->epoch();
  const bool news = epoch > fired_epoch_ || (leader != kNoRaftNode && fired_leader_ == kNoRaftNode);
  if (!news) return;
  if (role_ == RaftRole::Leader) {
    // The local leader is announced once the listener holds everything before its epoch.
    if (delivered_ <= leader_state_->epoch_start_offset()) return;
    fired_leader_ = leader;
    fired_epoch_ = epoch;
    host_.on_become_leader(epoch);
    return;
  }
  fired_leader_ = leader;
  fired_epoch_ = epoch;
  host_.on_become_follower(leader, epoch);
}

// QuorumState.durableTransitionTo: the election state is written before the role changes.
void RaftReplica::become(RaftRole to, const RaftElection& election) {
  check_transition(role_, to, "raft replica", name_);
  const bool was_leader = role_ == RaftRole::Leader;
  if (was_leader) high_watermark_ = to == RaftRole::Resigned ? std::nullopt : leader_state_->high_watermark();
  state_.write_election(election);
  role_ = to;
  if (was_leader) {
    // The accumulator's appends fail, and held fetches are answered NOT_LEADER_OR_FOLLOWER.
    leader_state_.reset();
    pending_.clear();
    linger_deadline_ = kNever;
    resign_requested_ = false;
    answer_parked_fetches(true);
  }
  if (to != RaftRole::Resigned) {
    unacked_resignation_.clear();
    preferred_successors_.clear();
  }
}

void RaftReplica::transition_to_unattached(Epoch epoch) {
  assert(epoch > this->epoch());
  const bool keeps_timer = role_ == RaftRole::Candidate || role_ == RaftRole::Unattached ||
                           role_ == RaftRole::Voted || (role_ == RaftRole::Prospective && !candidate_.lost());
  become(RaftRole::Unattached, {epoch, kNoRaftNode, kNoRaftNode});
  if (!is_voter()) election_deadline_ = kNever;
  else if (!keeps_timer) election_deadline_ = random_election_timeout();
  requests_.reset_all();
}

// The election timer restarts: the candidate voted for has as good a chance as this replica.
void RaftReplica::transition_to_voted(RaftNodeId candidate) {
  assert(candidate != id_ && is_voter());
  become(RaftRole::Voted, {epoch(), kNoRaftNode, candidate});
  election_deadline_ = random_election_timeout();
}

// An election or fetch timeout, or a candidate's backoff ended.
void RaftReplica::stand() {
  if (config_.pre_vote) transition_to_prospective();
  else transition_to_candidate();
}

// QuorumState.transitionToProspective (KIP-996), a soft state: the election
// state stays as it is (its epoch, and the leader it knew or its vote), and
// onBecomeProspective: a single voter's own pre-vote is a majority.
void RaftReplica::transition_to_prospective() {
  assert(is_voter() && config_.pre_vote && "only a voter asks for pre-votes");
  const int retries = role_ == RaftRole::Candidate ? candidate_.retries() + 1 : 1;
  become(RaftRole::Prospective, state_.election());
  candidate_ = RaftCandidateState(id_, voters_, retries);
  election_deadline_ = random_election_timeout();
  ++stats_.prospective;
  requests_.reset_all();
  if (candidate_.won()) {
    ++stats_.pre_votes_won;
    transition_to_candidate();
  }
}

// prospectiveTransitionAfterElectionLoss: it follows the leader it knew again
// (a new fetch timeout), or is Unattached in its epoch (Voted, if it voted in
// it): a new random election timeout after a rejection (the backoff), the timer
// it had (expired) after the election timeout.
void RaftReplica::transition_after_pre_vote_loss() {
  assert(role_ == RaftRole::Prospective);
  ++stats_.pre_votes_lost;
  const RaftElection election = state_.election();
  if (election.has_leader()) return transition_to_follower(election.epoch, election.leader);
  const bool rejected = candidate_.lost();
  become(election.has_voted() ? RaftRole::Voted : RaftRole::Unattached, election);
  if (rejected) election_deadline_ = random_election_timeout();
  requests_.reset_all();
}

void RaftReplica::transition_to_candidate() {
  assert(is_voter() && "an observer never stands");
  assert((!config_.pre_vote || role_ == RaftRole::Prospective || role_ == RaftRole::Candidate) &&
         "with KIP-996 only a prospective (or a restarted candidate) stands");
  const int retries = role_ == RaftRole::Candidate ? candidate_.retries() + 1
                      : role_ == RaftRole::Prospective ? candidate_.retries()
                                                        : 1;
  become(RaftRole::Candidate, {epoch() + 1, kNoRaftNode, id_});
  candidate_ = RaftCandidateState(id_, voters_, retries);
  election_deadline_ = random_election_timeout();
  ++stats_.elections_started;
  if (candidate_.won()) return transition_to_leader();
  requests_.reset_all();
}

// onBecomeLeader: the new epoch starts at the log's end with a LeaderChange record.
void RaftReplica::transition_to_leader() {
  assert(role_ == RaftRole::Candidate && candidate_.won());
  const Offset epoch_start = log().end_offset();
  become(RaftRole::Leader, {epoch(), id_, kNoRaftNode});
  leader_state_.emplace(id_, epoch(), epoch_start, voters_, host_.now(), config_.fetch_timeout);
  leader_state_->update_local(log().flushed_end_offset());
  auto change = std::make_shared<LeaderChangeRecord>();
  change->leader = id_;
  change->voters = voters_;
  change->granting_voters = candidate_.granting_voters();
  const RaftRecordPtr record = std::move(change);
  state_.log().append_batch(epoch(), std::span<const RaftRecordPtr>(&record, 1));
  next_offset_ = log().end_offset();
  election_deadline_ = kNever;
  ++stats_.elections_won;
  requests_.reset_all();
  maybe_start_flush();
}

void RaftReplica::transition_to_follower(Epoch epoch, RaftNodeId leader) {
  assert(leader != id_ && leader != kNoRaftNode);
  assert(epoch >= this->epoch());
  assert((epoch > this->epoch() || (role_ != RaftRole::Leader && role_ != RaftRole::Follower)) &&
         "one leader per epoch");
  become(RaftRole::Follower, {epoch, leader, kNoRaftNode});
  fetch_deadline_ = host_.now() + config_.fetch_timeout;
  fetched_from_leader_ = false;
  election_deadline_ = kNever;
  requests_.reset_all();
}

// A soft state (memoryTransitionTo): the election state already names this leader.
void RaftReplica::transition_to_resigned() {
  preferred_successors_ = leader_state_->voters_by_descending_fetch_offset();
  become(RaftRole::Resigned, state_.election());
  for (const RaftNodeId v : voters_) {
    if (v != id_) unacked_resignation_.insert(v);
  }
  election_deadline_ = random_election_timeout();
  ++stats_.resignations;
  requests_.reset_all();
}

}  // namespace ksim::models
