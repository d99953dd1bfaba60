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

#include "models/protocol/group_types.hpp"

namespace ksim::models {

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
