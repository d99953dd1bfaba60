#pragma once
// KIP-932's `simple` share group assignor for members subscribed to one
// topic (SimpleAssignor -> SimpleHomogeneousAssignmentBuilder, KAFKA-19362,
// Kafka 4.1+): each partition is shared by ceil(members / partitions)
// members, each member gets an even share of those assignments, and the
// current assignment is kept where it fits (balance before stickiness).
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ksim::models {

// member id -> the partitions of the topic it gets. `members` in the order
// the builder numbers them (Kafka: a hash map's; ksim: by member id);
// `current`: the members' previous target assignment (absent: none).
std::map<std::string, std::set<std::int32_t>> simple_share_assignment(
    const std::vector<std::string>& members, std::int32_t partitions,
    const std::map<std::string, std::set<std::int32_t>>& current);

}  // namespace ksim::models
