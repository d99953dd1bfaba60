#include "models/broker/broker.hpp"

#include <algorithm>
#include <cassert>
#include <iterator>
#include <utility>

#include "models/broker/broker_fetcher.hpp"
#include "models/protocol/replica_list.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

Broker::Broker(Simulation& sim, std::string name, HostId host, BrokerId id, BrokerConfig config,
               std::shared_ptr<const ClusterDirectory> directory, ModelEventBus& events)
    : Node(sim, std::move(name), host),
      id_(id),
      config_(std::move(config)),
      directory_(std::move(directory)),
      events_(events),
      metadata_rng_(sim.stream(Node::name() + "/metadata-log")) {
  assert(!config_.log_dirs.empty());
  set_connect_timeout(config_.connection_setup_timeout);
  for (const LogDirSpec& spec : config_.log_dirs) log_dirs_.push_back(LogDir{spec, Disk(spec.disk)});
  alter_log_dirs_quota_.set_rate(config_.replica_alter_log_dirs_io_max_bytes_per_second);
  std::int32_t total = 0;
  for (const TopicSpec& topic : directory_->topics) {
    topic_base_.push_back(total);
    total += topic.partitions;
  }
  replica_index_.assign(static_cast<std::size_t>(total), nullptr);
  partition_changes_.assign(static_cast<std::size_t>(total), 0);
  in_fetcher_.assign(static_cast<std::size_t>(total), false);
  if (directory_->transaction_topic >= 0) {
    txn_coordinator_ = std::make_unique<TxnCoordinator>(static_cast<TxnCoordinatorHost&>(*this),
                                                        config_.transaction_coordinator, *directory_->coordinator_records);
  }
  start_threads();
}

Broker::~Broker() = default;

// New replicas go to the log dir with the fewest partitions, as Kafka does
// (LogManager.nextLogDirs): not the fewest bytes, hence JBOD imbalance.
void Broker::create_replica(TopicPartition tp) {
  assert(!replicas_.contains(tp));
  std::size_t best = 0;
  for (std::size_t i = 1; i < log_dirs_.size(); ++i) {
    if (log_dirs_[i].online && log_dirs_[i].partitions < log_dirs_[best].partitions) best = i;
  }
  // LogManager.preferredLogDirs (KIP-113): a dir alterReplicaLogDirs named before the replica came.
  if (const auto preferred = preferred_dirs_.find(tp); preferred != preferred_dirs_.end()) {
    if (log_dirs_[preferred->second].online) best = preferred->second;
    preferred_dirs_.erase(preferred);
  }
  ++log_dirs_[best].partitions;
  Replica& stored = replicas_.try_emplace(tp, tp, id_, best).first->second;
  if (!partition_listeners_.empty()) stored.set_listener(&partition_listeners_);
  stored.configure_log(&topic(tp).log);
  replica_index_[static_cast<std::size_t>(topic_base_[static_cast<std::size_t>(tp.topic)] + tp.partition)] = &stored;
}

void Broker::on_start() {
  if (halts_at_start()) {
    set_timer(0, [this] { crash(CrashKind::Process); });
    return;
  }
  // LogManager.createAndValidateLogDirs: a dir offline since an I/O error is
  // tried again at start; one whose disk works again (no longer full) loads
  // its logs and serves. A registration lists only the online dirs.
  for (LogDir& d : log_dirs_) {
    if (!d.disk.failed()) d.online = true;
    d.offline_acknowledged = true;
  }
  live_brokers_.clear();
  isr_eligible_.clear();
  shutting_down_ = false;
  fetching_while_shutting_down_.clear();
  got_shutdown_answer_ = false;
  metadata_offset_ = -1;  // read again from the controller after a restart
  controller_connected_ = false;
  controller_index_ = zookeeper_mode() ? static_cast<std::size_t>(id_) : 0;  // ZooKeeper: its own side until told
  heartbeat_unanswered_since_ = kNever;
  controller_retry_pending_ = false;
  controller_waiting_ = false;
  start_metadata_log();  // KIP-631, with a quorum: before the first heartbeat, which goes to the leader it finds
  if (!zookeeper_mode()) heartbeat_tick();  // with ZooKeeper its session says it lives
  if (config_.log_flush_scheduler_interval != kNever) flush_tick();
  isr_expiration_tick();
  start_retention();
  start_remote_log_manager();
  start_cleaner();
  if (txn_coordinator_) txn_coordinator_->start();
}

// LogManager.flushDirtyLogs, every log.flush.scheduler.interval.ms: fsyncs
// each log whose last flush is at least its topic's flush.ms old.
void Broker::flush_tick() {
  for (auto& [tp, r] : replicas_) {
    if (!replica_online(r)) continue;
    const SimTime flush_ms = topic(tp).flush_ms.value_or(config_.log_flush_interval);
    // UnifiedLog.flush: nothing past the recovery point, nothing to do.
    if (flush_ms != kNever && now() - r.last_flush >= flush_ms && r.log().unflushed_records() > 0) flush(r);
  }
  set_timer(config_.log_flush_scheduler_interval, [this] { flush_tick(); });
}

// Kafka's isr-expiration task runs every replica.lag.time.max.ms / 2.
void Broker::isr_expiration_tick() {
  shrink_isrs();
  set_timer(config_.replica_lag_time_max / 2, [this] { isr_expiration_tick(); });
}

void Broker::on_crash(CrashKind kind) {
  previous_stop_clean_ = kind == CrashKind::Shutdown;
  refusing_requests_ = false;
  zk_broker_epoch_ = -1;
  free_deleting_now();
  drop_cleanings();
  for (auto& [tp, r] : replicas_) {
    r.reset_process_state();
    r.producers = ProducerStateTable{};
    r.promotion = FuturePromotion::None;  // ReplicaAlterLogDirsThread.promotionStates are in memory
  }
  dir_assignments_.clear();
  dir_assignments_due_ = kNever;
  if (kind == CrashKind::Machine) lose_page_cache();
  movers_.clear();
  remote_log_.reset(now());
  resume_moves_ = true;  // with the first metadata after the restart
  produce_purgatory_.clear();
  fetch_purgatory_.clear();
  fetch_sessions_.clear();
  consumer_fetches_waiting_ = 0;
  share_partitions_.clear();
  parked_share_fetches_.clear();
  fetchers_.clear();
  in_fetcher_.assign(in_fetcher_.size(), false);
  controller_connected_ = false;
  stop_metadata_log(kind);
  if (coordinator_) coordinator_->reset();
  coordinator_appends_.clear();
  leaders_.clear();
  known_topics_.clear();
  creating_topics_.clear();
  if (txn_coordinator_) txn_coordinator_->reset();
  broker_links_.clear();
  broker_requests_.clear();
  for (auto& [tp, r] : replicas_) r.verified.clear();
  reset_threads();
}

// Controlled shutdown: the broker tells the controller in its heartbeats,
// the controller moves its leaderships and takes it out of every ISR, and
// says when none is left; then the broker flushes its logs and exits. It
// stops anyway after 30s if the controller never answers. With
// controlled.shutdown.enable=false it stops at once.
void Broker::on_shutdown_requested() {
  shutting_down_ = true;
  // With ZooKeeper the broker's side asks the controller (its tries bound the
  // wait) and closes the session; the broker stops after it (on_companion_stopped).
  if (zookeeper_mode()) return;
  if (!config_.controlled_shutdown_enable) return finish_shutdown();  // straight to the clean stop
  send_heartbeat();
  set_timer(seconds(30), [this] { finish_shutdown(); });
}

// BrokerLifecycleManager in PENDING_CONTROLLED_SHUTDOWN: after the first answer
// that is not yet ShouldShutDown, the next heartbeat goes 50 ms later (the
// controlled shutdown may complete quickly); after that, broker.heartbeat.interval.ms
// after each answer (scheduleNextCommunicationAfterSuccess).
void Broker::shutdown_heartbeat_answered(bool ready) {
  if (ready) return finish_shutdown();
  const SimTime next = got_shutdown_answer_ ? config_.broker_heartbeat_interval : milliseconds(50);
  got_shutdown_answer_ = true;
  set_timer(next, [this] { send_heartbeat(); });
}

// KafkaServer.shutdown once the controlled shutdown is over (or given up):
// ReplicaManager.shutdown stops the fetchers, LogManager.shutdown flushes every
// log; then the side resigns and closes the session (on_companion_stopped).
void Broker::on_handed_over(Node& /*side*/) {
  if (!zookeeper_mode() || !shutting_down_) return;
  for (auto& f : fetchers_) {
    if (f->connected) close(f->connection);
    for (const TimerId timer : {f->wake, f->request_timeout, f->appended}) cancel_timer(timer);  // they hold the fetcher
  }
  fetchers_.clear();
  in_fetcher_.assign(in_fetcher_.size(), false);
  SimTime flushed = now();
  for (auto& [tp, r] : replicas_) {
    if (replica_online(r) && r.log().unflushed_records() > 0) flushed = std::max(flushed, flush(r));
  }
  set_timer(flushed - now(), [this] { hand_over(); });
}

void Broker::finish_shutdown() {
  for (auto& [tp, r] : replicas_) {
    if (replica_online(r)) r.mark_flushed(r.log().log_end_offset());  // a clean shutdown flushes every log
  }
  publish(BrokerShutDown{id_});
  crash(CrashKind::Shutdown);
}

void Broker::on_connection_closed(ConnectionId connection) {
  channel_closed(connection);
  close_session(connection);
  broker_link_closed(connection);
  if (controller_connected_ && connection == controller_connection_) controller_channel_closed();
  if (const auto peer = metadata_connections_.closed(connection); peer && metadata_raft_) {
    metadata_raft_->on_disconnected(*peer);
  }
  for (auto& fetcher : fetchers_) {
    if (fetcher->connected && fetcher->connection == connection) {
      fetcher->connected = false;
      fetcher->in_flight = false;
      fetcher->readded_in_flight.clear();
      cancel_timer(fetcher->request_timeout);
      fetch_failed(*fetcher);
    }
  }
}

// Requests from clients, the controller and other brokers, and the responses
// to this broker's own requests (a replica fetcher's, its heartbeats and
// AlterPartition, KIP-890's verification, markers it asked another leader for).
void Broker::dispatch(ConnectionId connection, MessagePtr message) {
  if (metadata_bootstrap_ && is_raft_message(*message)) return handle_metadata_log_message(connection, *message);
  const ApiMessage& m = api_message(*message);
  switch (m.api_key()) {
    case ApiKey::Produce: return handle_produce(connection, take_message<ProduceRequest>(std::move(message)));
    case ApiKey::Fetch:
      if (m.is_response()) return handle_fetch_response(connection, message_as<FetchResponse>(m));
      return handle_fetch(connection, take_message<FetchRequest>(std::move(message)));
    case ApiKey::UpdateMetadata: {
      const auto& update = message_as<MetadataUpdate>(m);
      // From a ZooKeeper-era controller, which connected to the broker: answered, so its channel unmutes.
      if (accepted(connection)) send(connection, std::make_unique<MetadataUpdateResponse>());
      // KIP-380: for this broker's previous process (the controller had not seen it restart): STALE_BROKER_EPOCH.
      if (update.broker_epoch >= 0 && update.broker_epoch < zk_broker_epoch_) {
        return publish(StalePushRefused{id_, update.broker_epoch, zk_broker_epoch_});
      }
      // From a controller the broker left (a deposed one still pushing what it committed):
      // older than what it has.
      if (update.offset < metadata_offset_ && (has_controller_quorum() || zookeeper_mode())) return;
      if (zookeeper_mode()) zookeeper_controller_moved(update.controller);
      metadata_offset_ = std::max(metadata_offset_, update.offset);
      live_brokers_ = update.live_brokers;
      // Partition.isReplicaIsrEligible (KIP-841): neither fenced nor in controlled shutdown.
      isr_eligible_.clear();
      std::copy_if(live_brokers_.begin(), live_brokers_.end(), std::back_inserter(isr_eligible_),
                   [&](BrokerId b) { return !contains(update.shutting_down, b); });
      record_leaders(update.partitions);
      return apply_metadata(update.partitions);
    }
    case ApiKey::AlterPartition: return handle_alter_partition_response(message_as<AlterPartitionResponse>(m));
    case ApiKey::CreateTopics: return handle_create_topics_response(message_as<CreateTopicsResponse>(m));
    case ApiKey::Metadata: return handle_metadata_request(connection, message_as<MetadataRequest>(m));
    case ApiKey::InitProducerId: return handle_init_producer_id(connection, message_as<InitProducerIdRequest>(m));
    case ApiKey::ListOffsets: return handle_list_offsets(connection, message_as<ListOffsetsRequest>(m));
    case ApiKey::BrokerHeartbeat: return handle_heartbeat_response(message_as<BrokerHeartbeatResponse>(m));
    case ApiKey::AssignReplicasToDirs: return handle_assign_dirs_response(message_as<AssignReplicasToDirsResponse>(m));
    // transactions (broker_txn.cpp): the coordinator's requests, and markers
    case ApiKey::AddPartitionsToTxn:
      if (m.is_response()) {
        return answer_broker_request(message_as<AddPartitionsToTxnResponse>(m).correlation_id, message.get());
      }
      return handle_txn_request(connection, message_as<AddPartitionsToTxnRequest>(m));
    case ApiKey::AddOffsetsToTxn: return handle_txn_request(connection, message_as<AddOffsetsToTxnRequest>(m));
    case ApiKey::EndTxn: return handle_txn_request(connection, message_as<EndTxnRequest>(m));
    case ApiKey::WriteTxnMarkers:
      if (m.is_response()) {
        return answer_broker_request(message_as<WriteTxnMarkersResponse>(m).correlation_id, message.get());
      }
      return handle_write_txn_markers(connection, message_as<WriteTxnMarkersRequest>(m));
    // consumer groups (broker_group.cpp)
    case ApiKey::FindCoordinator: return handle_find_coordinator(connection, message_as<FindCoordinatorRequest>(m));
    case ApiKey::OffsetForLeaderEpoch:
      return handle_offsets_for_leader_epoch(connection, message_as<OffsetsForLeaderEpochRequest>(m));
    case ApiKey::JoinGroup: return group_coordinator().handle(connection, message_as<JoinGroupRequest>(m));
    case ApiKey::SyncGroup: return group_coordinator().handle(connection, message_as<SyncGroupRequest>(m));
    case ApiKey::Heartbeat: return group_coordinator().handle(connection, message_as<HeartbeatRequest>(m));
    case ApiKey::LeaveGroup: return group_coordinator().handle(connection, message_as<LeaveGroupRequest>(m));
    case ApiKey::OffsetCommit: return group_coordinator().handle(connection, message_as<OffsetCommitRequest>(m));
    case ApiKey::OffsetFetch: return group_coordinator().handle(connection, message_as<OffsetFetchRequest>(m));
    case ApiKey::TxnOffsetCommit: return handle_txn_offset_commit(connection, message_as<TxnOffsetCommitRequest>(m));
    case ApiKey::ConsumerGroupHeartbeat:  // KIP-848
      return group_coordinator().handle(connection, message_as<ConsumerGroupHeartbeatRequest>(m));
    case ApiKey::ShareGroupHeartbeat:  // KIP-932
      return group_coordinator().handle(connection, message_as<ShareGroupHeartbeatRequest>(m));
    case ApiKey::ShareFetch: return handle_share_fetch(connection, take_message<ShareFetchRequest>(std::move(message)));
    case ApiKey::ShareAcknowledge: return handle_share_acknowledge(connection, message_as<ShareAcknowledgeRequest>(m));
    case ApiKey::Vote:
    case ApiKey::BeginQuorumEpoch:
    case ApiKey::EndQuorumEpoch: break;  // the controller quorum's Raft
    case ApiKey::ZooKeeper: break;        // its ZooKeeper side's (zk_controller.hpp)
    case ApiKey::ControlledShutdown: break;  // its ZooKeeper side's (zk_controlled_shutdown.cpp)
  }
  unexpected_message(name(), m);
}

// ReplicaManager.applyDelta: the partitions one update makes followers join
// their fetchers together (AbstractFetcherManager.addFetcherForPartitions),
// so an idle fetcher's next request lists them all.
// KIP-858: a new replica, one whose recorded log dir changed, and after a
// restart every replica, is compared with the dir holding its log.
void Broker::apply_metadata(const std::vector<PartitionState>& states) {
  applying_metadata_ = true;
  for (const PartitionState& state : states) {
    const bool hosted = replica(state.partition) != nullptr;
    Replica* r = replica_as_assigned(state);
    if (!r) continue;
    const auto recorded = state.directory_of(id_);
    if (!hosted || resume_moves_ || (!r->is_stale(state) && recorded != r->state().directory_of(id_))) {
      assign_dir(*r, recorded);
    }
    apply_partition_state(*r, state);
  }
  applying_metadata_ = false;
  for (auto& f : fetchers_) send_fetch(*f);
  if (std::exchange(resume_moves_, false)) resume_log_dir_moves();
}

void Broker::apply_partition_state(Replica& r, const PartitionState& state) {
  if (r.is_stale(state)) return;
  changed(r);
  const bool new_epoch = r.is_new_epoch(state);
  const bool was_leader = r.is_leader();
  if (!replica_online(r)) {
    r.update_state(state);
    return;
  }
  if (state.leader == id_) {
    if (new_epoch || !r.is_leader()) {
      become_leader(r, state);
    } else {
      const bool isr_changed = r.state().isr != state.isr;
      r.update_state(state);  // an ISR change we asked for, or another broker's view
      if (isr_changed) publish(IsrUpdated{id_, r.tp(), state.isr.size()});
      maybe_advance_high_watermark(r);
    }
  } else if (state.leader == kNoBroker) {
    stop_replica(r, state);
  } else if (new_epoch || !r.is_follower()) {
    become_follower(r, state);
  } else {
    r.update_state(state);
  }
  // ReplicaManager.applyLocalFollowersDelta: in controlled shutdown a broker
  // stops fetching the partitions whose ISR it has left. With ZooKeeper only
  // those it followed (StopReplica): one it led becomes a follower of the new
  // leader and fetches until the broker stops (the leader may even take it
  // back into the ISR, which KIP-841 ended).
  if (!shutting_down_ || !r.is_follower() || contains(state.isr, id_)) return;
  if (zookeeper_mode() && (was_leader || fetching_while_shutting_down_.contains(r.tp()))) {
    fetching_while_shutting_down_.insert(r.tp());
    return;
  }
  remove_from_fetchers(r.tp());
}

void Broker::become_leader(Replica& r, const PartitionState& state) {
  publish(BecameLeader{id_, r.tp(), state.leader_epoch, r.log().log_end_offset(), r.log().high_watermark()});
  const bool was_leader = r.is_leader();
  remove_from_fetchers(r.tp());
  r.make_leader(state, now());
  r.producers.rebuild(r.log());  // producer state survives leader changes through the log (KIP-98)
  r.producers.forget_replicated(r.log().high_watermark());
  maybe_advance_high_watermark(r);
  // With ZooKeeper the coordinators hear only of new leaderships: makeLeaders
  // passes on a partition only if Partition.makeLeader found it was not the
  // leader. With KRaft every change of a led partition reaches them
  // (BrokerMetadataPublisher.updateCoordinator): the transaction coordinator
  // loads again at a higher epoch, the group coordinator keeps what it owns.
  if (!(was_leader && zookeeper_mode())) coordinator_leadership(r);
}

void Broker::become_follower(Replica& r, const PartitionState& state) {
  publish(BecameFollower{id_, r.tp(), state.leader_epoch, state.leader, r.log().log_end_offset()});
  r.make_follower(state);
  r.epoch_checked = false;
  fail_produces_of(r.tp(), Error::NotLeaderOrFollower);  // answered with the new leader (KIP-951)
  complete_fetches_of(r.tp());
  if (!config_.mechanisms.has(Mechanism::LeaderEpochTruncation)) {  // before KIP-101
    // Before KIP-101: drop everything above the high watermark, which may
    // discard committed records the new leader does not have either.
    const Offset from = r.log().log_end_offset();
    r.truncate_to(r.log().high_watermark());
    publish(LogTruncated{id_, r.tp(), from, r.log().log_end_offset(), TruncationCause::HighWatermark});
  }
  remove_from_fetchers(r.tp());
  add_to_fetcher(r);
  coordinator_leadership(r);
}

void Broker::stop_replica(Replica& r, const PartitionState& state) {
  fail_produces_of(r.tp(), Error::NotLeaderOrFollower);
  remove_from_fetchers(r.tp());
  r.stop(state);
  complete_fetches_of(r.tp());
  coordinator_leadership(r);
}

void Broker::handle_metadata_request(ConnectionId connection, const MetadataRequest& request) {
  auto response = std::make_unique<MetadataResponse>();
  response->correlation_id = request.correlation_id;
  response->live_brokers = live_brokers_;
  // No topic asked for (a producer before its first send(): an empty topic list): brokers only.
  if (request.topic < 0) {
    send(connection, std::move(response));
    return;
  }
  for (const auto& [tp, r] : replicas_) {
    // Every broker hosting a replica knows its state; others add nothing new.
    if (r.leader_epoch() > 0 || r.state().leader != kNoBroker) response->partitions.push_back(r.state());
  }
  for (const auto& [tp, state] : departed_) response->partitions.push_back(state);
  // The rest of the requested topic from the broker's metadata cache (every broker has the
  // whole image: KRaftMetadataCache, or ZooKeeper's UpdateMetadata): leader and epoch.
  const auto t = static_cast<std::size_t>(request.topic);
  if (request.topic >= 0 && t < topic_base_.size() && !leaders_.empty()) {
    for (std::int32_t p = 0; p < directory_->topics[t].partitions; ++p) {
      const TopicPartition tp{request.topic, p};
      const auto& [leader, epoch] = leaders_[static_cast<std::size_t>(topic_base_[t] + p)];
      if ((leader == kNoBroker && epoch == 0) || replica(tp) || departed_.contains(tp)) continue;
      PartitionState state;
      state.partition = tp;
      state.leader = leader;
      state.leader_epoch = epoch;
      response->partitions.push_back(std::move(state));
    }
  }
  // UNKNOWN_TOPIC_OR_PARTITION for a topic its metadata does not have (once it has applied any),
  // which it may create (auto.create.topics.enable).
  for (std::size_t t = 0; t < known_topics_.size(); ++t) {
    if (!known_topics_[t]) response->missing_topics.push_back(static_cast<std::int32_t>(t));
  }
  maybe_create_topic(request);
  send(connection, std::move(response));
}

void Broker::handle_init_producer_id(ConnectionId connection, const InitProducerIdRequest& request) {
  if (!request.transactional_id.empty() && txn_coordinator_) return txn_coordinator_->handle(connection, request);
  auto response = std::make_unique<InitProducerIdResponse>();
  response->correlation_id = request.correlation_id;
  if (!request.transactional_id.empty()) {
    response->error = Error::NotCoordinator;
    send(connection, std::move(response));
    return;
  }
  if (request.producer_id != kNoProducerId) {
    // KIP-360: the producer bumps its epoch after an unresolved sequence error.
    response->producer_id = request.producer_id;
    response->producer_epoch = static_cast<ProducerEpoch>(request.producer_epoch + 1);
  } else {
    response->producer_id = allocate_producer_id();
    response->producer_epoch = 0;
  }
  send(connection, std::move(response));
}



// ListOffsets from a consumer (auto.offset.reset): the leader answers with the
// log start or what a consumer may read up to: the high watermark, or for
// read_committed the last stable offset (Partition.fetchOffsetForTimestamp).
// A new leader whose high watermark has not reached its epoch's start offset
// answers `latest` with OFFSET_NOT_AVAILABLE, which the consumer retries
// (OffsetFetcherUtils): its HW still lags what the old leader had acknowledged.
void Broker::handle_list_offsets(ConnectionId connection, const ListOffsetsRequest& request) {
  auto response = std::make_unique<ListOffsetsResponse>();
  response->correlation_id = request.correlation_id;
  for (const TopicPartition tp : request.partitions) {
    const Replica* r = replica(tp);
    ListOffsetsResponse::PartitionOffset answer{tp, Error::None, -1};
    if (!r || !r->is_leader() || !replica_online(*r)) {
      answer.error = Error::NotLeaderOrFollower;
    } else {
      const Offset readable = request.read_committed ? last_stable_offset(*r) : r->log().high_watermark();
      if (request.latest && r->epoch_start_offset() > r->log().high_watermark()) {
        answer.error = Error::OffsetNotAvailable;
      } else {
        answer.offset = request.latest ? readable : log_start_of(*r);  // EARLIEST: the remote log's start under KIP-405
      }
    }
    response->partitions.push_back(answer);
  }
  send(connection, std::move(response));
}

// KIP-112: an I/O error takes the whole log dir offline; its replicas stop,
// and the controller moves their leadership away (told by the heartbeat).
void Broker::take_log_dir_offline(std::size_t index, std::string_view reason) {
  LogDir& dir = log_dirs_[index];
  if (!dir.online) return;
  abandon_moves_on(index);
  dir.online = false;
  publish(LogDirWentOffline{id_, dir.spec.path, reason});
  for (auto& [tp, r] : replicas_) {
    if (r.log_dir != index) continue;
    fail_produces_of(tp, Error::KafkaStorageError);
    remove_from_fetchers(tp);
    r.go_offline();
    changed(r);
    coordinator_leadership(r);
  }
  report_failed_log_dir(index);
}

std::vector<std::pair<std::string, SimTime>> Broker::disk_busy() const {
  std::vector<std::pair<std::string, SimTime>> busy;
  for (const LogDir& d : log_dirs_) busy.emplace_back(d.spec.path, d.disk.busy_ns());
  return busy;
}

bool Broker::has_log_dir(const std::string& path) const {
  return std::any_of(log_dirs_.begin(), log_dirs_.end(), [&](const LogDir& d) { return d.spec.path == path; });
}

void Broker::slow_log_dir(const std::string& path, double factor) {
  for (LogDir& d : log_dirs_) {
    if (d.spec.path == path) d.disk.set_bandwidth_factor(factor);
  }
}

void Broker::fill_log_dir(const std::string& path, bool full) {
  for (LogDir& d : log_dirs_) {
    if (d.spec.path == path) d.disk.set_full(full);
  }
}

void Broker::fail_log_dir(const std::string& path) {
  for (std::size_t i = 0; i < log_dirs_.size(); ++i) {
    if (log_dirs_[i].spec.path != path) continue;
    log_dirs_[i].disk.fail();
    if (!is_running()) continue;
    if (!config_.mechanisms.has(Mechanism::JbodFailureHandling)) {
      // Before KIP-112 (1.0) an I/O error on any log dir halts the broker
      // (Log's "Halting due to unrecoverable I/O error").
      log_dirs_[i].online = false;
      crash(CrashKind::Process);
      return;
    }
    take_log_dir_offline(i, "disk failed");
  }
}

// Before KIP-112 a broker whose log dir failed cannot load its logs; after
// it, one whose dirs all failed (LogManager.createAndValidateLogDirs), and,
// with KIP-858, one whose metadata log dir failed (its Raft log cannot load).
bool Broker::halts_at_start() const {
  const auto failed = [](const LogDir& d) { return d.disk.failed(); };
  if (!config_.mechanisms.has(Mechanism::JbodFailureHandling)) return std::any_of(log_dirs_.begin(), log_dirs_.end(), failed);
  if (std::all_of(log_dirs_.begin(), log_dirs_.end(), failed)) return true;
  if (zookeeper_mode() || !config_.mechanisms.has(Mechanism::DirectoryAssignment)) return false;
  return std::any_of(log_dirs_.begin(), log_dirs_.end(), [&](const LogDir& d) { return failed(d) && d.spec.path == metadata_log_dir(); });
}

void Broker::add_partition_listener(PartitionListener* listener) {
  partition_listeners_.add(listener);
  for (auto& [tp, r] : replicas_) r.set_listener(&partition_listeners_);
}

const PartitionLog* Broker::log(TopicPartition tp) const {
  const Replica* r = replica(tp);
  return r ? &r->log() : nullptr;
}

bool Broker::is_leader(TopicPartition tp) const {
  const Replica* r = replica(tp);
  return r && r->is_leader() && is_running() && replica_online(*r);
}

std::optional<PartitionState> Broker::partition_state(TopicPartition tp) const {
  const Replica* r = replica(tp);
  if (!r) return std::nullopt;
  return r->state();
}

std::vector<LogDirStats> Broker::log_dir_stats() const {
  std::vector<LogDirStats> stats;
  for (std::size_t i = 0; i < log_dirs_.size(); ++i) {
    LogDirStats s{log_dirs_[i].spec.path, log_dirs_[i].partitions, 0, log_dirs_[i].online,
                  log_dirs_[i].disk.bytes_read(), log_dirs_[i].disk.used_bytes()};
    for (const auto& [tp, r] : replicas_) {
      if (r.log_dir == i) s.bytes += r.log().size_bytes();
      if (r.future && r.future->log_dir == i) s.bytes += r.future->log().size_bytes();  // KIP-113: a move's copy
    }
    stats.push_back(s);
  }
  return stats;
}

std::vector<TopicPartition> Broker::hosted_partitions() const {
  std::vector<TopicPartition> result;
  for (const auto& [tp, r] : replicas_) result.push_back(tp);
  return result;
}

}  // namespace ksim::models
