#pragma once
// Who is where in a cluster, as every node learns it when the cluster is
// built: the broker ids' nodes, the controllers' nodes, the topics (user
// topics first, then __consumer_offsets and __transaction_state when the
// cluster has them). Clients find brokers through it, never through Broker.
#include <cstdint>
#include <memory>
#include <vector>

#include "models/protocol/kafka_config.hpp"
#include "models/protocol/kafka_types.hpp"
#include "sim/core/node.hpp"

namespace ksim::models {

class CoordinatorRecordStore;  // models/coordinator/coordinator_records.hpp
class RecordKeyStore;          // models/protocol/record_keys.hpp
class RemoteStorage;           // models/log/remote_log.hpp

// Who is where: broker ids to nodes, the controllers' nodes, the topics.
struct ClusterDirectory {
  std::vector<NodeId> broker_nodes;  // index: broker id
  // The controllers' nodes, index: the controller's id in the quorum (one: no
  // quorum, the single controller of ksim before KRaft's Raft was hosted).
  std::vector<NodeId> controller_nodes;
  // ZooKeeper mode (releases before KRaft): controller_nodes are the brokers'
  // ZooKeeper sides, by broker id (models/controller/zk_controller.hpp), one
  // of which is the controller; a leader's ISR changes go to the controller
  // the metadata names (AlterIsr, 2.7+) or to its own side (before).
  bool zookeeper = false;
  std::vector<TopicSpec> topics;
  // Consumer groups: the __consumer_offsets topic (-1: none) and the content of its batches.
  std::int32_t offsets_topic = -1;
  std::int32_t transaction_topic = -1;  // __transaction_state (-1: none)
  std::shared_ptr<CoordinatorRecordStore> coordinator_records;
  // The keys and null values of records written to compacted topics (null: no topic compacts).
  std::shared_ptr<RecordKeyStore> record_keys;
  // Tiered storage's remote store (KIP-405), shared by the brokers (null: no topic has remote.storage.enable).
  std::shared_ptr<RemoteStorage> remote_storage;
};

}  // namespace ksim::models
