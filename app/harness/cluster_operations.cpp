// The scenario's `operations:`: an operator's Admin API calls at given times.
// A call goes to the active controller (Kafka's admin client sends it to a
// broker, which forwards it there); while there is none, it is retried every
// retry.backoff.ms (100 ms) for up to default.api.timeout.ms (60 s), as the
// admin client retries NOT_CONTROLLER.
#include <cstdio>

#include "app/harness/cluster.hpp"
#include "models/controller/zk_data.hpp"

namespace ksim::app {

namespace {
constexpr SimTime kAdminRetryBackoff = milliseconds(100);  // retry.backoff.ms
constexpr SimTime kAdminApiTimeout = seconds(60);          // default.api.timeout.ms
}  // namespace

void Cluster::schedule_operations() {
  const KafkaSpec& kafka = *scenario_.kafka;
  events_->subscribe([this](SimTime t, const Node&, const models::ModelEvent& e) {
    reassignments_.on_event(t, e);
    log_dir_moves_.on_event(t, e);
    if (const auto* unfenced = std::get_if<models::BrokerUnfenced>(&e)) note_broker_added(unfenced->broker, t);
    const auto* move = std::get_if<models::LogDirMoveChanged>(&e);
    if (move && move->phase != models::LogDirMovePhase::Started) {
      // Looked at once the broker has finished with the move (it publishes before it drops the future replica).
      sim_->events().schedule_at(t, [this, broker = move->broker] { note_log_dir_moves_done(broker); });
    }
  });
  if (zookeeper_) {  // before KRaft a broker is added once its registration, /brokers/ids/N, exists
    zookeeper_->observe_changes([this](const std::string& path) {
      models::BrokerId b = 0;
      int end = 0;
      if (std::sscanf(path.c_str(), "/brokers/ids/%d%n", &b, &end) != 1 || path.size() != static_cast<std::size_t>(end)) return;
      if (zookeeper_->tree().find(path)) note_broker_added(b, sim_->now());
    });
  }
  for (std::size_t i = 0; i < kafka.operations.size(); ++i) {
    OperationResult result;
    result.operation = i;
    operation_results_.push_back(std::move(result));
    sim_->events().schedule_at(kafka.operations[i].at, [this, i] { run_operation(i, sim_->now()); });
  }
}

// What the operation asks of each partition: a target, or nullopt to cancel.
// A decommission is kafka-reassign-partitions --generate for every topic over
// the other brokers (AdminUtils' placement, its random start from the
// operation's own stream), then --execute: every partition, moved or not.
std::vector<Cluster::PartitionChange> Cluster::operation_changes(std::size_t index) {
  const KafkaSpec& kafka = *scenario_.kafka;
  const OperationSpec& op = kafka.operations[index];
  std::vector<PartitionChange> changes;
  switch (op.kind) {
    case OperationSpec::Kind::ReassignPartitions:
      for (const auto& [partition, target] : op.replicas) changes.push_back({{op.topic, partition}, target});
      break;
    case OperationSpec::Kind::CancelReassignment:
      for (const std::int32_t partition : op.partitions) changes.push_back({{op.topic, partition}, std::nullopt});
      break;
    case OperationSpec::Kind::DecommissionBroker:
    case OperationSpec::Kind::GenerateReassignment: {
      // The --broker-list: a decommission's is every broker running then but the one leaving.
      std::vector<models::BrokerId> list = op.brokers;
      if (op.kind == OperationSpec::Kind::DecommissionBroker) {
        list = brokers_present_at(kafka, op.at);
        std::erase(list, op.broker);
      }
      std::vector<models::BrokerPlacement> over;
      for (const models::BrokerPlacement& b : broker_placement_) {
        if (std::find(list.begin(), list.end(), b.id) != list.end()) over.push_back(b);
      }
      RandomStream rng = sim_->stream("operation-" + std::to_string(index));
      // The --topics-to-move-json: the scenario's topics, then with internal_topics the internal ones.
      std::vector<std::pair<std::int32_t, models::TopicSpec>> topics;
      for (std::size_t t = 0; t < kafka.topics.size(); ++t) topics.emplace_back(static_cast<std::int32_t>(t), kafka.topics[t]);
      if (op.internal_topics && offsets_topic_ >= 0) topics.emplace_back(offsets_topic_, offsets_topic());
      if (op.internal_topics && transaction_topic_ >= 0) topics.emplace_back(transaction_topic_, transaction_topic());
      for (const auto& [t, topic] : topics) {
        const auto targets = models::assign_replicas(over, topic.partitions, topic.replication_factor, rng);
        for (std::size_t p = 0; p < targets.size(); ++p) changes.push_back({{t, static_cast<std::int32_t>(p)}, targets[p]});
      }
      break;
    }
    case OperationSpec::Kind::AlterReplicaLogDirs:
    case OperationSpec::Kind::BalanceLogDirs:
    case OperationSpec::Kind::AddBroker: break;  // not the controller's (run_log_dir_operation, start_time)
    case OperationSpec::Kind::CreateTopic:  // all of its partitions, in one CreateTopics (run_operation)
      for (std::int32_t p = 0; p < kafka.topics[static_cast<std::size_t>(op.topic)].partitions; ++p) {
        changes.push_back({{op.topic, p}, std::nullopt});
      }
      break;
  }
  return changes;
}

// An added broker's process starts at the operation's time (start_time); the operation is done when the
// controller unfences it: registered, caught up with the metadata, ready for replicas (KRaft), or when it
// has registered in ZooKeeper (before KRaft: the controller's watch then tells every broker of it).
void Cluster::note_broker_added(models::BrokerId broker, SimTime t) {
  for (OperationResult& result : operation_results_) {
    const OperationSpec& op = scenario_.kafka->operations[result.operation];
    if (op.kind == OperationSpec::Kind::AddBroker && op.broker == broker && result.applied_at == kNever) {
      result.applied_at = t;
    }
  }
}

void Cluster::run_operation(std::size_t index, SimTime first_try) {
  const OperationSpec& op = scenario_.kafka->operations[index];
  if (op.kind == OperationSpec::Kind::AddBroker) return;  // the broker starts then (start_time)
  if (op.kind == OperationSpec::Kind::AlterReplicaLogDirs || op.kind == OperationSpec::Kind::BalanceLogDirs) {
    return run_log_dir_operation(index, first_try);
  }
  models::Controller* active = nullptr;
  for (models::Controller* c : controllers_) {
    if (c->is_active()) active = c;
  }
  models::ZkController* active_zookeeper_side = nullptr;  // before KRaft: the broker that is the controller
  for (models::ZkController* side : zookeeper_sides_) {
    if (side->is_active()) active_zookeeper_side = side;
  }
  OperationResult& result = operation_results_[index];
  if (!active && !active_zookeeper_side) {
    if (sim_->now() - first_try + kAdminRetryBackoff <= kAdminApiTimeout) {
      sim_->events().schedule_at(sim_->now() + kAdminRetryBackoff, [this, index, first_try] {
        run_operation(index, first_try);
      });
    } else {
      for (const auto& [tp, target] : operation_changes(index)) {
        result.partitions.push_back(tp);
        result.errors.push_back(models::Error::RequestTimedOut);
      }
    }
    return;
  }
  result.applied_at = sim_->now();
  const std::vector<PartitionChange> changes = operation_changes(index);
  if (op.kind == OperationSpec::Kind::CreateTopic) {
    RandomStream rng = sim_->stream("operation-" + std::to_string(index));  // the placement's random start
    const models::Error error = active ? active->create_topic(op.topic, rng) : active_zookeeper_side->create_topic(op.topic, rng);
    for (const auto& [tp, target] : changes) {
      result.partitions.push_back(tp);
      result.errors.push_back(error);
    }
    return;
  }
  if (op.throttle > 0) {  // --throttle: every broker's leader and follower rates, the moved partitions throttled
    std::vector<models::TopicPartition> moved;
    for (const auto& [tp, target] : changes) moved.push_back(tp);
    for (models::Broker* b : brokers_) b->throttle_replication(op.throttle, moved);
  }
  for (const auto& [tp, target] : changes) {
    result.partitions.push_back(tp);
    result.errors.push_back(active ? active->alter_partition_reassignment(tp, target)
                                   : active_zookeeper_side->alter_partition_reassignment(tp, target));
  }
}

// AlterReplicaLogDirs goes to the broker that hosts the replicas (the admin
// client retries a broker it cannot reach until default.api.timeout.ms). A
// balance plans its moves from the broker's log dirs as they are then.
void Cluster::run_log_dir_operation(std::size_t index, SimTime first_try) {
  const OperationSpec& op = scenario_.kafka->operations[index];
  models::Broker& broker = *brokers_[static_cast<std::size_t>(op.broker)];
  OperationResult& result = operation_results_[index];
  if (!broker.is_running()) {
    if (sim_->now() - first_try + kAdminRetryBackoff <= kAdminApiTimeout) {
      sim_->events().schedule_at(sim_->now() + kAdminRetryBackoff, [this, index, first_try] {
        run_log_dir_operation(index, first_try);
      });
    } else {
      for (const auto& [partition, path] : op.log_dirs) {  // a balance had no plan: nothing to list
        result.partitions.push_back({op.topic, partition});
        result.errors.push_back(models::Error::RequestTimedOut);
      }
    }
    return;
  }
  result.applied_at = sim_->now();
  for (const models::LogDirStats& d : broker.log_dir_stats()) result.log_dirs_before.emplace_back(d.path, d.bytes);
  std::vector<std::pair<models::TopicPartition, std::string>> moves;
  if (op.kind == OperationSpec::Kind::AlterReplicaLogDirs) {
    for (const auto& [partition, path] : op.log_dirs) moves.emplace_back(models::TopicPartition{op.topic, partition}, path);
  } else {
    const auto paths = broker.log_dir_stats();
    for (const models::LogDirMove& m : models::plan_log_dir_balance(broker.replica_placements(), broker.log_dirs_online())) {
      moves.emplace_back(m.partition, paths[m.to].path);
    }
  }
  if (op.throttle > 0) broker.throttle_log_dir_moves(op.throttle);
  const std::vector<models::Error> errors = broker.alter_replica_log_dirs(moves);
  for (std::size_t i = 0; i < moves.size(); ++i) {
    result.partitions.push_back(moves[i].first);
    result.errors.push_back(errors[i]);
  }
}

void Cluster::note_log_dir_moves_done(models::BrokerId broker) {
  const models::Broker& b = *brokers_[static_cast<std::size_t>(broker)];
  if (b.log_dir_moves_in_progress() > 0) return;
  for (OperationResult& result : operation_results_) {
    const OperationSpec& op = scenario_.kafka->operations[result.operation];
    const bool log_dir_operation =
        op.kind == OperationSpec::Kind::AlterReplicaLogDirs || op.kind == OperationSpec::Kind::BalanceLogDirs;
    if (!log_dir_operation || op.broker != broker || result.applied_at == kNever || result.moves_done_at != kNever) continue;
    result.moves_done_at = sim_->now();
    for (const models::LogDirStats& d : b.log_dir_stats()) result.log_dirs_after_moves.emplace_back(d.path, d.bytes);
  }
}

}  // namespace ksim::app
