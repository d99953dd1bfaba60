#pragma once
// The consumer group's client-side partition assignors, which the group leader
// runs on the members' JoinGroup metadata: ports of Kafka's RangeAssignor,
// RoundRobinAssignor, StickyAssignor and CooperativeStickyAssignor (the last
// two share AbstractStickyAssignor), without rack awareness (KIP-881). The
// protocol choice follows ConsumerCoordinator (KIP-429).
#include <cstdint>
#include <map>
#include <memory>
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

class Assignor {
 public:
  virtual ~Assignor() = default;
  virtual std::string_view name() const = 0;  // "range", "roundrobin", "sticky", "cooperative-sticky"
  virtual std::vector<RebalanceProtocol> supported_protocols() const = 0;  // Kafka's supportedProtocols()
  // partitions_per_topic: topic -> partition count, for every topic any member subscribes to.
  virtual Assignment assign(const std::map<std::int32_t, std::int32_t>& partitions_per_topic,
                            const std::vector<MemberSubscription>& members) const = 0;
};
// The assignor with Kafka's name (also accept the class names
// "org.apache.kafka.clients.consumer.RangeAssignor", "...RoundRobinAssignor", "...StickyAssignor",
// "...CooperativeStickyAssignor"); nullptr when unknown.
std::unique_ptr<Assignor> make_assignor(std::string_view name);
// The short names, for error messages ("did you mean").
const std::vector<std::string>& assignor_names();
// The protocol a consumer uses with a list of assignors (ConsumerCoordinator): the highest protocol
// supported by every assignor in the list (Cooperative > Eager). Precondition: non-empty, all known.
RebalanceProtocol common_protocol(const std::vector<std::string>& assignors);

}  // namespace ksim::models
