#include "models/controller/zk_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace ksim::models::zk_data {

using nlohmann::json;

std::string broker_path(BrokerId broker) { return fmt::format("{}/{}", kBrokerIds, broker); }

std::string partition_state_path(TopicPartition tp) {
  return fmt::format("/brokers/topics/topic{}/partitions/{}/state", tp.topic, tp.partition);
}

std::vector<std::string> cluster_paths() {
  return {"/brokers", kBrokerIds, kTopics, kIsrChangeNotifications, kLogDirEvents};
}

std::string topic_path(std::int32_t topic) { return fmt::format("{}/topic{}", kTopics, topic); }

std::vector<std::string> persistent_paths(const std::vector<std::int32_t>& partitions_per_topic) {
  std::vector<std::string> paths = cluster_paths();
  for (std::size_t t = 0; t < partitions_per_topic.size(); ++t) {
    const std::string topic = fmt::format("/brokers/topics/topic{}", t);
    paths.push_back(topic);
    paths.push_back(topic + "/partitions");
    for (std::int32_t p = 0; p < partitions_per_topic[t]; ++p) paths.push_back(fmt::format("{}/partitions/{}", topic, p));
  }
  return paths;
}

std::string encode(const LeaderAndIsr& state) {
  return json{{"version", 1},
              {"leader", state.leader},
              {"leader_epoch", state.leader_epoch},
              {"controller_epoch", state.controller_epoch},
              {"isr", state.isr}}
      .dump();
}

std::optional<LeaderAndIsr> decode_leader_and_isr(const std::string& data) {
  const json j = json::parse(data, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  LeaderAndIsr state;
  state.leader = j.value("leader", kNoBroker);
  state.leader_epoch = j.value("leader_epoch", 0);
  state.controller_epoch = j.value("controller_epoch", 0);
  state.isr = j.value("isr", std::vector<BrokerId>{});
  return state;
}

namespace {
std::vector<BrokerId> without(const std::vector<BrokerId>& from, const std::vector<BrokerId>& taken) {
  std::vector<BrokerId> rest;
  for (const BrokerId b : from) {
    if (std::find(taken.begin(), taken.end(), b) == taken.end()) rest.push_back(b);
  }
  return rest;
}
}  // namespace

std::vector<BrokerId> origin_replicas(const PartitionAssignment& a) { return without(a.replicas, a.adding); }
std::vector<BrokerId> target_replicas(const PartitionAssignment& a) { return without(a.replicas, a.removing); }

PartitionAssignment reassign_to(const PartitionAssignment& current, const std::vector<BrokerId>& target) {
  const std::vector<BrokerId> origin = origin_replicas(current);
  std::vector<BrokerId> full;
  for (const auto& list : {target, origin}) {
    for (const BrokerId b : list) {
      if (std::find(full.begin(), full.end(), b) == full.end()) full.push_back(b);
    }
  }
  return {full, without(full, origin), without(full, target)};
}

std::string encode_assignment(const std::vector<PartitionAssignment>& partitions) {
  json replicas = json::object(), adding = json::object(), removing = json::object();
  for (std::size_t p = 0; p < partitions.size(); ++p) {
    const std::string key = std::to_string(p);
    replicas[key] = partitions[p].replicas;
    if (!partitions[p].adding.empty()) adding[key] = partitions[p].adding;
    if (!partitions[p].removing.empty()) removing[key] = partitions[p].removing;
  }
  return json{{"version", 2}, {"partitions", replicas}, {"adding_replicas", adding}, {"removing_replicas", removing}}
      .dump();
}

std::string encode_assignment(const std::vector<std::vector<BrokerId>>& replicas) {
  std::vector<PartitionAssignment> partitions;
  for (const auto& r : replicas) partitions.push_back({r, {}, {}});
  return encode_assignment(partitions);
}

std::optional<std::vector<PartitionAssignment>> decode_assignment(const std::string& data) {
  const json j = json::parse(data, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("partitions") || !j["partitions"].is_object()) {
    return std::nullopt;
  }
  std::vector<PartitionAssignment> partitions(j["partitions"].size());
  // Each field's object is looked up once: json::value copies it, which per partition made decoding
  // a 10,000-partition topic quadratic (minutes for releases/controller-failover-10k on 2.8).
  static const json kNone = json::object();
  const auto field = [&](const char* name) -> const json& {
    const auto it = j.find(name);
    return it != j.end() && it->is_object() ? *it : kNone;
  };
  const json& replicas = field("partitions");
  const json& adding = field("adding_replicas");
  const json& removing = field("removing_replicas");
  const auto list = [](const json& by_partition, const std::string& key) {
    const auto it = by_partition.find(key);
    return it != by_partition.end() ? it->get<std::vector<BrokerId>>() : std::vector<BrokerId>{};
  };
  for (std::size_t p = 0; p < partitions.size(); ++p) {
    const std::string key = std::to_string(p);
    partitions[p] = {list(replicas, key), list(adding, key), list(removing, key)};
  }
  return partitions;
}

std::string encode_controller(BrokerId broker) { return json{{"version", 1}, {"brokerid", broker}}.dump(); }

std::optional<BrokerId> decode_controller(const std::string& data) {
  const json j = json::parse(data, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("brokerid")) return std::nullopt;
  return j["brokerid"].get<BrokerId>();
}

std::string encode_isr_changes(const std::vector<TopicPartition>& partitions) {
  json list = json::array();
  for (const TopicPartition tp : partitions) list.push_back({{"topic", tp.topic}, {"partition", tp.partition}});
  return json{{"version", 1}, {"partitions", list}}.dump();
}

std::vector<TopicPartition> decode_isr_changes(const std::string& data) {
  std::vector<TopicPartition> partitions;
  const json j = json::parse(data, nullptr, false);
  if (j.is_discarded() || !j.contains("partitions")) return partitions;
  for (const json& p : j["partitions"]) partitions.push_back({p.value("topic", 0), p.value("partition", 0)});
  return partitions;
}

std::string encode_log_dir_event(BrokerId broker, const std::vector<TopicPartition>& offline) {
  json list = json::array();
  for (const TopicPartition tp : offline) list.push_back({{"topic", tp.topic}, {"partition", tp.partition}});
  return json{{"version", 1}, {"broker", broker}, {"event", 1}, {"partitions", list}}.dump();
}

std::pair<BrokerId, std::vector<TopicPartition>> decode_log_dir_event(const std::string& data) {
  const json j = json::parse(data, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return {kNoBroker, {}};
  std::vector<TopicPartition> offline;
  for (const json& p : j.value("partitions", json::array())) offline.push_back({p.value("topic", 0), p.value("partition", 0)});
  return {j.value("broker", kNoBroker), offline};
}

}  // namespace ksim::models::zk_data
