#pragma once
// What Kafka's ZooKeeper mode keeps in ZooKeeper (kafka.zk.ZkData), with the
// encodings Kafka writes: a partition's leader, leader epoch, ISR and the
// controller epoch that wrote them (TopicPartitionStateZNode, its znode
// version standing for the partition's "zkVersion"), the active controller
// (ControllerZNode) and its epoch (ControllerEpochZNode), each broker's
// ephemeral registration (BrokerIdZNode, whose creating zxid is its broker
// epoch, KIP-380) and the ISR change notifications leaders wrote before
// KIP-497 (IsrChangeNotificationSequenceZNode). Topics are named by index.
#include <optional>
#include <string>
#include <vector>

#include "models/protocol/kafka_messages.hpp"

namespace ksim::models::zk_data {

inline const std::string kBrokerIds = "/brokers/ids";
inline const std::string kTopics = "/brokers/topics";
inline const std::string kController = "/controller";
inline const std::string kControllerEpoch = "/controller_epoch";
inline const std::string kIsrChangeNotifications = "/isr_change_notification";
inline const std::string kIsrChangePrefix = "/isr_change_notification/isr_change_";
inline const std::string kLogDirEvents = "/log_dir_event_notification";
inline const std::string kLogDirEventPrefix = "/log_dir_event_notification/log_dir_event_";

std::string broker_path(BrokerId broker);
std::string partition_state_path(TopicPartition tp);
// The znodes of a new cluster, before any topic; a topic's znode (/brokers/topics/topicT).
std::vector<std::string> cluster_paths();
std::string topic_path(std::int32_t topic);
// The znodes of a cluster with its topics (without their partition states), parents first.
std::vector<std::string> persistent_paths(const std::vector<std::int32_t>& partitions_per_topic);

struct LeaderAndIsr {
  BrokerId leader = kNoBroker;
  Epoch leader_epoch = 0;
  std::vector<BrokerId> isr;
  std::int32_t controller_epoch = 0;
};
std::string encode(const LeaderAndIsr& state);
std::optional<LeaderAndIsr> decode_leader_and_isr(const std::string& data);

// A topic's replica assignment (TopicZNode, version 2 and later: KIP-455's
// adding_replicas and removing_replicas beside each partition's replicas).
struct PartitionAssignment {
  std::vector<BrokerId> replicas;  // while reassigned: the target, then those being removed
  std::vector<BrokerId> adding;
  std::vector<BrokerId> removing;
  bool operator==(const PartitionAssignment&) const = default;
  bool reassigning() const { return !adding.empty() || !removing.empty(); }
};
// ReplicaAssignment: the original replicas (those not being added), the
// target (those not being removed), and reassignTo: the target first, then
// the original replicas not in it; adding and removing in that list's order.
std::vector<BrokerId> origin_replicas(const PartitionAssignment& a);
std::vector<BrokerId> target_replicas(const PartitionAssignment& a);
PartitionAssignment reassign_to(const PartitionAssignment& current, const std::vector<BrokerId>& target);
std::string encode_assignment(const std::vector<PartitionAssignment>& partitions);
std::optional<std::vector<PartitionAssignment>> decode_assignment(const std::string& data);
// Without reassignment state: each partition's replicas.
std::string encode_assignment(const std::vector<std::vector<BrokerId>>& replicas);

std::string encode_controller(BrokerId broker);
std::optional<BrokerId> decode_controller(const std::string& data);

std::string encode_isr_changes(const std::vector<TopicPartition>& partitions);
std::vector<TopicPartition> decode_isr_changes(const std::string& data);

// LogDirEventNotificationSequenceZNode names the broker; ksim adds its offline
// replicas, which Kafka's controller learns from the broker's answers to the
// LeaderAndIsr it then sends (KAFKA_STORAGE_ERROR per partition).
std::string encode_log_dir_event(BrokerId broker, const std::vector<TopicPartition>& offline);
std::pair<BrokerId, std::vector<TopicPartition>> decode_log_dir_event(const std::string& data);

}  // namespace ksim::models::zk_data
