// CreateTopics on the KRaft controller (ReplicationControlManager.createTopic):
// a topic of the directory that the cluster did not start with is created
// while it runs. Its partitions are placed over the usable brokers (registered,
// not in controlled shutdown: ClusterControlManager.usableBrokers), or as the
// request assigns them; each partition's ISR is its replicas that are active
// (unfenced, not shutting down), its leader the first of them, at leader and
// partition epoch 0 (buildPartitionRegistration). The records go to the
// metadata log (alone: pushed to the brokers), and a broker that finds itself
// among a new partition's replicas creates it (ReplicaManager.applyDelta).
//
// Simplified: the placement is AdminUtils' rack-aware one (replica_assignment.hpp),
// not StripedReplicaPlacer's, which also puts fenced brokers last.
#include "models/controller/controller.hpp"
#include "models/controller/replica_assignment.hpp"

namespace ksim::models {

Error Controller::create_topic(std::int32_t topic, RandomStream& rng) {
  if (!is_active()) return Error::NotController;
  const TopicSpec& spec = directory_->topics[static_cast<std::size_t>(topic)];
  if (partitions_.contains({topic, 0})) return Error::TopicAlreadyExists;
  std::vector<std::vector<BrokerId>> replicas = spec.assignment;
  if (replicas.empty()) {
    std::vector<BrokerPlacement> usable;
    for (const BrokerPlacement& b : placement_) {
      const Registration& r = brokers_[static_cast<std::size_t>(b.id)];
      if (r.ever_registered && !r.shutting_down) usable.push_back(b);
    }
    // StripedReplicaPlacer: "The target replication factor of N cannot be reached because only M broker(s) are registered."
    if (usable.size() < static_cast<std::size_t>(spec.replication_factor)) return Error::InvalidReplicationFactor;
    replicas = assign_replicas(usable, spec.partitions, spec.replication_factor, rng);
  }
  std::vector<PartitionState> created;
  for (std::size_t p = 0; p < replicas.size(); ++p) {
    PartitionState state;
    state.partition = {topic, static_cast<std::int32_t>(p)};
    state.replicas = replicas[p];
    for (const BrokerId b : state.replicas) {
      const Registration& r = brokers_[static_cast<std::size_t>(b)];
      if (!r.fenced && !r.shutting_down) state.isr.push_back(b);  // ClusterControlManager.isActive
    }
    // "All brokers are currently fenced or in controlled shutdown." (a manual
    // assignment's is INVALID_REPLICA_ASSIGNMENT)
    if (state.isr.empty()) return spec.assignment.empty() ? Error::InvalidReplicationFactor : Error::InvalidReplicaAssignment;
    state.leader = state.isr.front();
    created.push_back(std::move(state));
  }
  for (const PartitionState& state : created) {
    partitions_.emplace(state.partition, state);
    track_imbalance(state);
  }
  publish(TopicCreated{topic, static_cast<std::int32_t>(created.size())});
  push(created);
  return Error::None;
}

// A broker's automatic creation (AutoTopicCreationManager), answered at once
// (Kafka answers once the records are committed; the broker only clears its
// in-flight entry).
void Controller::handle_create_topics(ConnectionId connection, const CreateTopicsRequest& request) {
  auto response = std::make_unique<CreateTopicsResponse>();
  response->topic = request.topic;
  response->error = create_topic(request.topic, rng());
  send(connection, std::move(response));
}

}  // namespace ksim::models
