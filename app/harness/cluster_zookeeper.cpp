// ZooKeeper mode (releases before KRaft): the ZooKeeper node, each broker's
// ZooKeeper side on the broker's host sharing its fate (one process in
// Kafka), and ZooKeeper's content as a formatted cluster has it before any
// broker starts (the topics' partition states, /controller_epoch).
#include "app/harness/cluster.hpp"
#include "models/controller/zk_data.hpp"

namespace ksim::app {

void Cluster::spawn_zookeeper(const std::shared_ptr<models::ClusterDirectory>& directory) {
  const KafkaSpec& kafka = *scenario_.kafka;
  directory->zookeeper = true;
  zookeeper_ = &sim_->spawn<models::ZooKeeperServer>("zookeeper", *sim_->topology().find("zookeeper"),
                                                     kafka.zookeeper_server);
  for (models::Broker* broker : brokers_) {
    auto& side = sim_->spawn<models::ZkController>(broker->name() + "-zk", broker->host(), broker->broker_id(),
                                                   kafka.zookeeper_client, directory, zookeeper_->id(),
                                                   *events_);
    broker->share_fate(side);
    side.set_connect_timeout(broker->connect_timeout());  // its controller channels: the broker's configs
    broker->serve_once_registered(kafka.zookeeper_client.serve_once_registered);
    side.place_topics_over(broker_placement_);
    side.on_registration_conflict = [broker](bool conflict) { broker->refuse_requests(conflict); };
    side.on_registered = [broker](std::int64_t epoch) { broker->registered_in_zookeeper(epoch); };
    zookeeper_sides_.push_back(&side);
    directory->controller_nodes.push_back(side.id());
  }
}

// A new cluster's ZooKeeper; the topics are created once every broker has
// registered (or after 10 s), as a script running kafka-topics.sh would: the
// controller gives each partition its first leader and ISR.
void Cluster::seed_zookeeper(const std::vector<std::vector<std::vector<models::BrokerId>>>& replicas) {
  zookeeper_->seed(models::zk_data::cluster_paths());
  zookeeper_->seed_data(models::zk_data::kControllerEpoch, "0");
  quorum_ = std::make_unique<models::ControllerQuorum>(zookeeper_sides_, *zookeeper_, replicas);
  create_topics_when_registered(std::make_shared<const Assignment>(replicas));
}

void Cluster::create_topics_when_registered(std::shared_ptr<const Assignment> replicas) {
  const auto registered = zookeeper_->tree().children(models::zk_data::kBrokerIds);
  const auto starting = static_cast<std::size_t>(scenario_.kafka->brokers.count);  // not those an operation adds
  if ((!registered || registered->size() < starting) && sim_->now() < seconds(10)) {
    sim_->events().schedule_after(milliseconds(1), [this, replicas] { create_topics_when_registered(replicas); });
    return;
  }
  for (std::size_t t = 0; t < replicas->size(); ++t) {
    if ((*replicas)[t].empty()) continue;  // created later (an operation)
    zookeeper_->admin_create(models::zk_data::topic_path(static_cast<std::int32_t>(t)),
                             models::zk_data::encode_assignment((*replicas)[t]));
  }
}

}  // namespace ksim::app
