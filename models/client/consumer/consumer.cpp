// The consumer's lifecycle, the application's poll loop and positions (fetching: consumer_fetch.cpp).
#include "models/client/consumer/consumer.hpp"

#include <algorithm>
#include <cassert>

#include "models/client/consumer/assignors/assignor.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

std::string_view to_string(CommitStrategy strategy) {
  switch (strategy) {
    case CommitStrategy::None: return "none";
    case CommitStrategy::SyncBeforeProcess: return "sync-before-process";
    case CommitStrategy::SyncAfterProcess: return "sync-after-process";
    case CommitStrategy::AsyncAfterProcess: return "async-after-process";
    case CommitStrategy::Transactional: return "transactional";
  }
  return "?";
}

ClientTimeouts client_timeouts(const ConsumerConfig& config) {
  return ClientTimeouts{config.request_timeout,     config.retry_backoff,         config.reconnect_backoff,
                        config.retry_backoff_max,   config.reconnect_backoff_max, config.connection_setup_timeout};
}

Consumer::Consumer(Simulation& sim, std::string name, HostId host, std::uint32_t index, ConsumerConfig config,
                   ConsumerWorkload workload, std::shared_ptr<const ClusterDirectory> directory,
                   ModelEventBus& events, ConsumptionHistory& history)
    : KafkaClient(sim, std::move(name), host, directory, events, workload.topic, client_timeouts(config)),
      index_(index),
      config_(std::move(config)),
      workload_(std::move(workload)),
      history_(history),
      group_mode_(!config_.group_id.empty() && workload_.partitions.empty()),
      protocol_kind_(common_protocol(config_.partition_assignment_strategy)),
      buffered_(static_cast<std::size_t>(directory_->topics[static_cast<std::size_t>(workload_.topic)].partitions)) {
  allow_auto_topic_creation_ = config_.allow_auto_create_topics;
  if (workload_.partitions.empty() && !group_mode_) {
    const std::int32_t count = directory_->topics[static_cast<std::size_t>(workload_.topic)].partitions;
    for (std::int32_t p = 0; p < count; ++p) workload_.partitions.push_back(p);
  }
}

void Consumer::on_start() {
  // The first start is incarnation 0; every crash counts one up, so any later start is a restart.
  const bool restarted = incarnation() > 0;
  if (restarted) record_event(ConsumerEventKind::Restarted);
  if (restarted && restart_config_) {
    // A new process: every config it reads is the restart config's, the network client's timeouts too.
    config_ = *restart_config_;
    protocol_kind_ = common_protocol(config_.partition_assignment_strategy);
    set_timeouts(client_timeouts(config_));
  }
  if (output_ && output_->state() == NodeState::Crashed) output_->restart();  // task producers start with their partitions
  next_auto_commit_ = now() + config_.auto_commit_interval;
  for (const std::int32_t p : workload_.partitions) own(p);
  refresh_metadata();
  if (group_mode_ && config_.consumer_protocol) {
    start_membership();
  } else if (group_mode_) {
    heartbeat_tick();
  }
  wake_app();
}

// Everything but the committed offsets (on the brokers) is gone; a dynamic
// member comes back as a new member, a static one with its group.instance.id.
void Consumer::on_crash(CrashKind kind) {
  if (kind != CrashKind::Shutdown) record_event(ConsumerEventKind::Crashed);
  for (Producer* p : all_outputs()) {
    if (p->state() != NodeState::Crashed) p->crash(kind);
  }
  forget_transaction();
  lose_all_partitions();
  forget_connections_and_metadata();
  app_ = AppState::Polling;
  close_requested_ = false;
  wake_scheduled_ = false;
  retry_pending_ = false;
  in_process_.clear();
  next_to_process_ = 0;
  fetch_in_flight_.clear();
  fetch_sessions_.clear();
  offset_fetch_correlation_ = -1;
  sync_commit_correlation_ = -1;
  commits_.clear();
  coordinator_ = kNoBroker;
  coordinator_connected_ = false;
  find_correlation_ = -1;
  member_ = MemberState::Unjoined;
  member_id_.clear();
  generation_ = -1;
  rejoin_needed_ = true;
  rejoin_reason_ = "initial join";
  join_backoff_until_ = 0;
  group_correlation_ = -1;
  new_assignment_.reset();
  heartbeat_correlation_ = -1;
  heartbeat_retrying_ = false;  // its timers are gone
  forget_membership();
  in_member_rebalance_ = false;
}

// KafkaConsumer.close(): the application finishes the records of its last
// poll, auto-commit commits, a dynamic member leaves the group.
void Consumer::on_shutdown_requested() {
  close_requested_ = true;
  wake_app();
}

void Consumer::begin_close() {
  app_ = AppState::Closing;
  if (group_mode_ && config_.enable_auto_commit && generation_ >= 0) {
    return commit_sync(consumed_offsets(), AfterCommit::Close);
  }
  finish_close();
}

void Consumer::finish_close() {
  app_ = AppState::Closing;
  if (group_mode_ && leave_group("the consumer is being closed")) {
    set_timer(config_.request_timeout, [this] { crash(CrashKind::Shutdown); });  // or when LeaveGroup is answered
    return;
  }
  crash(CrashKind::Shutdown);
}

// Responses to its requests only.
void Consumer::on_message(ConnectionId, MessagePtr message) {
  const ApiMessage& m = api_message(*message);
  switch (m.api_key()) {
    case ApiKey::Fetch: return handle_fetch(message_as<FetchResponse>(m));
    case ApiKey::Metadata:
      apply_metadata(message_as<MetadataResponse>(m));
      check_assignment_snapshot();
      update_positions();
      return send_fetches();
    case ApiKey::ListOffsets: return handle_list_offsets(message_as<ListOffsetsResponse>(m));
    case ApiKey::OffsetForLeaderEpoch:
      return handle_offsets_for_leader_epoch(message_as<OffsetsForLeaderEpochResponse>(m));
    case ApiKey::FindCoordinator: return handle_find_coordinator(message_as<FindCoordinatorResponse>(m));
    case ApiKey::JoinGroup: return handle_join_group(message_as<JoinGroupResponse>(m));
    case ApiKey::SyncGroup: return handle_sync_group(message_as<SyncGroupResponse>(m));
    case ApiKey::Heartbeat: return handle_heartbeat(message_as<HeartbeatResponse>(m));
    case ApiKey::ConsumerGroupHeartbeat:
      return handle_consumer_heartbeat(message_as<ConsumerGroupHeartbeatResponse>(m));
    case ApiKey::OffsetCommit: return handle_offset_commit(message_as<OffsetCommitResponse>(m));
    case ApiKey::OffsetFetch: return handle_offset_fetch(message_as<OffsetFetchResponse>(m));
    case ApiKey::LeaveGroup:
      assert(message_is<LeaveGroupResponse>(m));
      if (app_ == AppState::Closing) crash(CrashKind::Shutdown);
      return;
    case ApiKey::ShareGroupHeartbeat: case ApiKey::ShareFetch: case ApiKey::ShareAcknowledge:  // share consumers' (KIP-932)
    case ApiKey::Produce:
    case ApiKey::CreateTopics:
    case ApiKey::UpdateMetadata:
    case ApiKey::InitProducerId:
    case ApiKey::AddPartitionsToTxn:
    case ApiKey::AddOffsetsToTxn:
    case ApiKey::EndTxn:
    case ApiKey::WriteTxnMarkers:
    case ApiKey::TxnOffsetCommit:
    case ApiKey::AlterPartition:
    case ApiKey::BrokerHeartbeat:
    case ApiKey::Vote:
    case ApiKey::BeginQuorumEpoch:
    case ApiKey::EndQuorumEpoch:
    case ApiKey::ControlledShutdown:
    case ApiKey::AssignReplicasToDirs:
    case ApiKey::ZooKeeper: break;  // a consumer sends none of these
  }
  unexpected_message(name(), m);
}

// A lost connection fails what was in flight on it; it is all retried after a backoff.
void Consumer::on_connection_closed(ConnectionId connection) {
  if (coordinator_connected_ && connection == coordinator_connection_) {
    coordinator_connected_ = false;
    refresh_metadata();  // DefaultMetadataUpdater.handleServerDisconnect, as for any connection
    return coordinator_unknown("connection to the coordinator closed");
  }
  // NetworkClient fails the requests in flight to that broker only: a fetch
  // or a position request to another broker still waits for its answer (it
  // used to be failed too, and sent again behind itself on its muted channel).
  const std::vector<BrokerId> lost = connection_lost(connection);
  if (find_correlation_ >= 0 && connection == find_connection_) {
    find_correlation_ = -1;  // the FindCoordinator in flight failed with it
    set_timer(config_.retry_backoff, [this] { find_coordinator(); });
  }
  for (const BrokerId broker : lost) fetch_in_flight_.erase(broker);
  for (auto& [p, state] : partitions_) {
    if (std::find(lost.begin(), lost.end(), state.asked) == lost.end()) continue;  // asked elsewhere
    if (state.position_state == PositionState::Resetting) set_position_state(state, PositionState::NeedsReset);
    if (state.position_state == PositionState::Validating) set_position_state(state, PositionState::NeedsValidation);
  }
  retry_soon();
}

// Sends if the broker is reachable now; otherwise the work is tried again after a backoff.
bool Consumer::send_to(BrokerId broker, MessagePtr request) {
  const auto connection = connection_to(broker);
  if (connection) send(*connection, std::move(request));
  return connection.has_value();
}

std::optional<ConnectionId> Consumer::connection_to(BrokerId broker) {
  if (!ensure_connected(broker)) {
    retry_soon();
    return std::nullopt;
  }
  return link(broker).connection;
}

void Consumer::retry_soon() {
  if (retry_pending_) return;  // one retry at a time, however many sends failed
  retry_pending_ = true;
  set_timer(config_.retry_backoff, [this] {
    retry_pending_ = false;
    refresh_metadata();
    update_positions();
    send_fetches();
    wake_app();
  });
}


// ---- the application ----

void Consumer::wake_app() {
  if (app_ != AppState::Polling || wake_scheduled_ || stopped()) return;
  wake_scheduled_ = true;
  set_timer(0, [this] { poll(); });
}

// KafkaConsumer.poll(): group work first (rebalance callbacks, rejoining),
// auto-commit of what earlier polls returned, then up to max.poll.records.
// With nothing to return the application waits here, woken by new data.
void Consumer::poll() {
  wake_scheduled_ = false;
  if (app_ != AppState::Polling || stopped()) return;
  last_poll_ = now();
  if (close_requested_) return begin_close();
  if (transforms() && workload_.commit == CommitStrategy::Transactional && !poll_offsets_.empty() &&
      (new_assignment_ || rejoin_needed_)) {
    return end_transform_batch();  // partitions may move: the open transaction ends first
  }
  if (group_mode_ && config_.consumer_protocol) {
    // After a poll timeout, or a fencing with a rebalance listener: onPartitionsLost, then join again.
    if (membership_ == Membership::Stale || membership_ == Membership::Fenced) {
      lose_all_partitions();
      generation_ = kJoinMemberEpoch;
      membership_to(Membership::Joining);
      member_rebalance(true);
      schedule_consumer_heartbeat(0);
    }
    if (!coordinator_ready()) find_coordinator();
    if (reconcile()) return;
  } else if (group_mode_) {
    if (new_assignment_) {  // onJoinComplete: the rebalance callbacks run in the application's thread
      const std::vector<TopicPartition> assignment = std::move(*new_assignment_);
      new_assignment_.reset();
      // ConsumerCoordinator.onJoinComplete: the auto-commit timer starts again from now.
      next_auto_commit_ = now() + config_.auto_commit_interval;
      group_metadata_ = identity();
      apply_assignment(assignment);
      member_rebalance(false);
      if (app_ != AppState::Polling) return;  // blocked in the revocation's commitSync
    }
    if (!coordinator_ready()) find_coordinator();
    if (maybe_rejoin()) return;
  }
  if (transforms() && workload_.commit == CommitStrategy::Transactional && !outputs_ready()) {
    set_timer(config_.retry_backoff, [this] { wake_app(); });  // initTransactions() has not returned yet
    return;
  }
  maybe_auto_commit();
  update_positions();
  // Kafka's pollForFetches: buffered records are returned first (take_records
  // then fetches again for the drained partitions); only with nothing buffered
  // does poll() send fetches and wait.
  if (!take_records()) {
    send_fetches();
    // Nothing new: an open transaction still ends when its time is up.
    if (transforms() && workload_.commit == CommitStrategy::Transactional && !poll_offsets_.empty()) {
      if (!transaction_may_go_on()) return end_transform_batch();
      set_timer(txn_started_ + workload_.commit_interval - now(), [this] { wake_app(); });
    }
    return;
  }
  arm_poll_timer();
  if (workload_.commit == CommitStrategy::SyncBeforeProcess) {
    return commit_sync(consumed_offsets(), AfterCommit::Process);
  }
  app_ = AppState::Processing;
  // With client CPU costs, deserialising the records takes the application thread this long first.
  const ClientCpuCosts& c = workload_.cpu;
  const SimTime cpu = c.enabled() ? c.request + static_cast<SimTime>(in_process_.size()) * c.record +
                                        static_cast<SimTime>(c.ns_per_byte * static_cast<double>(poll_bytes_))
                                  : 0;
  if (cpu == 0) return process_next();
  cpu_ns_ += cpu;
  set_timer(cpu, [this] { process_next(); });
}

// Up to max.poll.records, as Kafka's Fetcher collects them: the fetched
// records of one partition after another, starting each poll one partition
// further on. The consumed positions move past them (what auto-commit and
// commitSync() store).
bool Consumer::take_records() {
  in_process_.clear();
  next_to_process_ = 0;
  poll_bytes_ = 0;
  const auto limit = static_cast<std::size_t>(config_.max_poll_records);
  // Round the partitions with buffered records, from where the last poll stopped.
  constexpr std::size_t kNone = Partitions::npos;
  const auto start = static_cast<std::size_t>(std::max(0, next_poll_partition_));
  bool wrapped = start >= buffered_.size();
  std::size_t next = wrapped ? buffered_.find_first() : buffered_.test(start) ? start : buffered_.find_next(start);
  if (next == kNone && !wrapped) {
    wrapped = true;
    next = buffered_.find_first();
  }
  while (next != kNone && (!wrapped || next < start) && in_process_.size() < limit) {
    const auto p = static_cast<std::int32_t>(next);
    next = buffered_.find_next(next);
    if (next == kNone && !wrapped) {
      wrapped = true;
      next = buffered_.find_first();
    }
    PartitionState& state = *assigned(p);
    const std::size_t taken_before = in_process_.size();
    while (!state.buffer.empty() && in_process_.size() < limit) {
      const Buffered b = state.buffer.front();
      state.buffer.pop_front();
      state.buffered_bytes -= b.bytes;
      buffered_bytes_ -= b.bytes;
      state.consumed = b.offset + 1;
      state.consumed_epoch = b.epoch;
      if (txn_started_ == kNever) txn_started_ = now();
      ++txn_records_;
      poll_bytes_ += b.bytes;
      (b.created < workload_.warmup_end ? e2e_warmup_latency_ : e2e_latency_).record(now() - b.created);
      for (Producer* paced : paced_producers_) {
        if (paced->index() == b.writer) paced->record_polled();
      }
      in_process_.push_back({index_, {workload_.topic, p}, b.offset, b.writer, b.record, 1, 0, generation_, incarnation()});
    }
    if (in_process_.size() > taken_before) poll_offsets_[p] = {{workload_.topic, p}, state.consumed, state.consumed_epoch};
    next_poll_partition_ = state.buffer.empty() ? p + 1 : p;  // a partition not drained goes on next time
    if (state.buffer.empty()) buffered_.reset(static_cast<std::size_t>(p));
  }
  if (in_process_.empty()) return false;
  first_record_at_ = std::min(first_record_at_, now());
  last_record_at_ = now();
  send_fetches();  // partitions drained by this poll fetch again while it is processed
  return true;
}

// One record after another, each taking its processing time; records that
// take no time are processed at once, without an event each.
void Consumer::process_next() {
  while (next_to_process_ < in_process_.size()) {
    const SimTime delay = workload_.processing_time.sample(rng());
    if (delay > 0) {
      set_timer(delay, [this] {
        record_processed();
        process_next();
      });
      return;
    }
    record_processed();
  }
  finished_processing();
}

void Consumer::record_processed() {
  const ProcessedRecord& record = in_process_[next_to_process_++];
  ++processed_;
  if (transforms()) {
    const std::int32_t partitions = directory().topics[static_cast<std::size_t>(workload_.output_topic)].partitions;
    output_for(record.partition.partition)->send_output({workload_.output_topic, record.partition.partition % partitions}, workload_.output_record_bytes,
                         {record.writer, record.partition, record.record});
  }
  if (!history_.processed.empty()) {
    ProcessedRecord& run = history_.processed.back();
    const bool continues = run.consumer == record.consumer && run.partition == record.partition &&
                           run.writer == record.writer && run.generation == record.generation &&
                           run.incarnation == record.incarnation && run.offset + run.count == record.offset &&
                           run.record + run.count == record.record;
    if (continues) {
      ++run.count;
      return;
    }
  }
  history_.processed.push_back(record);
  history_.processed.back().at = now();
}

void Consumer::finished_processing() {
  app_ = AppState::Polling;
  in_process_.clear();
  next_to_process_ = 0;
  if (transforms() && workload_.commit == CommitStrategy::Transactional && transaction_may_go_on()) return wake_app();
  if (transforms() && (workload_.commit == CommitStrategy::Transactional || workload_.commit == CommitStrategy::SyncAfterProcess)) {
    return end_transform_batch();
  }
  switch (workload_.commit) {
    case CommitStrategy::Transactional:
    case CommitStrategy::SyncAfterProcess: return commit_sync(consumed_offsets(), AfterCommit::Poll);
    case CommitStrategy::AsyncAfterProcess: commit_async(consumed_offsets()); break;
    case CommitStrategy::None:
    case CommitStrategy::SyncBeforeProcess: break;
  }
  wake_app();
}

// KIP-62: the background thread notices when the application has not called
// poll() within max.poll.interval.ms.
void Consumer::arm_poll_timer() {
  if (!group_mode_) return;
  const SimTime polled_at = last_poll_;
  set_timer(config_.max_poll_interval, [this, polled_at] { poll_timeout_expired(polled_at); });
}

// ---- positions: committed offsets, auto.offset.reset, KIP-320 validation ----

void Consumer::update_positions() {
  if (!positions_pending_ && positions_metadata_ == metadata_version()) return;
  positions_pending_ = false;
  positions_metadata_ = metadata_version();
  fetch_committed_offsets();
  reset_positions();
  validate_positions();
  for (const auto& [p, state] : partitions_) {
    if (state.position_state != PositionState::Valid) positions_pending_ = true;
  }
}

// auto.offset.reset: ask each leader where its log starts or what its high watermark is.
void Consumer::reset_positions() {
  std::map<BrokerId, std::unique_ptr<ListOffsetsRequest>> requests;
  for (auto& [p, state] : partitions_) {
    if (state.position_state != PositionState::NeedsReset) continue;
    if (config_.auto_offset_reset == OffsetReset::None) {
      const bool out_of_range = state.reset_cause == PositionResetCause::OffsetOutOfRange;  // retention deleted it
      if (!out_of_range) publish(NoCommittedOffset{p});  // else poll() throws OffsetOutOfRangeException
      return stop(out_of_range ? "out of range, auto.offset.reset=none" : "no committed offset and auto.offset.reset=none");
    }
    const BrokerId leader = leader_of({workload_.topic, p});
    if (leader == kNoBroker) continue;
    auto& request = requests[leader];
    if (!request) {
      request = std::make_unique<ListOffsetsRequest>();
      request->correlation_id = next_correlation_id();
      request->latest = config_.auto_offset_reset == OffsetReset::Latest;
      request->read_committed = config_.read_committed;
    }
    request->partitions.push_back({workload_.topic, p});
    set_position_state(state, PositionState::Resetting);
    state.request_correlation = request->correlation_id;  // a fetch in flight is answered for the old position: ignored
    state.asked = leader;
  }
  for (auto& [broker, request] : requests) {
    const std::vector<TopicPartition> asked = request->partitions;
    const std::int64_t correlation = request->correlation_id;
    if (send_to(broker, std::move(request))) {
      expire_request(correlation, PositionState::Resetting, PositionState::NeedsReset);
      continue;
    }
    for (const TopicPartition tp : asked) set_position_state(partitions_[tp.partition], PositionState::NeedsReset);
  }
}

// request.timeout.ms: a ListOffsets or OffsetsForLeaderEpoch without an answer is asked again.
void Consumer::expire_request(std::int64_t correlation, PositionState waiting, PositionState again) {
  set_timer(config_.request_timeout, [this, correlation, waiting, again] {
    bool expired = false;
    for (auto& [p, state] : partitions_) {
      if (state.position_state != waiting || state.request_correlation != correlation) continue;
      set_position_state(state, again);
      expired = true;
    }
    if (expired) retry_soon();
  });
}

// A partition's answer to a position request (ListOffsets, OffsetsForLeaderEpoch):
// its state if it still waits for this request and the answer is good; on an
// error it goes back to `again` and asks later; an answer to an older request is ignored.
Consumer::PartitionState* Consumer::accept_answer(TopicPartition tp, Error error, std::int64_t correlation,
                                                  PositionState waiting, PositionState again) {
  const auto it = partitions_.find(tp.partition);
  if (it == partitions_.end() || it->second.position_state != waiting || it->second.request_correlation != correlation) {
    return nullptr;
  }
  if (error != Error::None) {
    set_position_state(it->second, again);
    retry_soon();
    return nullptr;
  }
  return &it->second;
}

void Consumer::handle_list_offsets(const ListOffsetsResponse& response) {
  for (const auto& answer : response.partitions) {
    PartitionState* found = accept_answer(answer.partition, answer.error, response.correlation_id,
                                          PositionState::Resetting, PositionState::NeedsReset);
    if (!found) continue;
    PartitionState& state = *found;
    state.position = state.consumed = answer.offset;
    publish(PositionReset{answer.partition.partition, answer.offset});
    history_.position_resets.push_back({index_, answer.partition, answer.offset,
                                        config_.auto_offset_reset == OffsetReset::Latest, state.reset_cause,
                                        generation_, now()});
    state.consumed_epoch = -1;
    state.validated_epoch = leader_epoch_of(answer.partition);
    set_position_state(state, PositionState::Valid);
  }
  send_fetches();
}

// KIP-320: after a leader change, check that the position is still on the
// new leader's log (an unclean election may have truncated it).
void Consumer::validate_positions() {
  std::map<BrokerId, std::unique_ptr<OffsetsForLeaderEpochRequest>> requests;
  for (auto& [p, state] : partitions_) {
    const TopicPartition tp{workload_.topic, p};
    const Epoch current = leader_epoch_of(tp);
    if (!config_.mechanisms.has(Mechanism::ConsumerEpochFencing)) {
      // Before KIP-320 (2.1) a consumer trusts its position on a new leader:
      // a truncated log answers OFFSET_OUT_OF_RANGE, and auto.offset.reset applies.
      state.validated_epoch = current;
      if (state.position_state == PositionState::NeedsValidation) set_position_state(state, PositionState::Valid);
      continue;
    }
    if (state.position_state == PositionState::Valid && current > state.validated_epoch) {
      set_position_state(state, PositionState::NeedsValidation);
    }
    if (state.position_state != PositionState::NeedsValidation) continue;
    const BrokerId leader = leader_of(tp);
    if (state.consumed_epoch < 0) {
      state.validated_epoch = current;
      set_position_state(state, PositionState::Valid);
      continue;
    }
    if (leader == kNoBroker) continue;
    state.buffer.clear();  // a seek back to the consumed position
    buffered_.reset(static_cast<std::size_t>(p));
    state.position = state.consumed;
    auto& request = requests[leader];
    if (!request) {
      request = std::make_unique<OffsetsForLeaderEpochRequest>();
      request->correlation_id = next_correlation_id();
    }
    request->partitions.push_back({tp, current, state.consumed_epoch});
    publish(PositionValidating{p, current, state.consumed});
    set_position_state(state, PositionState::Validating);
    state.request_correlation = request->correlation_id;  // a fetch in flight is answered for the old position: ignored
    state.asked = leader;
  }
  for (auto& [broker, request] : requests) {
    std::vector<std::int32_t> asked;
    for (const auto& p : request->partitions) asked.push_back(p.partition.partition);
    const std::int64_t correlation = request->correlation_id;
    if (send_to(broker, std::move(request))) {
      expire_request(correlation, PositionState::Validating, PositionState::NeedsValidation);
      continue;
    }
    for (const std::int32_t p : asked) set_position_state(partitions_[p], PositionState::NeedsValidation);
  }
}

void Consumer::handle_offsets_for_leader_epoch(const OffsetsForLeaderEpochResponse& response) {
  for (const auto& answer : response.partitions) {
    PartitionState* found = accept_answer(answer.partition, answer.error, response.correlation_id,
                                          PositionState::Validating, PositionState::NeedsValidation);
    if (!found) continue;
    PartitionState& state = *found;
    if (answer.end_offset < 0) {  // the epoch is unknown there: auto.offset.reset
      state.reset_cause = PositionResetCause::UnknownLeaderEpoch;
      set_position_state(state, PositionState::NeedsReset);
      continue;
    }
    if (answer.end_offset < state.consumed) {
      // Truncation detected: go back to where the epoch ends on the leader.
      publish(TruncationDetected{answer.partition.partition, state.consumed, answer.end_offset});
      state.position = state.consumed = answer.end_offset;
      state.consumed_epoch = answer.leader_epoch;
    }
    state.validated_epoch = leader_epoch_of(answer.partition);
    set_position_state(state, PositionState::Valid);
  }
  send_fetches();
}

}  // namespace ksim::models
