#include "app/scenario/leader_target.hpp"

#include <charconv>

#include "app/scenario/scenario.hpp"

namespace ksim::app {

bool names_leader(std::string_view name) { return name.starts_with(kLeaderTargetPrefix); }

std::optional<LeaderTarget> parse_leader_target(std::string_view name) {
  if (!names_leader(name)) return std::nullopt;
  const std::string_view rest = name.substr(kLeaderTargetPrefix.size());
  const auto dash = rest.rfind('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == rest.size()) return std::nullopt;
  const std::string_view digits = rest.substr(dash + 1);
  std::int32_t partition = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), partition);
  if (error != std::errc{} || end != digits.data() + digits.size() || partition < 0) return std::nullopt;
  return LeaderTarget{std::string(rest.substr(0, dash)), partition};
}

std::optional<std::string> leader_target_error(const Scenario& scenario, std::string_view name) {
  if (!scenario.kafka) return "names a partition's leader, but the scenario has no Kafka cluster";
  const auto target = parse_leader_target(name);
  const std::string example =
      scenario.kafka->topics.empty() ? "leader:TOPIC-0" : "leader:" + scenario.kafka->topics.front().name + "-0";
  if (!target) return "is not a partition's leader: write leader:TOPIC-PARTITION (" + example + ")";
  for (const models::TopicSpec& topic : scenario.kafka->topics) {
    if (topic.name != target->topic) continue;
    if (target->partition < topic.partitions) return std::nullopt;
    return "names partition " + std::to_string(target->partition) + " of '" + topic.name + "', which has " +
           std::to_string(topic.partitions) + " (0 to " + std::to_string(topic.partitions - 1) + ")";
  }
  return "names topic '" + target->topic + "', which is not one of topics: (" + example + ")";
}

}  // namespace ksim::app
