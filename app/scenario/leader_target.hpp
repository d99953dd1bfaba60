#pragma once
// The fault target "leader:TOPIC-P": the broker that leads partition P of
// TOPIC when the fault starts (as the controller's committed metadata has
// it), the way an operator picks the broker to restart or cut off from
// `kafka-topics --describe`. Resolved by Cluster::resolve_nodes.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ksim::app {

struct Scenario;

struct LeaderTarget {
  std::string topic;
  std::int32_t partition = 0;
};

inline constexpr std::string_view kLeaderTargetPrefix = "leader:";

bool names_leader(std::string_view name);  // starts with "leader:"
// "leader:orders-3" -> {orders, 3}; the partition follows the last '-'. Nullopt when malformed.
std::optional<LeaderTarget> parse_leader_target(std::string_view name);
// Why `name` ("leader:...") is not a partition of the scenario's topics; nullopt when it is.
std::optional<std::string> leader_target_error(const Scenario& scenario, std::string_view name);

}  // namespace ksim::app
