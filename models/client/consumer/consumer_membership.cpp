// KIP-848's consumer group protocol on the client (group.protocol=consumer):
// Kafka's ConsumerMembershipManager, AbstractMembershipManager and
// HeartbeatRequestManager. The member heartbeats its coordinator with
// ConsumerGroupHeartbeat (at once when joining or acknowledging, otherwise
// every group.consumer.heartbeat.interval.ms as the broker says), and
// reconciles towards the assignment it gets back, inside poll() as the
// rebalance callbacks run there: it first revokes what is no longer its own
// (committing before, as auto-commit or the application's onPartitionsRevoked
// does), then takes the new partitions, then acknowledges with its owned
// partitions. No JoinGroup, no SyncGroup, no group-wide barrier.
#include <algorithm>

#include "models/client/consumer/consumer.hpp"
#include "sim/core/simulation.hpp"
#include "sim/core/state_machine.hpp"

namespace ksim::models {

std::string_view to_string(ConsumerMembership state) {
  switch (state) {
    case ConsumerMembership::Unsubscribed: return "UNSUBSCRIBED";
    case ConsumerMembership::Joining: return "JOINING";
    case ConsumerMembership::Reconciling: return "RECONCILING";
    case ConsumerMembership::Acknowledging: return "ACKNOWLEDGING";
    case ConsumerMembership::Stable: return "STABLE";
    case ConsumerMembership::Fenced: return "FENCED";
    case ConsumerMembership::Leaving: return "LEAVING";
    case ConsumerMembership::Stale: return "STALE";
  }
  return "?";
}

// MemberState.java's previous valid states.
bool legal(ConsumerMembership from, ConsumerMembership to) {
  using enum ConsumerMembership;
  switch (to) {
    case Unsubscribed: return from == Leaving || from == Fenced;
    case Joining: return from == Fenced || from == Unsubscribed || from == Stale;
    case Reconciling: return from == Stable || from == Joining || from == Acknowledging || from == Reconciling;
    case Acknowledging: return from == Reconciling;
    case Stable: return from == Joining || from == Acknowledging || from == Reconciling;
    case Fenced: return from == Joining || from == Stable || from == Reconciling || from == Acknowledging || from == Leaving;
    case Leaving:
      return from == Joining || from == Stable || from == Reconciling || from == Acknowledging || from == Unsubscribed;
    case Stale: return from == Leaving;
  }
  return false;
}

void Consumer::membership_to(Membership next) { transition(membership_, next, "consumer group member", name()); }

// KIP-1082 (4.0): the client makes its member id, new with each process.
void Consumer::start_membership() {
  member_id_ = name() + "-" + std::to_string(incarnation());
  generation_ = kJoinMemberEpoch;
  membership_to(Membership::Joining);
  member_rebalance(true);
  schedule_consumer_heartbeat(0);
}

void Consumer::forget_membership() {
  membership_ = Membership::Unsubscribed;  // the process is gone: not a transition
  target_.clear();
  reconciling_ = false;
  cg_heartbeat_correlation_ = -1;
  ++cg_heartbeat_token_;
}

std::vector<TopicPartition> Consumer::owned_partitions() const {
  std::vector<TopicPartition> owned;
  for (const auto& [p, state] : partitions_) owned.push_back({workload_.topic, p});
  return owned;
}

void Consumer::schedule_consumer_heartbeat(SimTime delay) {
  const std::uint64_t token = ++cg_heartbeat_token_;
  set_timer(delay, [this, token] {
    if (token == cg_heartbeat_token_) send_consumer_heartbeat();
  });
}

void Consumer::send_consumer_heartbeat() {
  if (stopped() || membership_ == Membership::Unsubscribed || membership_ == Membership::Stale ||
      membership_ == Membership::Fenced) {
    return;
  }
  if (cg_heartbeat_correlation_ >= 0) return;  // one at a time; the answer arms the next
  if (!coordinator_ready()) return find_coordinator();  // sent once the coordinator is known
  auto request = std::make_unique<ConsumerGroupHeartbeatRequest>();
  const std::int64_t correlation = cg_heartbeat_correlation_ = request->correlation_id = next_correlation_id();
  request->group = config_.group_id;
  request->member_id = member_id_;
  request->member_epoch = membership_ == Membership::Joining ? kJoinMemberEpoch : generation_;
  if (membership_ == Membership::Leaving) request->member_epoch = is_dynamic_member() ? kLeaveMemberEpoch : kStaticLeaveMemberEpoch;
  request->instance_id = config_.group_instance_id;
  request->client_id = name();
  request->rebalance_timeout = config_.max_poll_interval;
  request->topics = {workload_.topic};
  request->server_assignor = config_.remote_assignor;
  request->owned = owned_partitions();
  send_to_coordinator(std::move(request));
  set_timer(config_.request_timeout, [this, correlation] {
    if (cg_heartbeat_correlation_ != correlation) return;
    cg_heartbeat_correlation_ = -1;
    coordinator_unknown("ConsumerGroupHeartbeat timed out");
  });
}

void Consumer::handle_consumer_heartbeat(const ConsumerGroupHeartbeatResponse& response) {
  if (response.correlation_id != cg_heartbeat_correlation_) return;
  cg_heartbeat_correlation_ = -1;
  if (membership_ == Membership::Leaving) {
    if (app_ == AppState::Closing) return crash(CrashKind::Shutdown);
    membership_to(Membership::Stale);  // left after a poll timeout: the next poll() joins again
    return wake_app();
  }
  if (membership_ == Membership::Fenced || membership_ == Membership::Stale) return;  // out of the group meanwhile
  switch (response.error) {
    case Error::None: break;
    case Error::NotCoordinator:
    case Error::CoordinatorNotAvailable: return coordinator_unknown(models::to_string(response.error));
    case Error::UnknownMemberId:
    case Error::FencedMemberEpoch: return consumer_fenced(models::to_string(response.error));
    case Error::UnreleasedInstanceId:
    case Error::GroupIdNotFound:      // a classic group that may not be upgraded (KIP-848's migration policy)
    case Error::UnsupportedAssignor:  // HeartbeatRequestManager: fatal
      record_event(ConsumerEventKind::Fenced);
      return stop("ConsumerGroupHeartbeat: " + std::string(models::to_string(response.error)));
    case Error::GroupMaxSizeReached:  // AbstractHeartbeatRequestManager: handleFatalFailure, poll() throws
      return stop("ConsumerGroupHeartbeat: " + std::string(models::to_string(response.error)));
    default:  // COORDINATOR_LOAD_IN_PROGRESS and other retriable errors
      return schedule_consumer_heartbeat(config_.retry_backoff);
  }
  generation_ = response.member_epoch;
  cg_heartbeat_interval_ = response.heartbeat_interval;
  if (response.assignment) {
    target_.clear();
    for (const TopicPartition tp : *response.assignment) {
      if (tp.topic == workload_.topic) target_.insert(tp.partition);
    }
  }
  if (membership_ == Membership::Acknowledging || membership_ == Membership::Joining) membership_to(Membership::Stable);
  const bool differs = !std::equal(target_.begin(), target_.end(), partitions_.begin(), partitions_.end(),
                                   [](std::int32_t p, const auto& owned) { return p == owned.first; }) ||
                       target_.size() != partitions_.size();
  if (differs && membership_ == Membership::Stable) {
    publish(AssignmentReceived{generation_, target_.size()});
    membership_to(Membership::Reconciling);
    member_rebalance(true);
    wake_app();
  } else if (membership_ == Membership::Stable) {
    member_rebalance(false);  // its assignment is the coordinator's (a join with nothing to take, an acknowledgement)
  }
  schedule_consumer_heartbeat(cg_heartbeat_interval_);
}

// transitionToFenced: the partitions are lost (no commit: the epoch is gone);
// the member joins again with epoch 0 and the same member id. With a
// rebalance listener (the after-process commit strategies register one)
// onPartitionsLost runs in the application thread, in its next poll()
// (ConsumerRebalanceListenerCallbackNeededEvent): until then the member
// keeps its partitions and sends no heartbeat, and poll() loses them and
// joins again. Without one the callback is complete at once.
void Consumer::consumer_fenced(std::string_view reason) {
  publish(CoordinatorLost{reason});
  membership_to(Membership::Fenced);
  target_.clear();
  reconciling_ = false;
  generation_ = kJoinMemberEpoch;
  if (commits_on_revocation()) {
    ++cg_heartbeat_token_;
    return wake_app();
  }
  lose_all_partitions();
  membership_to(Membership::Joining);
  member_rebalance(true);
  schedule_consumer_heartbeat(0);
}

// ConsumerMembershipManager.maybeReconcile, in poll(): revoke first (the
// commit before revocation: auto-commit's commitSync of what was consumed, or
// the application's onPartitionsRevoked commit), then take the new partitions.
bool Consumer::reconcile() {
  if (membership_ != Membership::Reconciling || reconciling_) return false;
  std::vector<std::int32_t> revoked;
  for (const auto& [p, state] : partitions_) {
    if (!target_.contains(p)) revoked.push_back(p);
  }
  group_metadata_ = identity();
  if (revoked.empty()) {
    finish_reconciliation();
    return false;
  }
  if (config_.enable_auto_commit || commits_on_revocation()) {
    reconciling_ = true;
    revoking_ = revoked;
    commit_sync(config_.enable_auto_commit ? consumed_offsets() : consumed_offsets_of(revoked), AfterCommit::Revoke,
                config_.enable_auto_commit ? config_.max_poll_interval : config_.default_api_timeout);
    return app_ != AppState::Polling;
  }
  revoke(revoked);
  finish_reconciliation();
  return false;
}

// onPartitionsAssigned for what is new in the latest target, then the acknowledgement.
void Consumer::finish_reconciliation() {
  reconciling_ = false;
  if (membership_ != Membership::Reconciling) return;  // fenced meanwhile
  for (const std::int32_t p : target_) {
    if (!partitions_.contains(p)) own(p);
  }
  const bool more_to_revoke =
      std::any_of(partitions_.begin(), partitions_.end(), [&](const auto& owned) { return !target_.contains(owned.first); });
  if (more_to_revoke) return wake_app();  // a newer target came meanwhile: another round
  membership_to(Membership::Acknowledging);
  schedule_consumer_heartbeat(0);
}

// A leave heartbeat: epoch -1, or -2 for a static member, which keeps its
// partitions at the coordinator until it is back or its session expires.
bool Consumer::consumer_leave(std::string_view reason) {
  if (membership_ == Membership::Unsubscribed || membership_ == Membership::Stale || membership_ == Membership::Fenced ||
      membership_ == Membership::Leaving || !coordinator_ready()) {
    return false;
  }
  (void)reason;  // Kafka logs it; the heartbeat does not carry one
  membership_to(Membership::Leaving);
  record_event(ConsumerEventKind::LeftGroup);
  cg_heartbeat_correlation_ = -1;  // an answer to an earlier heartbeat no longer matters
  send_consumer_heartbeat();
  return true;
}

// KIP-62 with KIP-848: the member leaves the group (its partitions are
// reassigned) and is stale; its next poll() loses the partitions and joins again.
void Consumer::consumer_poll_timeout() {
  record_event(ConsumerEventKind::PollTimeout);
  publish(PollTimedOut{});
  if (consumer_leave("consumer poll timeout has expired")) return;
  // No coordinator to tell: out of the group all the same; the next poll() joins again.
  if (membership_ != Membership::Unsubscribed && membership_ != Membership::Stale && membership_ != Membership::Leaving &&
      membership_ != Membership::Fenced) {
    membership_to(Membership::Fenced);
    ++cg_heartbeat_token_;  // no heartbeats until then
  }
}

}  // namespace ksim::models
