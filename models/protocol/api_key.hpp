#pragma once
// Kafka's API keys (ApiKeys.java; each number is the "apiKey" of the API's
// clients/src/main/resources/common/message/*Request.json), for the APIs
// ksim models. A request and its response carry the same key, as in Kafka;
// ApiMessage::is_response() tells them apart. The APIs ksim does not model
// are left out, so that a node's exhaustive switch lists only what exists.
#include <cstdint>
#include <string_view>

namespace ksim::models {

enum class ApiKey : std::int16_t {
  Produce = 0,
  Fetch = 1,
  ListOffsets = 2,
  Metadata = 3,
  // The controller's push of partition states and live brokers
  // (MetadataUpdate): ZooKeeper mode's UpdateMetadata, and ksim's single KRaft
  // controller's. A quorum's brokers read these from the metadata log instead
  // (a Fetch of __cluster_metadata, KIP-631).
  UpdateMetadata = 6,
  ControlledShutdown = 7,  // ZooKeeper mode: a broker asks the controller to move its leaderships first
  OffsetCommit = 8,
  OffsetFetch = 9,
  FindCoordinator = 10,
  JoinGroup = 11,
  Heartbeat = 12,
  LeaveGroup = 13,
  SyncGroup = 14,
  CreateTopics = 19,  // a broker's automatic creation, forwarded to the controller (AutoTopicCreationManager)
  InitProducerId = 22,
  OffsetForLeaderEpoch = 23,
  AddPartitionsToTxn = 24,
  AddOffsetsToTxn = 25,
  EndTxn = 26,
  WriteTxnMarkers = 27,
  TxnOffsetCommit = 28,
  // KIP-595: the KRaft controller quorum's Raft (models/raft/). Its replication
  // is a Fetch of __cluster_metadata, with the Fetch key (MetadataFetchRequest).
  Vote = 52,
  BeginQuorumEpoch = 53,
  EndQuorumEpoch = 54,
  AlterPartition = 56,   // KIP-497: a leader asks the controller to change the ISR
  BrokerHeartbeat = 63,  // KIP-631 (a new incarnation also stands for BrokerRegistration)
  ConsumerGroupHeartbeat = 68,  // KIP-848: the consumer group protocol (group.protocol=consumer)
  ShareGroupHeartbeat = 76,     // KIP-932: a share group's member to its coordinator
  ShareFetch = 78,              // KIP-932: acquire records of a share-partition (and acknowledge earlier ones)
  AssignReplicasToDirs = 73,    // KIP-858: a broker tells the controller a replica's log dir
  ShareAcknowledge = 79,        // KIP-932: acknowledge delivered records
  // Not Kafka's: ZooKeeper's own protocol (models/zookeeper/zk_messages.hpp),
  // its operation in the message, between brokers and the ZooKeeper ensemble
  // of releases before KRaft. A key outside Kafka's numbers.
  ZooKeeper = 1000,
};

// The API's name, as Kafka's message definitions spell it ("OffsetForLeaderEpoch").
std::string_view to_string(ApiKey key);

}  // namespace ksim::models
