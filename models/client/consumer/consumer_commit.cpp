// Offset commits of the consumer (commitSync, commitAsync, auto-commit, as
// Kafka's ConsumerCoordinator) and reading committed offsets (OffsetFetch)
// for newly assigned partitions.
#include <algorithm>

#include "models/client/consumer/consumer.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

// Kafka's subscriptions.allConsumed(): the position after the last record poll() returned.
std::vector<CommittedOffset> Consumer::consumed_offsets_of(const std::vector<std::int32_t>& partitions) const {
  std::vector<CommittedOffset> offsets;
  for (const CommittedOffset& o : consumed_offsets()) {
    if (std::find(partitions.begin(), partitions.end(), o.partition.partition) != partitions.end()) offsets.push_back(o);
  }
  return offsets;
}

std::vector<CommittedOffset> Consumer::consumed_offsets() const {
  std::vector<CommittedOffset> offsets;
  for (const auto& [p, state] : partitions_) {
    if (state.position_state != PositionState::Valid || state.consumed < 0) continue;
    offsets.push_back({{workload_.topic, p}, state.consumed, state.consumed_epoch});
  }
  return offsets;
}

// The application blocks in commitSync() until it succeeds, fails for good,
// or its timeout (default.api.timeout.ms unless given) passes, answered or
// not (Kafka's commitOffsetsSync loops on its timer, then throws
// TimeoutException); then it goes on with `then`.
void Consumer::commit_sync(std::vector<CommittedOffset> offsets, AfterCommit then, SimTime timeout) {
  after_commit_ = then;
  if (!can_commit() || offsets.empty()) return commit_done(true);
  app_ = AppState::Committing;
  const std::int64_t correlation = next_correlation_id();
  sync_commit_correlation_ = correlation;
  if (timeout < 0) timeout = config_.default_api_timeout;
  commits_[correlation] = CommitInFlight{std::move(offsets), true, false, now() + timeout, generation_};
  set_timer(timeout, [this, correlation] { commit_sync_timed_out(correlation); });
  send_commit(correlation);
}

void Consumer::commit_sync_timed_out(std::int64_t correlation) {
  if (correlation != sync_commit_correlation_ || !commits_.contains(correlation)) return;
  fail_commit(correlation, Error::RequestTimedOut);
}

// commitAsync(): sent once, never retried.
void Consumer::commit_async(std::vector<CommittedOffset> offsets, bool auto_commit) {
  if (!can_commit() || offsets.empty()) return;
  const std::int64_t correlation = next_correlation_id();
  commits_[correlation] = CommitInFlight{std::move(offsets), false, false, now(), generation_, auto_commit};
  send_commit(correlation);
}

// A group member commits only with a stable generation; otherwise the client
// fails the commit without sending it (Kafka's generationIfStable()).
Error Consumer::commit_precheck() const {
  // KIP-848: a commit carries the member epoch; none before the first heartbeat's answer.
  if (group_mode_ && config_.consumer_protocol) return generation_ > 0 ? Error::None : Error::UnknownMemberId;
  if (!group_mode_ || member_ == MemberState::Stable) return Error::None;
  return member_ == MemberState::Unjoined && !rejoin_needed_ ? Error::IllegalGeneration : Error::RebalanceInProgress;
}

void Consumer::send_commit(std::int64_t correlation) {
  if (const Error e = commit_precheck(); e != Error::None) return fail_commit(correlation, e);
  if (!coordinator_ready()) return find_coordinator();  // sent once the coordinator is known
  CommitInFlight& commit = commits_.at(correlation);
  auto request = std::make_unique<OffsetCommitRequest>();
  request->correlation_id = correlation;
  request->group = config_.group_id;
  if (group_mode_) request->member = identity();  // assigned partitions commit outside group membership
  request->offsets = commit.offsets;
  commit.sent = true;
  commit.generation = request->member.generation;
  send_to_coordinator(std::move(request));
}

// Failed in the client, not sent: the application sees the exception, nothing else changes.
void Consumer::fail_commit(std::int64_t correlation, Error error) {
  const CommitInFlight commit = std::move(commits_.at(correlation));
  commits_.erase(correlation);
  for (const CommittedOffset& o : commit.offsets) {
    history_.commits.push_back({index_, o.partition, o.offset, commit.generation, now(), error});
  }
  if (commit.sync && correlation == sync_commit_correlation_) commit_done(false);
}

void Consumer::handle_offset_commit(const OffsetCommitResponse& response) {
  const auto it = commits_.find(response.correlation_id);
  if (it == commits_.end()) return;
  const CommitInFlight commit = std::move(it->second);
  commits_.erase(it);
  for (const CommittedOffset& o : commit.offsets) {
    const auto refused = std::find_if(response.refused.begin(), response.refused.end(),
                                      [&](const RefusedOffset& r) { return r.partition == o.partition; });
    const Error error = refused == response.refused.end() ? response.error : refused->error;
    history_.commits.push_back({index_, o.partition, o.offset, commit.generation, now(), error});
  }
  // The commit fails with the first partition's error (CommitRequestManager.onResponse).
  const Error error = response.first_error();
  bool retriable = false;
  switch (error) {
    case Error::None: break;
    case Error::NotCoordinator:
    case Error::CoordinatorNotAvailable:
    case Error::RequestTimedOut:  // OffsetCommitResponseHandler: markCoordinatorUnknown, as the two above
      coordinator_unknown(models::to_string(error));
      retriable = true;
      break;
    case Error::CoordinatorLoadInProgress:
    case Error::StaleMemberEpoch: retriable = true; break;  // KIP-848: sent again with the member's latest epoch
    case Error::RebalanceInProgress: request_rejoin("a commit found the group rebalancing"); break;
    case Error::IllegalGeneration:
    case Error::UnknownMemberId:
      // CommitFailedException; Kafka resets only if the generation has not moved on since.
      if (commit.generation == generation_ && member_ == MemberState::Stable) {
        reset_generation(error == Error::UnknownMemberId, "a commit was rejected: " + std::string(models::to_string(error)));
      }
      break;
    case Error::FencedInstanceId: fenced(); return;
    default: break;
  }
  if (commit.auto_commit && retriable) auto_commit_failed();
  if (!commit.sync || response.correlation_id != sync_commit_correlation_) return;
  if (retriable && now() < commit.give_up_at) {
    commits_[response.correlation_id] = CommitInFlight{commit.offsets, true, false, commit.give_up_at, generation_};
    const std::int64_t correlation = response.correlation_id;
    set_timer(config_.retry_backoff, [this, correlation] {
      if (commits_.contains(correlation) && !commits_.at(correlation).sent) send_commit(correlation);
    });
    return;
  }
  commit_done(error == Error::None);
}

// The application's commitSync() returned.
void Consumer::commit_done(bool ok) {
  sync_commit_correlation_ = -1;
  app_ = AppState::Polling;
  switch (after_commit_) {
    case AfterCommit::Poll: return wake_app();
    case AfterCommit::Process:
      if (!ok) {  // the commit threw: this poll's records are left to whoever owns them next
        in_process_.clear();
        return wake_app();
      }
      app_ = AppState::Processing;
      return process_next();
    case AfterCommit::Rejoin:
      if (protocol_kind_ == RebalanceProtocol::Eager) revoke_all();
      if (coordinator_ready() && rejoin_needed_) send_join_group();
      return wake_app();
    case AfterCommit::Revoke:
      revoke(revoking_);
      revoking_.clear();
      if (group_mode_ && config_.consumer_protocol) {
        finish_reconciliation();
      } else if (protocol_kind_ == RebalanceProtocol::Cooperative) {
        request_rejoin("partitions revoked, to be reassigned");
      }
      return wake_app();
    case AfterCommit::Close: return finish_close();
  }
}

// enable.auto.commit: at most every auto.commit.interval.ms, inside poll(),
// the positions of what earlier polls returned, asynchronously.
void Consumer::maybe_auto_commit() {
  if (!config_.enable_auto_commit || !can_commit() || now() < next_auto_commit_) return;
  // KIP-848's consumer auto-commits only while its coordinator is known
  // (CommitRequestManager.poll returns before maybeAutoCommitAsync), then
  // with the positions of that moment; the classic one commits and chains the
  // commit to the coordinator's lookup (coordinator_lookup_failed).
  if (config_.consumer_protocol && !coordinator_ready()) return;
  next_auto_commit_ = now() + config_.auto_commit_interval;
  commit_async(consumed_offsets(), true);
}

// ConsumerCoordinator.autoCommitOffsetsAsync: after a RetriableCommitFailedException
// the next auto-commit comes retry.backoff.ms later, not a whole interval.
void Consumer::auto_commit_failed() {
  next_auto_commit_ = std::min(next_auto_commit_, now() + config_.retry_backoff);
}

// Newly assigned partitions start from the group's committed offsets.
void Consumer::fetch_committed_offsets() {
  std::vector<TopicPartition> wanted;
  for (auto& [p, state] : partitions_) {
    if (state.position_state != PositionState::Unknown) continue;
    if (!can_commit()) {
      set_position_state(state, PositionState::NeedsReset);
      continue;
    }
    wanted.push_back({workload_.topic, p});
  }
  if (wanted.empty() || offset_fetch_correlation_ >= 0) return;
  if (!coordinator_ready()) return find_coordinator();
  auto request = std::make_unique<OffsetFetchRequest>();
  offset_fetch_correlation_ = request->correlation_id = next_correlation_id();
  request->group = config_.group_id;
  request->partitions = wanted;
  for (const TopicPartition tp : wanted) {
    set_position_state(partitions_[tp.partition], PositionState::FetchingCommitted);
    partitions_[tp.partition].request_correlation = offset_fetch_correlation_;
  }
  send_to_coordinator(std::move(request));
}

void Consumer::handle_offset_fetch(const OffsetFetchResponse& response) {
  if (response.correlation_id != offset_fetch_correlation_) return;
  offset_fetch_correlation_ = -1;
  for (auto& [p, state] : partitions_) {
    if (state.position_state != PositionState::FetchingCommitted || state.request_correlation != response.correlation_id) {
      continue;
    }
    set_position_state(state, PositionState::Unknown);  // asked again unless answered below
  }
  if (response.error != Error::None) {
    if (response.error == Error::NotCoordinator) coordinator_unknown(models::to_string(response.error));
    retry_soon();
    return;
  }
  for (const CommittedOffset& o : response.offsets) {
    const auto it = partitions_.find(o.partition.partition);
    if (it == partitions_.end() || it->second.position_state != PositionState::Unknown) continue;
    PartitionState& state = it->second;
    if (o.offset < 0) {
      state.reset_cause = PositionResetCause::NoCommittedOffset;
      set_position_state(state, PositionState::NeedsReset);
      continue;
    }
    state.position = state.consumed = o.offset;
    state.consumed_epoch = o.leader_epoch;
    set_position_state(state, PositionState::NeedsValidation);  // KIP-320: committed with the epoch
  }
  update_positions();
  send_fetches();
}

}  // namespace ksim::models
