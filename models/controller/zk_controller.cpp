// A broker's ZooKeeper side: its session and registration, the controller
// election, and a new controller's failover (KafkaController.elect,
// onControllerFailover, initializeControllerContext).
#include "models/controller/zk_controller.hpp"

#include <cassert>
#include <utility>

#include "sim/core/simulation.hpp"

namespace ksim::models {

std::string_view to_string(ZkControllerRole role) {
  switch (role) {
    case ZkControllerRole::Unregistered: return "unregistered";
    case ZkControllerRole::Candidate: return "candidate";
    case ZkControllerRole::Loading: return "loading";
    case ZkControllerRole::Active: return "active";
  }
  return "?";
}

ZkController::ZkController(Simulation& sim, std::string name, HostId host, BrokerId broker, ZkControllerConfig config,
                           std::shared_ptr<const ClusterDirectory> directory, NodeId zookeeper, ModelEventBus& events)
    : Node(sim, std::move(name), host),
      broker_(broker),
      config_(config),
      directory_(std::move(directory)),
      zookeeper_(zookeeper),
      events_(events),
      zk_(*this, config.session_timeout) {
  zk_.on_session_established = [this] { session_established(); };
  // KafkaController's session expiration handler: resign; the new session registers and elects again.
  zk_.on_session_expired = [this] { resign(); };
  zk_.on_data_change(zk_data::kController, [this](ZkEventType type) {
    if (type == ZkEventType::NodeDeleted) return elect();
    watch_controller();
  });
  zk_.on_child_change(zk_data::kBrokerIds, [this](ZkEventType) { broker_change(); });
  zk_.on_child_change(zk_data::kTopics, [this](ZkEventType) { topic_change(); });
  zk_.on_child_change(zk_data::kIsrChangeNotifications, [this](ZkEventType) { isr_change_notifications(); });
  zk_.on_child_change(zk_data::kLogDirEvents, [this](ZkEventType) { log_dir_events(); });
}

void ZkController::on_start() {
  role_ = ZkControllerRole::Unregistered;
  zk_.start();
  if (!config_.alter_isr) set_timer(milliseconds(2500), [this] { propagate_isr_changes(); });
}

void ZkController::on_crash(CrashKind) {
  zk_.stop();
  registration_conflict_ = false;
  resign();
  role_ = ZkControllerRole::Unregistered;
  ++shutdown_attempt_;
  awaiting_broker_stop_ = false;
  shutdown_timeout_ = {};
  shutdown_connection_.reset();
  isr_changed_.clear();
}

void ZkController::session_established() {
  register_broker();
  elect();
}

// KafkaZkClient.registerBroker (checkedEphemeralCreate).
void ZkController::register_broker() {
  zk_.create(zk_data::broker_path(broker_), "{}", true, [this, g = generation_](const ZkResponse& r) {
    if (r.error == ZkError::Ok) {
      if (on_registered) on_registered(r.zxid);  // the create's zxid: the znode's czxid
      if (role_ == ZkControllerRole::Unregistered) role_ = ZkControllerRole::Candidate;
      if (std::exchange(registration_conflict_, false)) {  // the startup that failed goes on: serve, then elect
        if (on_registration_conflict) on_registration_conflict(false);
        elect();
      }
      return;
    }
    if (r.error != ZkError::NodeExists) return;
    ++stats_.registration_conflicts;
    if (!std::exchange(registration_conflict_, true) && on_registration_conflict) on_registration_conflict(true);
    set_timer(seconds(1), [this] {
      if (zk_.state() == ZkClientState::Connected) register_broker();
    });
    (void)g;
  });
}

void ZkController::watch_controller() {
  zk_.exists(zk_data::kController, true, nullptr);
}

// KafkaController.elect: create /controller and bump /controller_epoch at its version, or learn who won.
void ZkController::elect() {
  zk_.get_data(zk_data::kControllerEpoch, false, [this](const ZkResponse& epoch) {
    // KafkaController.startup comes after registerBroker: a process whose registration failed never runs it.
    if (registration_conflict_ || epoch.error != ZkError::Ok || !epoch.stat) return;
    const std::int32_t next = std::stoi(epoch.data.empty() ? "0" : epoch.data) + 1;
    auto request = std::make_unique<ZkRequest>();
    request->op = ZkOp::Multi;
    request->ops = {{ZkOp::Create, zk_data::kController, zk_data::encode_controller(broker_), kAnyZkVersion, true},
                    {ZkOp::SetData, zk_data::kControllerEpoch, std::to_string(next), epoch.stat->version}};
    zk_.send(std::move(request), [this, next](const ZkResponse& r) {
      if (r.error == ZkError::Ok) {
        epoch_ = next;
        ++stats_.elections_won;
        return failover();
      }
      if (r.error == ZkError::BadVersion) return elect();  // another won an election in between
      watch_controller();  // NODEEXISTS: a controller is active; elect again when it goes
    });
  });
  watch_controller();
}

// onControllerFailover: watch the brokers, topics and ISR notifications, read
// the brokers, the topics and every partition's state, then act.
void ZkController::failover() {
  role_ = ZkControllerRole::Loading;
  const SimTime started = now();
  zk_.get_children(zk_data::kBrokerIds, true, [this, g = generation_](const ZkResponse& ids) {
    if (g != generation_) return;
    live_.clear();
    for (const std::string& id : ids.children) live_[std::stoi(id)] = 0;
    for (auto& [broker, epoch] : live_) {  // the broker epochs: each registration's creating zxid
      zk_.exists(zk_data::broker_path(broker), false, [this, broker, g](const ZkResponse& r) {
        if (g == generation_ && r.stat) live_[broker] = r.stat->czxid;
      });
    }
  });
  zk_.get_children(zk_data::kTopics, true, [this, started, g = generation_](const ZkResponse& topics) {
    if (g == generation_) topics_read(topics.children, started);
  });
  zk_.get_children(zk_data::kIsrChangeNotifications, true, nullptr);
  zk_.get_children(zk_data::kLogDirEvents, true, nullptr);
}

void ZkController::topics_read(const std::vector<std::string>& topics, SimTime started) {
  topics_.clear();
  assignment_.clear();
  std::vector<std::int32_t> known;
  for (const std::string& name : topics) known.push_back(std::stoi(name.substr(5)));  // "topicT"
  read_assignments(known, [this, known, started] {
    std::vector<TopicPartition> all;
    for (const std::int32_t t : known) {
      topics_.insert(t);
      for (std::int32_t p = 0; p < partition_count(t); ++p) all.push_back({t, p});
    }
    load_partitions(std::move(all), started);
  });
}

void ZkController::read_assignments(std::vector<std::int32_t> topics, std::function<void()> done) {
  if (topics.empty()) return done();
  const std::size_t batch = config_.pipelined_reads ? topics.size() : 1;
  auto left = std::make_shared<std::size_t>(batch);
  auto rest = std::make_shared<std::vector<std::int32_t>>(topics.begin() + static_cast<std::ptrdiff_t>(batch), topics.end());
  auto finished = std::make_shared<std::function<void()>>(std::move(done));
  for (std::size_t i = 0; i < batch; ++i) {
    const std::int32_t t = topics[i];
    zk_.get_data(zk_data::topic_path(t), false, [this, t, left, rest, finished, g = generation_](const ZkResponse& r) {
      if (g != generation_) return;
      if (r.error == ZkError::Ok) {
        if (auto assignment = zk_data::decode_assignment(r.data)) assignment_[t] = std::move(*assignment);
      }
      if (--*left == 0) read_assignments(std::move(*rest), std::move(*finished));
    });
  }
}

void ZkController::assign(PartitionState& state) const {
  const auto it = assignment_.find(state.partition.topic);
  const auto p = static_cast<std::size_t>(state.partition.partition);
  if (it == assignment_.end() || p >= it->second.size()) return;
  state.replicas = it->second[p].replicas;
  state.adding = it->second[p].adding;
  state.removing = it->second[p].removing;
}

// updateLeaderAndIsrCache: every partition's state znode, pipelined (1.1+) or one after another.
void ZkController::load_partitions(std::vector<TopicPartition> remaining, SimTime started) {
  if (remaining.empty()) return finish_loading(started);
  const std::size_t batch = config_.pipelined_reads ? remaining.size() : 1;
  auto left = std::make_shared<std::size_t>(batch);
  auto rest = std::make_shared<std::vector<TopicPartition>>(remaining.begin() + static_cast<std::ptrdiff_t>(batch),
                                                            remaining.end());
  for (std::size_t i = 0; i < batch; ++i) {
    const TopicPartition tp = remaining[i];
    zk_.get_data(zk_data::partition_state_path(tp), false, [this, tp, left, rest, started, g = generation_](const ZkResponse& r) {
      if (g != generation_) return;
      if (const auto state = zk_data::decode_leader_and_isr(r.data); r.error == ZkError::Ok && state && r.stat) {
        PartitionState& s = partitions_[tp];
        s.partition = tp;
        assign(s);
        s.leader = state->leader;
        s.leader_epoch = state->leader_epoch;
        s.isr = state->isr;
        s.partition_epoch = r.stat->version;
      }
      if (--*left == 0) load_partitions(std::move(*rest), started);
    });
  }
}

void ZkController::finish_loading(SimTime started) {
  role_ = ZkControllerRole::Active;
  stats_.last_load_time = now() - started;
  publish(ControllerLoading{partitions_.size(), stats_.last_load_time});
  publish(ControllerActivated{broker_, epoch_});
  push_all(live_brokers());  // sendUpdateMetadataRequest to every live broker
  flush_pushes();
  // The replica and partition state machines' startup: dead replicas leave ISRs, offline partitions get leaders.
  std::vector<BrokerId> gone;
  for (BrokerId b = 0; b < static_cast<BrokerId>(directory_->broker_nodes.size()); ++b) {
    if (!live(b)) gone.push_back(b);
  }
  on_broker_failure(gone);
  // NewPartition -> OnlinePartition: partitions of known topics without a state yet get one.
  for (const std::int32_t t : topics_) {
    for (std::int32_t p = 0; p < partition_count(t); ++p) {
      if (!partitions_.contains({t, p})) {
        create_partition_states(t);
        break;
      }
    }
  }
  resume_reassignments([](const zk_data::PartitionAssignment&) { return true; });  // initializePartitionReassignments
  // What changed while it loaded, in the order Kafka's handlers were registered.
  if (std::exchange(brokers_changed_, false)) broker_change();
  if (std::exchange(topics_changed_, false)) topic_change();
  if (std::exchange(isr_changes_, false)) isr_change_notifications();
  if (std::exchange(log_dir_events_, false)) log_dir_events();
}

// onControllerResignation: the context goes; what was started for it is outdated.
void ZkController::resign() {
  topics_changed_ = brokers_changed_ = isr_changes_ = log_dir_events_ = false;
  offline_replicas_.clear();
  shutting_down_.clear();
  reassigning_.clear();
  cancelled_.clear();
  if (role_ == ZkControllerRole::Active || role_ == ZkControllerRole::Loading) role_ = ZkControllerRole::Candidate;
  ++generation_;
  live_.clear();
  partitions_.clear();
  pending_push_.clear();
  writes_in_flight_ = 0;
  close_channels();
}

void ZkController::on_connection_closed(ConnectionId connection) {
  if (zk_.owns(connection)) return zk_.on_connection_closed(connection);
  if (shutdown_connection_ == connection) {  // the controller went while it was asked
    shutdown_connection_.reset();
    return controlled_shutdown_failed();
  }
  channel_closed(connection);
}

void ZkController::on_message(ConnectionId connection, MessagePtr message) {
  const ApiMessage& m = api_message(*message);
  if (m.api_key() == ApiKey::ZooKeeper) {
    zk_.handle(message_as<ZkResponse>(m));
    if (role_ == ZkControllerRole::Active) flush_pushes();
    return;
  }
  if (m.api_key() == ApiKey::AlterPartition && !m.is_response()) {
    const auto& request = message_as<AlterPartitionRequest>(m);
    if (!config_.alter_isr) return leader_writes_isr(connection, request);
    return handle_alter_isr(connection, request);
  }
  if (m.api_key() == ApiKey::ControlledShutdown) {
    if (!m.is_response()) return handle_controlled_shutdown(connection, message_as<ControlledShutdownRequest>(m));
    if (connection != shutdown_connection_) return;  // a try given up
    const auto& answer = message_as<ControlledShutdownResponse>(m);
    return controlled_shutdown_answered(answer.error, answer.remaining_partitions.size());
  }
  if (m.api_key() == ApiKey::BrokerHeartbeat && !m.is_response()) {
    // From its own broker: replicas on a failed log dir (ReplicaManager.handleLogDirFailure ->
    // KafkaZkClient.propagateLogDirEvent).
    const auto& report = message_as<BrokerHeartbeat>(m);
    if (!report.offline_replicas.empty()) {
      zk_.create(zk_data::kLogDirEventPrefix, zk_data::encode_log_dir_event(report.broker, report.offline_replicas), false,
                 nullptr, true);
    }
    return;
  }
  if (m.api_key() == ApiKey::CreateTopics && !m.is_response()) {
    return handle_create_topics(connection, message_as<CreateTopicsRequest>(m));
  }
  if (m.api_key() == ApiKey::UpdateMetadata && m.is_response()) return channel_answered(connection);
  if (m.api_key() == ApiKey::AlterPartition) return;  // a broker's answer
  unexpected_message(name(), m);
}

}  // namespace ksim::models
