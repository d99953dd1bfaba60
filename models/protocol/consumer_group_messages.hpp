#pragma once
// KIP-848's consumer group protocol on the wire: ConsumerGroupHeartbeat (API
// key 68, ConsumerGroupHeartbeatRequest.json), the one request a member of a
// `group.protocol=consumer` group sends its coordinator. It joins (member
// epoch 0), keeps the member alive, carries its subscription and the
// partitions it owns, and leaves (epoch -1; -2 for a static member that
// will come back). The response gives the member epoch, the heartbeat
// interval and the partitions the member is to own.
//
// Simplification: every request carries the subscription and the owned
// partitions (Kafka's client sends them only when they changed, or on a
// join or an acknowledgement); the size on the wire counts them.
#include <optional>
#include <string>
#include <vector>

#include "models/protocol/group_messages.hpp"

namespace ksim::models {

// ConsumerGroupHeartbeatRequest's special member epochs.
inline constexpr std::int32_t kJoinMemberEpoch = 0;
inline constexpr std::int32_t kLeaveMemberEpoch = -1;
inline constexpr std::int32_t kStaticLeaveMemberEpoch = -2;  // LEAVE_GROUP_STATIC_MEMBER_EPOCH

struct ConsumerGroupHeartbeatRequest final
    : KafkaRequest<ConsumerGroupHeartbeatRequest, ApiKey::ConsumerGroupHeartbeat>, GroupRequestBase {
  static constexpr std::string_view kName = "ConsumerGroupHeartbeat";
  std::string member_id;  // KIP-1082 (4.0): the client makes its own member id
  std::int32_t member_epoch = kJoinMemberEpoch;
  std::optional<std::string> instance_id;  // group.instance.id
  std::string client_id;
  SimTime rebalance_timeout = 0;  // max.poll.interval.ms
  std::vector<std::int32_t> topics;          // subscribed topics
  std::string server_assignor;               // group.remote.assignor ("": the broker's default)
  std::vector<TopicPartition> owned;         // the partitions the member owns now
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 96 + 8 * owned.size(); }
};

struct ConsumerGroupHeartbeatResponse final
    : KafkaResponse<ConsumerGroupHeartbeatResponse, ApiKey::ConsumerGroupHeartbeat> {
  static constexpr std::string_view kName = "ConsumerGroupHeartbeatResponse";
  std::int64_t correlation_id = 0;
  Error error = Error::None;
  std::string member_id;
  std::int32_t member_epoch = 0;
  SimTime heartbeat_interval = 0;  // group.consumer.heartbeat.interval.ms
  // The partitions the member is to own from now on (nullopt: unchanged).
  std::optional<std::vector<TopicPartition>> assignment;
  std::uint64_t size_bytes() const override {
    return kRequestHeaderBytes + 32 + (assignment ? 8 * assignment->size() : 0);
  }
};

}  // namespace ksim::models
