#pragma once
// The consumer group protocol's vocabulary, shared by consumers, assignors
// and the group coordinator: the rebalance protocols of KIP-429, a member's
// subscription as JoinGroup carries it, an assignment, a committed offset.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/protocol/kafka_types.hpp"

namespace ksim::models {

// KIP-429: eager revokes everything at each rebalance; cooperative only what moves.
enum class RebalanceProtocol { Eager, Cooperative };
std::string_view to_string(RebalanceProtocol p);

// One member's subscription as the group leader sees it in JoinGroup's metadata.
struct MemberSubscription {
  std::string member_id;
  std::optional<std::string> group_instance_id;  // KIP-345 static membership
  std::vector<std::int32_t> topics;              // subscribed topics
  std::vector<TopicPartition> owned;             // partitions it owns now (KIP-429 ownedPartitions)
  std::int32_t generation = -1;                  // generation of `owned` (sticky assignors' userData / KIP-792)
};
// member id -> its partitions, each list sorted.
using Assignment = std::map<std::string, std::vector<TopicPartition>>;

struct CommittedOffset {
  TopicPartition partition;
  Offset offset = -1;
  Epoch leader_epoch = -1;  // KIP-320: the epoch of the last consumed record, for validation after a restart
};

}  // namespace ksim::models
