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
    operation_results_.push_back({i, kNever, {}});
    sim_->events().schedule_at(kafka.operations[i].at, [this, i] { run_operation(i, sim_->now()); });
  }
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
      result.errors.assign(op.kind == OperationSpec::Kind::ReassignPartitions ? op.replicas.size() : op.partitions.size(),
                           models::Error::RequestTimedOut);
    }
    return;
  }
  result.applied_at = sim_->now();
  if (op.kind == OperationSpec::Kind::ReassignPartitions) {
    if (op.throttle > 0) {  // --throttle: every broker's leader rate, the moved partitions throttled
      std::vector<models::TopicPartition> moved;
      for (const auto& [partition, target] : op.replicas) moved.push_back({op.topic, partition});
      for (models::Broker* b : brokers_) b->throttle_leader_replication(op.throttle, moved);
    }
    for (const auto& [partition, target] : op.replicas) {
      result.errors.push_back(active->alter_partition_reassignment({op.topic, partition}, target));
    }
  } else {
    for (const std::int32_t partition : op.partitions) {
      result.errors.push_back(active->alter_partition_reassignment({op.topic, partition}, std::nullopt));
    }
  }
}

}  // namespace ksim::app
