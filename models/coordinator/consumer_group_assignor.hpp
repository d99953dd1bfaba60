#pragma once
// KIP-848's server-side assignors: the group coordinator computes a consumer
// group's target assignment (group.consumer.assignors; a member may ask for
// one with group.remote.assignor). Ports of the group-coordinator module's
// UniformAssignor (the default; OptimizedUniformAssignmentBuilder) and
// RangeAssignor, without rack awareness.
//
// Simplifications: the uniform assignor balances each topic on its own (for
// the one topic a ksim consumer reads, Kafka's homogeneous builder does the
// same); the range assignor gives contiguous ranges in member-id order,
// without the stickiness Kafka's adds to it.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "models/protocol/group_types.hpp"

namespace ksim::models {

class ServerAssignor {
 public:
  virtual ~ServerAssignor() = default;
  virtual std::string_view name() const = 0;  // "uniform", "range"
  // partitions_per_topic: topic -> partition count. Each member's `topics`
  // is its subscription, its `owned` its partitions in the current target
  // assignment (for stickiness). Every member gets an entry.
  virtual Assignment assign(const std::map<std::int32_t, std::int32_t>& partitions_per_topic,
                            const std::vector<MemberSubscription>& members) const = 0;
};

// "uniform" or "range", or the class names Kafka also accepts
// (org.apache.kafka.coordinator.group.assignor.UniformAssignor, ...); nullptr when unknown.
std::unique_ptr<ServerAssignor> make_server_assignor(std::string_view name);
const std::vector<std::string>& server_assignor_names();

}  // namespace ksim::models
