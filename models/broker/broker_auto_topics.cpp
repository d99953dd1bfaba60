// auto.create.topics.enable (AutoTopicCreationManager): a metadata request
// that allows it, for a topic the broker's metadata does not have, makes the
// broker send CreateTopics for it to the active controller (KRaft: the
// forwarding of KIP-590); with ZooKeeper the broker creates the topic znode
// itself (its ZkAdminManager), here through the ZooKeeper side its channel
// goes to (zk_topics.cpp). With the brokers' num.partitions and
// default.replication.factor (the topic's spec: a topic `create: auto` is
// read with them). One request per topic at a time (inflightTopics); the
// client is answered UNKNOWN_TOPIC_OR_PARTITION meanwhile and asks again.
#include "models/broker/broker.hpp"

namespace ksim::models {

void Broker::maybe_create_topic(const MetadataRequest& request) {
  const auto t = static_cast<std::size_t>(request.topic);
  if (!request.allow_auto_topic_creation || !config_.auto_create_topics || request.topic < 0) return;
  if (t >= known_topics_.size() || known_topics_[t] || creating_topics_.contains(request.topic)) return;
  if (!controller_channel_ready()) return;  // the next metadata request tries again
  creating_topics_.insert(request.topic);
  auto create = std::make_unique<CreateTopicsRequest>();
  create->topic = request.topic;
  send(controller_connection(), std::move(create));
}

// Created, or not (TOPIC_ALREADY_EXISTS: another broker's request came first; INVALID_REPLICATION_FACTOR):
// the next request for it may try again once the metadata still lacks it.
void Broker::handle_create_topics_response(const CreateTopicsResponse& response) {
  creating_topics_.erase(response.topic);
}

}  // namespace ksim::models
