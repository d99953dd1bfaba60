// Group membership of the consumer, as Kafka's AbstractCoordinator and
// ConsumerCoordinator (classic protocol): FindCoordinator, JoinGroup and
// SyncGroup from inside poll(), the heartbeat thread (KIP-62), eager and
// cooperative rebalances (KIP-429), static membership (KIP-345).
#include <algorithm>
#include <cassert>

#include "models/client/consumer/consumer.hpp"
#include "models/client/consumer/assignors/assignor.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

MemberIdentity Consumer::identity() const { return MemberIdentity{generation_, member_id_, config_.group_instance_id}; }

void Consumer::stop(std::string_view reason) {
  publish(ConsumerStopped{reason});
  record_event(ConsumerEventKind::Stopped, std::string(reason));
  in_member_rebalance_ = false;  // its part in a rebalance ends here, as at a crash (the checker reads the stop so)
  lose_all_partitions();
  app_ = AppState::Stopped;
}

// FENCED_INSTANCE_ID is fatal: another process has this group.instance.id.
void Consumer::fenced() {
  record_event(ConsumerEventKind::Fenced);
  stop("fenced: another member has this group.instance.id");
}

void Consumer::member_rebalance(bool in) {
  if (in == in_member_rebalance_) return;
  in_member_rebalance_ = in;
  record_event(in ? ConsumerEventKind::RebalanceJoined : ConsumerEventKind::AssignmentSettled);
}

// ---- the coordinator ----

void Consumer::find_coordinator() {
  if (find_correlation_ >= 0 || coordinator_ != kNoBroker) return;
  if (now() < find_backoff_until_) {
    set_timer(find_backoff_until_ - now(), [this] { find_coordinator(); });
    return;
  }
  if (const auto sent = send_find_coordinator(config_.group_id)) {
    const std::int64_t correlation = find_correlation_ = sent->first;
    find_connection_ = sent->second;
    set_timer(config_.request_timeout, [this, correlation] {
      if (find_correlation_ != correlation) return;
      find_correlation_ = -1;
      coordinator_lookup_failed(Error::RequestTimedOut);
      disconnect_timed_out(find_connection_);
      find_coordinator();
    });
    return;
  }
  coordinator_lookup_failed(Error::NetworkException);
  set_timer(config_.retry_backoff, [this] { find_coordinator(); });
}

// The classic consumer chains an async commit made while the coordinator is
// unknown to the lookup under way: when the lookup fails, so does the commit,
// with a RetriableCommitFailedException (ConsumerCoordinator.commitOffsetsAsync);
// it is not kept for a later lookup. KIP-848's consumer keeps it queued until
// the coordinator is known (CommitRequestManager's unsent commits).
void Consumer::coordinator_lookup_failed(Error error) {
  if (config_.consumer_protocol) return;
  std::vector<std::int64_t> failed;
  for (const auto& [correlation, commit] : commits_) {
    if (!commit.sync && !commit.sent) failed.push_back(correlation);
  }
  for (const std::int64_t correlation : failed) {
    if (commits_.at(correlation).auto_commit) auto_commit_failed();
    fail_commit(correlation, error);
  }
}

void Consumer::handle_find_coordinator(const FindCoordinatorResponse& response) {
  if (response.correlation_id != find_correlation_) return;
  find_correlation_ = -1;
  if (response.error != Error::None) {
    coordinator_lookup_failed(response.error);
    set_timer(config_.retry_backoff, [this] { find_coordinator(); });
    return;
  }
  // A connection of its own, as Kafka's client uses for the coordinator.
  coordinator_ = response.coordinator;
  coordinator_connection_ = connect(directory().broker_nodes[static_cast<std::size_t>(coordinator_)]);
  coordinator_connected_ = true;
  last_heartbeat_response_ = now();  // Kafka's heartbeat.resetSessionTimeout() on discovery
  publish(CoordinatorFound{coordinator_});
  if (config_.consumer_protocol && membership_ != Membership::Unsubscribed) schedule_consumer_heartbeat(0);
  for (auto& [correlation, commit] : commits_) {
    if (!commit.sent) send_commit(correlation);
  }
  update_positions();
  wake_app();
}

// Kafka's markCoordinatorUnknown: requests in flight to it fail; it is looked up again.
void Consumer::coordinator_unknown(std::string_view why) {
  if (coordinator_ == kNoBroker) return;
  publish(CoordinatorLost{why});
  if (coordinator_connected_) close(coordinator_connection_);
  coordinator_ = kNoBroker;
  coordinator_connected_ = false;
  if (member_ == MemberState::Joining || member_ == MemberState::Syncing) {
    member_ = MemberState::Unjoined;
    rejoin_needed_ = true;
  }
  if (heartbeat_correlation_ >= 0) heartbeat_failed();  // the one in flight failed with the connection
  cg_heartbeat_correlation_ = -1;  // KIP-848's: sent again once the coordinator is found
  heartbeat_correlation_ = -1;
  group_correlation_ = -1;
  offset_fetch_correlation_ = -1;
  for (auto& [p, state] : partitions_) {
    if (state.position_state == PositionState::FetchingCommitted) set_position_state(state, PositionState::Unknown);
  }
  std::vector<std::int64_t> async_failed;
  for (auto& [correlation, commit] : commits_) {
    if (!commit.sync) async_failed.push_back(correlation);
    commit.sent = false;  // sync commits go again to the next coordinator
    if (commit.auto_commit) auto_commit_failed();  // failed with a RetriableCommitFailedException
  }
  // commitAsync does not retry: the request in flight fails with the
  // coordinator's connection (DisconnectException, retriable for the callback).
  for (const std::int64_t correlation : async_failed) fail_commit(correlation, Error::NetworkException);
  find_backoff_until_ = now() + config_.retry_backoff;
  find_coordinator();
  wake_app();
}

void Consumer::send_to_coordinator(MessagePtr request) {
  assert(coordinator_ready());
  send(coordinator_connection_, std::move(request));
}

// ---- joining ----

std::int32_t Consumer::known_topic_partitions() const {
  return main_topic_missing() ? 0 : directory().topics[static_cast<std::size_t>(workload_.topic)].partitions;
}

// ConsumerCoordinator.rejoinNeededOrPending: the leader's assignment snapshot
// no longer matches the metadata (its topic was created since, say). The
// snapshot stays until the next assignment, so a change seen while the
// rebalance that made it completes asks again once it has (handle_sync_group).
void Consumer::check_assignment_snapshot() {
  if (assigned_topic_partitions_ < 0 || assigned_topic_partitions_ == known_topic_partitions()) return;
  request_rejoin("cached metadata has changed");
}

void Consumer::request_rejoin(std::string reason) {
  if (!rejoin_needed_) rejoin_reason_ = std::move(reason);
  rejoin_needed_ = true;
  wake_app();
}

void Consumer::reset_generation(bool forget_member_id, std::string reason) {
  rejoin_reason_ = std::move(reason);
  new_assignment_.reset();
  generation_ = -1;
  if (forget_member_id) member_id_.clear();
  member_ = MemberState::Unjoined;
  rejoin_needed_ = true;
  wake_app();
}

// Inside poll(): Kafka's onJoinPrepare, then JoinGroup (its response, the
// leader's assignment and SyncGroup are handled by the network thread, as the
// Java client's response handlers do). True when the
// application is now blocked (a commitSync before rejoining).
bool Consumer::maybe_rejoin() {
  if (!rejoin_needed_ || member_ == MemberState::Joining || member_ == MemberState::Syncing) return false;
  if (!coordinator_ready()) return false;
  if (now() < join_backoff_until_) {
    set_timer(join_backoff_until_ - now(), [this] { wake_app(); });
    return false;
  }
  const bool eager = protocol_kind_ == RebalanceProtocol::Eager;
  if (generation_ < 0 || member_id_.empty()) {
    lose_all_partitions();  // onPartitionsLost: no commit, the generation is gone
  } else if (!partitions_.empty() && (config_.enable_auto_commit || (eager && commits_on_revocation()))) {
    // Kafka 3.x auto-commits what was consumed before it rejoins, with either
    // protocol; an eager member's onPartitionsRevoked commits here too. The
    // auto-commit is retried until the join-prepare timer, the rebalance
    // timeout (ConsumerCoordinator.onJoinPrepare's joinPrepareTimer:
    // max.poll.interval.ms), runs out; the listener's commitSync has
    // default.api.timeout.ms.
    commit_sync(consumed_offsets(), AfterCommit::Rejoin,
                config_.enable_auto_commit ? config_.max_poll_interval : config_.default_api_timeout);
    return true;
  } else if (eager) {
    revoke_all();
  }
  send_join_group();
  return false;
}

void Consumer::revoke_all() {
  std::vector<std::int32_t> all;
  for (const auto& [p, state] : partitions_) all.push_back(p);
  revoke(all);
}

void Consumer::send_join_group() {
  auto request = std::make_unique<JoinGroupRequest>();
  group_correlation_ = request->correlation_id = next_correlation_id();
  request->group = config_.group_id;
  request->member = identity();
  request->client_id = name();
  request->session_timeout = config_.session_timeout;
  request->rebalance_timeout = config_.max_poll_interval;
  request->protocols = config_.partition_assignment_strategy;
  request->subscription.topics = {workload_.topic};
  request->subscription.generation = generation_;
  if (protocol_kind_ == RebalanceProtocol::Cooperative) {
    for (const auto& [p, state] : partitions_) request->subscription.owned.push_back({workload_.topic, p});
  } else {
    request->subscription.owned = last_assignment_;  // StickyAssignor's userData
  }
  for (const auto& [p, state] : partitions_) request->owned_partitions.push_back({workload_.topic, p});
  request->reason = rejoin_reason_;
  member_ = MemberState::Joining;
  rejoin_needed_ = false;
  member_rebalance(true);
  publish(JoinSent{rejoin_reason_});
  send_to_coordinator(std::move(request));
}

void Consumer::handle_join_group(const JoinGroupResponse& response) {
  if (response.correlation_id != group_correlation_ || member_ != MemberState::Joining) return;
  group_correlation_ = -1;
  switch (response.error) {
    case Error::None: break;
    case Error::MemberIdRequired:  // KIP-394
      member_id_ = response.member_id;
      return send_join_group();
    case Error::UnknownMemberId: return reset_generation(true, "JoinGroup: unknown member");
    case Error::IllegalGeneration: return reset_generation(false, "JoinGroup: illegal generation");
    case Error::FencedInstanceId:
    case Error::InvalidSessionTimeout: return fenced();
    case Error::InconsistentGroupProtocol:  // JoinGroupResponseHandler: fatal, poll() throws
    case Error::GroupMaxSizeReached:        // likewise, as GroupMaxSizeReachedException (KIP-389)
      return stop("JoinGroup: " + std::string(models::to_string(response.error)));
    case Error::NotCoordinator:
    case Error::CoordinatorNotAvailable:
      coordinator_unknown(models::to_string(response.error));
      [[fallthrough]];
    default:  // REBALANCE_IN_PROGRESS, COORDINATOR_LOAD_IN_PROGRESS, ...: join again after a backoff
      member_ = MemberState::Unjoined;
      rejoin_needed_ = true;
      join_backoff_until_ = now() + config_.retry_backoff;
      return wake_app();
  }
  member_id_ = response.member_id;
  generation_ = response.generation;
  protocol_ = response.protocol;
  auto request = std::make_unique<SyncGroupRequest>();
  group_correlation_ = request->correlation_id = next_correlation_id();
  request->group = config_.group_id;
  request->member = identity();
  assigned_topic_partitions_ = -1;
  if (response.leader == member_id_ && !response.skip_assignment) {
    // The leader runs the group's assignor on every member's subscription,
    // with the partitions its metadata has (none of a topic not created yet),
    // and keeps that snapshot (ConsumerCoordinator.assignmentSnapshot).
    const std::unique_ptr<Assignor> assignor = make_assignor(protocol_);
    assigned_topic_partitions_ = known_topic_partitions();
    if (assignor) request->assignment = assignor->assign({{workload_.topic, assigned_topic_partitions_}}, response.members);
  }
  member_ = MemberState::Syncing;
  send_to_coordinator(std::move(request));
}

void Consumer::handle_sync_group(const SyncGroupResponse& response) {
  if (response.correlation_id != group_correlation_ || member_ != MemberState::Syncing) return;
  group_correlation_ = -1;
  switch (response.error) {
    case Error::None: break;
    case Error::UnknownMemberId: return reset_generation(true, "SyncGroup: unknown member");
    case Error::IllegalGeneration: return reset_generation(false, "SyncGroup: illegal generation");
    case Error::FencedInstanceId: return fenced();
    case Error::NotCoordinator:
    case Error::CoordinatorNotAvailable:
      coordinator_unknown(models::to_string(response.error));
      [[fallthrough]];
    default:  // REBALANCE_IN_PROGRESS: join again
      member_ = MemberState::Unjoined;
      rejoin_needed_ = true;
      return wake_app();
  }
  member_ = MemberState::Stable;
  rejoin_needed_ = false;  // what asked for a rejoin during the rebalance is settled by it
  check_assignment_snapshot();  // unless the leader's metadata changed since it assigned
  last_heartbeat_response_ = now();
  publish(AssignmentReceived{generation_, response.assignment.size()});
  new_assignment_ = response.assignment;
  wake_app();
}

// Eager: everything was revoked before joining, so all of it is new.
// Cooperative: keep what stays, add what is new, revoke what moves away and
// rejoin at once so the group can hand it to its new owner (KIP-429).
void Consumer::apply_assignment(const std::vector<TopicPartition>& assignment) {
  last_assignment_ = assignment;
  std::set<std::int32_t> target;
  for (const TopicPartition tp : assignment) {
    if (tp.topic == workload_.topic) target.insert(tp.partition);
  }
  std::vector<std::int32_t> revoked;
  for (const auto& [p, state] : partitions_) {
    if (!target.contains(p)) revoked.push_back(p);
  }
  for (const std::int32_t p : target) {
    if (!partitions_.contains(p)) own(p);
  }
  if (revoked.empty()) return;
  if (commits_on_revocation()) {  // onPartitionsRevoked commits what was processed
    revoking_ = revoked;
    return commit_sync(consumed_offsets_of(revoked), AfterCommit::Revoke);
  }
  revoke(revoked);
  if (protocol_kind_ == RebalanceProtocol::Cooperative) request_rejoin("partitions revoked, to be reassigned");
}

void Consumer::revoke(const std::vector<std::int32_t>& partitions) {
  for (const std::int32_t p : partitions) disown(p, false);
}

void Consumer::own(std::int32_t partition) {
  PartitionState& state = partitions_[partition];
  buffered_bytes_ -= state.buffered_bytes;
  state = PartitionState{};
  ++assignment_version_;
  positions_pending_ = true;
  if (!task_producers_.empty()) task_producers_[static_cast<std::size_t>(partition)]->restart();  // initTransactions()
  history_.ownership.push_back({index_, {workload_.topic, partition}, true, now()});
}

void Consumer::disown(std::int32_t partition, bool lost) {
  buffered_.reset(static_cast<std::size_t>(partition));
  const auto it = partitions_.find(partition);
  if (it == partitions_.end()) return;
  buffered_bytes_ -= it->second.buffered_bytes;
  partitions_.erase(it);
  ++assignment_version_;
  if (!task_producers_.empty()) {  // the task is closed with its producer
    Producer* producer = task_producers_[static_cast<std::size_t>(partition)];
    if (producer->state() != NodeState::Crashed) producer->crash(CrashKind::Shutdown);
  }
  history_.ownership.push_back({index_, {workload_.topic, partition}, false, now()});
  publish(PartitionReleased{partition, lost});
}

void Consumer::lose_all_partitions() {
  std::vector<std::int32_t> all;
  for (const auto& [p, state] : partitions_) all.push_back(p);
  for (const std::int32_t p : all) disown(p, true);
}

// ---- the heartbeat thread ----

void Consumer::heartbeat_tick() {
  set_timer(config_.heartbeat_interval, [this] { heartbeat_tick(); });
  send_heartbeat();
}

// AbstractCoordinator.HeartbeatThread: a heartbeat that failed, or fell due
// while the coordinator was unknown, goes again once the coordinator is known,
// checked every retry.backoff.ms (Heartbeat.failHeartbeat; the thread's wait),
// not a whole heartbeat.interval.ms later.
void Consumer::heartbeat_failed() {
  if (heartbeat_retrying_) return;
  heartbeat_retrying_ = true;
  set_timer(config_.retry_backoff, [this] { heartbeat_retry(); });
}

void Consumer::heartbeat_retry() {
  heartbeat_retrying_ = false;
  send_heartbeat();
}

void Consumer::send_heartbeat() {
  if (stopped() || (member_ != MemberState::Stable && member_ != MemberState::Syncing)) return;
  if (!coordinator_ready()) {
    find_coordinator();
    return heartbeat_failed();
  }
  if (now() - last_heartbeat_response_ > config_.session_timeout) {
    return coordinator_unknown("session timed out without a heartbeat response");
  }
  if (heartbeat_correlation_ >= 0) return;  // one at a time
  auto request = std::make_unique<HeartbeatRequest>();
  heartbeat_correlation_ = request->correlation_id = next_correlation_id();
  heartbeat_generation_ = generation_;
  request->group = config_.group_id;
  request->member = identity();
  send_to_coordinator(std::move(request));
}

void Consumer::handle_heartbeat(const HeartbeatResponse& response) {
  if (response.correlation_id != heartbeat_correlation_) return;
  heartbeat_correlation_ = -1;
  switch (response.error) {
    case Error::None: last_heartbeat_response_ = now(); return;
    case Error::RebalanceInProgress:
      last_heartbeat_response_ = now();
      if (member_ == MemberState::Stable) request_rejoin("the group is rebalancing");
      return;
    case Error::IllegalGeneration:
    case Error::UnknownMemberId:
      // Kafka resets only if no rebalance has moved the member on since it was sent.
      if (heartbeat_generation_ != generation_ || member_ != MemberState::Stable) return;
      reset_generation(response.error == Error::UnknownMemberId, "heartbeat: " + std::string(models::to_string(response.error)));
      return wake_app();
    case Error::FencedInstanceId: return fenced();
    case Error::NotCoordinator:
    case Error::CoordinatorNotAvailable: return coordinator_unknown(models::to_string(response.error));
    default: return heartbeat_failed();
  }
}

// KIP-62: processing took longer than max.poll.interval.ms. The member
// leaves the group (a static member only forgets its generation and lets the
// session time out); the next poll() joins again, its partitions lost.
void Consumer::poll_timeout_expired(SimTime polled_at) {
  if (last_poll_ != polled_at || app_ == AppState::Polling || stopped() || generation_ < 0) return;
  if (config_.consumer_protocol) return consumer_poll_timeout();
  record_event(ConsumerEventKind::PollTimeout);
  publish(PollTimedOut{});
  leave_group("consumer poll timeout has expired");
  reset_generation(true, "rejoining after a poll timeout");
}

bool Consumer::leave_group(std::string_view reason) {
  if (config_.consumer_protocol) return consumer_leave(reason);
  if (!is_dynamic_member() || !coordinator_ready() || member_id_.empty()) return false;
  auto request = std::make_unique<LeaveGroupRequest>();
  request->correlation_id = next_correlation_id();
  request->group = config_.group_id;
  request->member = identity();
  request->reason = std::string(reason);
  record_event(ConsumerEventKind::LeftGroup);
  send_to_coordinator(std::move(request));
  return true;
}

}  // namespace ksim::models
