// Topics created while a ZooKeeper-era cluster runs (ZkAdminManager.createTopics,
// AdminZkClient.createTopicWithAssignment): the broker that takes the request
// places the partitions over the brokers it knows alive (AdminUtils'
// rack-aware assignment), or takes the request's assignment without checking
// its brokers ("this follows the existing logic in TopicCommand"), and
// creates the topic znode with it. That is all it does: the controller's
// watch on /brokers/topics sees the new child, reads its assignment and
// gives each partition its first leader and ISR (topic_change,
// onNewPartitionCreation), then tells the brokers.
//
// The Admin API's CreateTopics goes to the active controller; a broker's
// automatic creation (auto.create.topics.enable, AutoTopicCreationManager
// without forwarding) comes here over the broker's channel to a ZooKeeper
// side: its own before KIP-497, the controller's after.
#include <algorithm>

#include "models/controller/replica_assignment.hpp"
#include "models/controller/zk_controller.hpp"

namespace ksim::models {

Error ZkController::create_topic(std::int32_t topic, RandomStream& rng) {
  if (!is_active()) return Error::NotController;
  if (topics_.contains(topic) || assignment_.contains(topic)) return Error::TopicAlreadyExists;  // metadataCache.contains
  const auto replicas = place_topic(topic, live_brokers(), rng);
  if (!replicas) return Error::InvalidReplicationFactor;
  write_topic(topic, *replicas, nullptr);
  return Error::None;
}

// AdminUtils.assignReplicasToBrokers over `alive`, unless the topic is assigned;
// nullopt when fewer brokers are alive than its replication factor.
std::optional<std::vector<std::vector<BrokerId>>> ZkController::place_topic(std::int32_t topic,
                                                                             const std::vector<BrokerId>& alive,
                                                                             RandomStream& rng) const {
  const TopicSpec& spec = directory_->topics[static_cast<std::size_t>(topic)];
  if (!spec.assignment.empty()) return spec.assignment;
  std::vector<BrokerPlacement> over;
  for (const BrokerPlacement& b : placement_) {
    if (std::find(alive.begin(), alive.end(), b.id) != alive.end()) over.push_back(b);
  }
  // "Replication factor: N larger than available brokers: M."
  if (over.size() < static_cast<std::size_t>(spec.replication_factor)) return std::nullopt;
  return assign_replicas(over, spec.partitions, spec.replication_factor, rng);
}

// The topic znode with its assignment; NODEEXISTS is TOPIC_ALREADY_EXISTS.
void ZkController::write_topic(std::int32_t topic, const std::vector<std::vector<BrokerId>>& replicas,
                               std::function<void(Error)> done) {
  const auto partitions = static_cast<std::int32_t>(replicas.size());
  zk_.create(zk_data::topic_path(topic), zk_data::encode_assignment(replicas), false,
             [this, topic, partitions, done = std::move(done)](const ZkResponse& r) {
               if (r.error == ZkError::Ok) publish(TopicCreated{topic, partitions});
               if (done) done(r.error == ZkError::Ok ? Error::None : Error::TopicAlreadyExists);
             });
}

// A broker's automatic creation: the brokers alive as ZooKeeper lists them, then the topic znode.
void ZkController::handle_create_topics(ConnectionId connection, const CreateTopicsRequest& request) {
  const std::int32_t topic = request.topic;
  zk_.get_children(zk_data::kBrokerIds, false, [this, connection, topic](const ZkResponse& ids) {
    std::vector<BrokerId> alive;
    for (const std::string& id : ids.children) alive.push_back(std::stoi(id));
    std::sort(alive.begin(), alive.end());
    const auto answer = [this, connection, topic](Error error) {
      auto response = std::make_unique<CreateTopicsResponse>();
      response->topic = topic;
      response->error = error;
      send(connection, std::move(response));
    };
    const auto replicas = place_topic(topic, alive, rng());
    if (!replicas) return answer(Error::InvalidReplicationFactor);
    write_topic(topic, *replicas, answer);
  });
}

}  // namespace ksim::models
