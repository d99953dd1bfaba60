// The scenario's `operations:`: an operator's Admin API calls at given times.
// A call goes to the active controller (Kafka's admin client sends it to a
// broker, which forwards it there); while there is none, it is retried every
// retry.backoff.ms (100 ms) for up to default.api.timeout.ms (60 s), as the
// admin client retries NOT_CONTROLLER.
#include "app/harness/cluster.hpp"

namespace ksim::app {

namespace {
constexpr SimTime kAdminRetryBackoff = milliseconds(100);  // retry.backoff.ms
constexpr SimTime kAdminApiTimeout = seconds(60);          // default.api.timeout.ms
}  // namespace

void Cluster::schedule_operations() {
  const KafkaSpec& kafka = *scenario_.kafka;
  events_->subscribe([this](SimTime t, const Node&, const models::ModelEvent& e) { reassignments_.on_event(t, e); });
  for (std::size_t i = 0; i < kafka.operations.size(); ++i) {
    operation_results_.push_back({i, kNever, {}, {}});
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
    case OperationSpec::Kind::DecommissionBroker: {
      std::vector<models::BrokerPlacement> others = broker_placement_;
      std::erase_if(others, [&](const models::BrokerPlacement& b) { return b.id == op.broker; });
      RandomStream rng = sim_->stream("operation-" + std::to_string(index));
      for (std::size_t t = 0; t < kafka.topics.size(); ++t) {
        const models::TopicSpec& topic = kafka.topics[t];
        const auto targets = models::assign_replicas(others, topic.partitions, topic.replication_factor, rng);
        for (std::size_t p = 0; p < targets.size(); ++p) {
          changes.push_back({{static_cast<std::int32_t>(t), static_cast<std::int32_t>(p)}, targets[p]});
        }
      }
      break;
    }
  }
  return changes;
}

void Cluster::run_operation(std::size_t index, SimTime first_try) {
  const OperationSpec& op = scenario_.kafka->operations[index];
  models::Controller* active = nullptr;
  for (models::Controller* c : controllers_) {
    if (c->is_active()) active = c;
  }
  OperationResult& result = operation_results_[index];
  if (!active) {
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
  if (op.throttle > 0) {  // --throttle: every broker's leader rate, the moved partitions throttled
    std::vector<models::TopicPartition> moved;
    for (const auto& [tp, target] : changes) moved.push_back(tp);
    for (models::Broker* b : brokers_) b->throttle_leader_replication(op.throttle, moved);
  }
  for (const auto& [tp, target] : changes) {
    result.partitions.push_back(tp);
    result.errors.push_back(active->alter_partition_reassignment(tp, target));
  }
}

}  // namespace ksim::app
