// The controller as a member of the KRaft controller quorum (KIP-500,
// KIP-595, KIP-631), as QuorumController with its RaftClient: every
// controller hosts a Raft replica of the metadata log (models/raft/) and
// replays what is committed into its metadata image (QuorumMetaLogListener.
// handleCommit); the Raft leader, once the log of earlier epochs is replayed,
// is the active controller (claim). It decides on its in-memory state, which
// runs ahead of the log, writes every change as records (write), and acts
// outside only on what is committed: a request's response waits until
// everything written before it answered is committed (QuorumController's
// purgatory of ControllerWriteEvents). Brokers fetch the committed log
// themselves, as observers of the quorum (KIP-631, broker_metadata_log.cpp):
// nothing is pushed to them. A
// controller that stops leading reverts to the committed state and answers
// what waited NOT_CONTROLLER (renounce). A standby answers every broker
// request NOT_CONTROLLER, naming the leader it knows.
//
// Without a quorum (one controller) none of this runs: the controller acts
// on its durable metadata at once, as ksim did before the quorum.
#include <algorithm>

#include "models/controller/controller.hpp"
#include "sim/core/simulation.hpp"
#include "sim/core/state_machine.hpp"

namespace ksim::models {

// The replica sends through the controller's connections and timers; its
// commits and leader changes come back as the controller's (RaftClient.Listener).
class Controller::QuorumHost final : public RaftHost {
 public:
  explicit QuorumHost(Controller& controller) : c_(controller) {}
  SimTime now() const override { return c_.now(); }
  RandomStream& random() override { return c_.rng(); }
  void send(RaftNodeId to, MessagePtr message) override {
    c_.raft_connections_.send(
        to, std::move(message),
        [this](RaftNodeId peer) { return c_.connect(c_.directory_->controller_nodes.at(static_cast<std::size_t>(peer))); },
        [this](ConnectionId connection, MessagePtr m) { c_.send(connection, std::move(m)); });
  }
  TimerId set_timer(SimTime delay) override {
    return c_.set_timer(delay, [c = &c_] {
      if (c->raft_) c->raft_->on_timer();
    });
  }
  void cancel_timer(TimerId id) override { c_.cancel_timer(id); }
  void on_committed(Offset from, Offset to) override { c_.replay_committed(from, to); }
  void on_become_leader(Epoch epoch) override { c_.claim(epoch); }
  void on_become_follower(RaftNodeId leader, Epoch) override {
    c_.renounce();
    if (c_.role_ == ControllerRole::Stopping && leader != kNoRaftNode) {
      c_.set_timer(0, [c = &c_] { c->crash(CrashKind::Shutdown); });
    }
  }

 private:
  Controller& c_;
};

Controller::Controller(Simulation& sim, std::string name, HostId host, ControllerConfig config,
                       std::shared_ptr<const ClusterDirectory> directory, ModelEventBus& events, RaftNodeId quorum_id,
                       const RaftConfig& raft)
    : Node(sim, std::move(name), host),
      config_(config),
      directory_(std::move(directory)),
      events_(events),
      quorum_id_(quorum_id),
      raft_config_(raft) {
  brokers_.resize(directory_->broker_nodes.size());
  raft_host_ = std::make_unique<QuorumHost>(*this);
  set_connect_timeout(config_.connection_setup_timeout);
}

Controller::~Controller() = default;

// In a quorum: claimed, and its replica still leads that epoch (a leader that
// resigned, cut off from the others, renounces only once it learns the next epoch).
bool Controller::is_active() const {
  if (state() != NodeState::Running) return false;
  if (!in_quorum()) return !loading_;
  return role_ == ControllerRole::Active && raft_ && raft_->role() == RaftRole::Leader && raft_->epoch() == active_epoch_;
}

// A (re)started controller is a standby: it replays the committed log from
// the start (no snapshots) once its replica learns the high watermark.
void Controller::start_quorum_member() {
  committed_ = bootstrap_;
  restore_committed_state();
  role_ = ControllerRole::Standby;
  std::vector<RaftNodeId> voters;
  for (std::size_t i = 0; i < directory_->controller_nodes.size(); ++i) voters.push_back(static_cast<RaftNodeId>(i));
  raft_ = std::make_unique<RaftReplica>(*raft_host_, quorum_id_, std::move(voters), raft_config_, raft_durable_);
  raft_->start();
}

// A clean stop (KafkaRaftClient.shutdown, with RaftManager's 5 s): the Raft
// leader stops acting, resigns, so that the others elect a successor at once
// (EndQuorumEpoch), and stops once another leads, or after 5 s; any other
// controller stops at once.
void Controller::on_shutdown_requested() {
  if (!in_quorum() || !raft_ || raft_->role() != RaftRole::Leader) return crash(CrashKind::Shutdown);
  renounce();
  transition(role_, ControllerRole::Stopping, "controller", name());
  raft_->resign(raft_->epoch());
  set_timer(seconds(5), [this] { crash(CrashKind::Shutdown); });
}

void Controller::on_power_loss_while_down() {
  if (in_quorum()) raft_durable_.lose_power();
}

// Process state goes; the metadata log and election state stay, but a power
// loss takes what the log had not flushed.
void Controller::stop_quorum_member(CrashKind kind) {
  raft_.reset();
  raft_connections_.clear();
  if (kind == CrashKind::Machine) raft_durable_.lose_power();
  role_ = ControllerRole::Standby;  // the process is gone: its next start is a standby's
  responding_.clear();
  awaiting_commit_.clear();
  election_queue_.clear();
  queued_.clear();
  electing_ = false;
}

void Controller::handle_raft_message(ConnectionId connection, const Message& message) {
  if (!raft_) return;
  raft_connections_.received(connection, message);
  raft_->handle(message);
}

// QuorumController renounces when it finds its Raft client no longer leading
// its epoch (a write fails); true while it is the active controller.
bool Controller::still_leading() {
  const bool active = role_ == ControllerRole::Active;
  if (active && !(raft_ && raft_->role() == RaftRole::Leader && raft_->epoch() == active_epoch_)) renounce();
  return role_ == ControllerRole::Active;
}

// The active controller as this one knows it (the Raft leader), -1 when it knows none.
std::int32_t Controller::known_active() const { return raft_ ? raft_->leader() : -1; }

void Controller::answer_not_controller(ConnectionId connection, const ApiMessage& request) {
  if (request.api_key() == ApiKey::BrokerHeartbeat) {
    return send_not_controller(connection, std::make_unique<BrokerHeartbeatResponse>());
  }
  if (request.api_key() == ApiKey::AssignReplicasToDirs) {
    auto response = std::make_unique<AssignReplicasToDirsResponse>();
    response->correlation_id = message_as<AssignReplicasToDirsRequest>(request).correlation_id;
    return send_not_controller(connection, std::move(response));
  }
  if (request.api_key() != ApiKey::AlterPartition) unexpected_message(name(), request);
  const auto& alter = message_as<AlterPartitionRequest>(request);
  auto response = std::make_unique<AlterPartitionResponse>();
  response->state.partition = alter.partition;
  response->proposed_leader_epoch = alter.leader_epoch;
  response->proposed_partition_epoch = alter.partition_epoch;
  response->proposed_isr = alter.new_isr;
  send_not_controller(connection, std::move(response));
}

void Controller::send_not_controller(ConnectionId connection, PendingResponse response) {
  std::visit(
      [&](auto& r) {
        r->error = Error::NotController;
        r->active_controller = known_active();
        send(connection, std::move(r));
      },
      response);
}

void Controller::respond_when_committed(ConnectionId connection, PendingResponse response) {
  if (!in_quorum()) return std::visit([&](auto& r) { send(connection, std::move(r)); }, response);
  responding_.emplace_back(connection, std::move(response));
}

// After each event, the responses it made wait for the last offset written
// by then (their own records, or the earlier ones they read) to be committed.
void Controller::after_event() {
  if (responding_.empty()) return;
  for (auto& [connection, response] : responding_) {
    if (role_ != ControllerRole::Active) {
      send_not_controller(connection, std::move(response));
    } else if (committed_.end_offset >= written_end_) {
      std::visit([&, c = connection](auto& r) { send(c, std::move(r)); }, response);
    } else {
      awaiting_commit_.push_back({written_end_, connection, std::move(response)});
    }
  }
  responding_.clear();
}

// The changes since the last write, as one batch of records: the brokers
// whose registration changed, then `states`.
void Controller::write(const std::vector<PartitionState>& states) {
  if (role_ != ControllerRole::Active) return;
  std::vector<RaftRecordPtr> records;
  for (std::size_t b = 0; b < brokers_.size(); ++b) {
    const BrokerRegistration& registration = brokers_[b];
    if (registration == logged_[b]) continue;
    logged_[b] = registration;
    records.push_back(std::make_shared<BrokerRegistrationRecord>(static_cast<BrokerId>(b), registration));
  }
  for (const PartitionState& state : states) records.push_back(std::make_shared<PartitionChangeRecord>(state));
  if (records.empty()) return;
  std::vector<std::pair<BrokerId, std::size_t>> registering;  // a new process's first record, at its index
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto& m = static_cast<const MetadataRecord&>(*records[i]);
    if (m.kind() != MetadataRecord::Kind::BrokerRegistrationChange) continue;
    const BrokerId b = static_cast<const BrokerRegistrationRecord&>(m).broker;
    if (registered_at_[static_cast<std::size_t>(b)] == kUnregistered) registering.emplace_back(b, i);
  }
  const std::size_t count = records.size();
  const std::optional<Offset> last = raft_ ? raft_->append(active_epoch_, std::move(records)) : std::nullopt;
  if (!last) {
    // The replica resigned and has not learnt the next epoch yet: renounce, after this event.
    set_timer(0, [this] { still_leading(); });
    return;
  }
  const Offset first = *last + 1 - static_cast<Offset>(count);
  for (const auto& [b, i] : registering) registered_at_[static_cast<std::size_t>(b)] = first + static_cast<Offset>(i) + 1;
  written_end_ = *last + 1;
}

// The entries in [from, to) are committed: replayed into the image, and what
// waited for them is answered. A broker's record with a new process is its
// registration: the broker is unfenced once it has applied the log up to it.
void Controller::replay_committed(Offset from, Offset to) {
  const RaftLog& log = raft_durable_.log();
  for (Offset offset = from; offset < to; ++offset) {
    const RaftEntry& entry = log.at(offset);
    if (entry.record->is_control()) continue;
    const auto& record = static_cast<const MetadataRecord&>(*entry.record);
    if (record.kind() == MetadataRecord::Kind::BrokerRegistrationChange) {
      const auto& r = static_cast<const BrokerRegistrationRecord&>(record);
      const auto b = static_cast<std::size_t>(r.broker);
      const BrokerRegistration& before = committed_.brokers[b];
      if (r.registration.ever_registered && (!before.ever_registered || before.incarnation != r.registration.incarnation)) {
        committed_.registered_at[b] = offset + 1;
      }
    }
    committed_.replay(record);
  }
  committed_.end_offset = to;
  while (!awaiting_commit_.empty() && awaiting_commit_.front().offset <= to) {
    AwaitingCommit& done = awaiting_commit_.front();
    std::visit([&](auto& r) { send(done.connection, std::move(r)); }, done.response);
    awaiting_commit_.pop_front();
  }
}

// QuorumController.claim: the new active controller starts from the committed
// metadata. Every broker gets a fresh session (ClusterControlManager.activate
// registers them all with a new BrokerHeartbeatManager, as if just heard
// from): none is fenced before broker.session.timeout.ms without heartbeats.
void Controller::claim(Epoch epoch) {
  if (role_ == ControllerRole::Stopping) return;  // it exits soon: another stands (Kafka's stays resigned)
  transition(role_, ControllerRole::Active, "controller", name());
  active_epoch_ = epoch;
  restore_committed_state();
  leaderless_since_.clear();
  publish(ControllerActivated{quorum_id_, epoch});
  for (Registration& r : brokers_) {
    r.metadata_offset = -1;
    r.shutdown_offset = r.shutting_down ? written_end_ : -1;
  }
  activate();
  queue_elections_for_leaderless();
}

// A deposed leader whose successor the last active controller had not elected
// yet, or a leader it had not moved yet (its batch was not written): the
// records of one event are committed together or not at all.
void Controller::queue_elections_for_leaderless() {
  for (auto& [tp, state] : partitions_) {
    const TopicPartition partition = tp;
    const BrokerId leader = state.leader;
    if (leader != kNoBroker && is_usable(leader, partition)) continue;
    if (leader != kNoBroker && !brokers_[static_cast<std::size_t>(leader)].ever_registered) continue;  // the bootstrap image
    if (leader != kNoBroker) {
      depose(state);
      queue_election(tp, leader);
    } else if (std::any_of(state.replicas.begin(), state.replicas.end(),
                           [&](BrokerId b) { return is_usable(b, partition); })) {
      queue_election(tp, kNoBroker);
    }
  }
}

// QuorumController.renounce: the controller stops acting, drops what it had
// not committed (revertToSnapshot of the last committed offset), and answers
// what waited for its writes NOT_CONTROLLER.
void Controller::renounce() {
  if (role_ != ControllerRole::Active) return;
  transition(role_, ControllerRole::Standby, "controller", name());
  ++stats_.renouncements;
  const Offset uncommitted = std::max<Offset>(0, written_end_ - committed_.end_offset);
  stats_.reverted_records += static_cast<std::uint64_t>(uncommitted);
  publish(ControllerRenounced{quorum_id_, active_epoch_, static_cast<std::size_t>(uncommitted)});
  cancel_timer(session_timer_);
  cancel_timer(election_timer_);
  election_queue_.clear();
  queued_.clear();
  electing_ = false;
  restore_committed_state();
  while (!awaiting_commit_.empty()) {
    send_not_controller(awaiting_commit_.front().connection, std::move(awaiting_commit_.front().response));
    awaiting_commit_.pop_front();
  }
}

// The in-memory state becomes the committed metadata.
void Controller::restore_committed_state() {
  partitions_ = committed_.partitions;
  for (std::size_t b = 0; b < brokers_.size(); ++b) {
    static_cast<BrokerRegistration&>(brokers_[b]) = committed_.brokers[b];
  }
  logged_ = committed_.brokers;
  registered_at_ = committed_.registered_at;
  written_end_ = committed_.end_offset;
}

}  // namespace ksim::models
