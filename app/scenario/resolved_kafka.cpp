// The Kafka sections of the resolved scenario: brokers, controller, topics,
// producers and consumers, each client with its Kafka configs as the reader
// resolved them and, where a config is per node (a transactional.id or
// group.instance.id with {name}), each node's value.
#include <algorithm>

#include "app/scenario/resolved_parts.hpp"
#include "app/scenario/resolved_scenario.hpp"

namespace ksim::app {

using nlohmann::json;

namespace {

// A duration as Kafka is given it under `key`: milliseconds for a `.ms` name.
json kafka_duration(std::string_view key, SimTime ns) {
  if (!key.ends_with(".ms")) return ns;  // no such Kafka config is read today
  if (ns == kNever) return INT64_MAX;    // Long.MAX_VALUE: never
  if (ns % 1'000'000 == 0) return ns / 1'000'000;
  return static_cast<double>(ns) / 1e6;
}

std::vector<std::string> nodes_of(const Scenario& s, const std::string& group) {
  std::vector<std::string> names;
  for (const NodePlacement& p : node_placements(s)) {
    if (p.group == group) names.push_back(p.name);
  }
  return names;
}

std::string replaced(std::string text, std::string_view key, const std::string& value) {
  const auto at = text.find(key);
  if (at != std::string::npos) text.replace(at, key.size(), value);
  return text;
}

const std::string& topic_name(const KafkaSpec& k, std::int32_t index) {
  return k.topics[static_cast<std::size_t>(index)].name;
}

// What the reader resolved, with the values it settles after reading
// (idempotence, the raised delivery timeout) and without an unset transactional.id.
json producer_config(const config::ResolvedValues& read, const models::ProducerConfig& c) {
  json config = kafka_config_json(read);
  config["enable.idempotence"] = c.enable_idempotence;
  config["delivery.timeout.ms"] = kafka_duration("delivery.timeout.ms", c.delivery_timeout);
  if (c.transactional_id.empty()) config.erase("transactional.id");
  return config;
}

json workload_json(const KafkaSpec& k, const models::ProducerWorkload& w, const models::ProducerConfig& c, SimTime duration,
                   bool transactional) {
  json out;
  out["topic"] = topic_name(k, w.topic);
  out["closed_loop"] = w.closed_loop;
  out["rate_per_s"] = w.closed_loop || w.paced_by_consumer ? json(nullptr) : json(w.rate_per_s);
  out["arrival"] = w.poisson ? "poisson" : "constant";
  out["record_size_min"] = w.record_bytes_min;
  out["record_size_max"] = w.record_bytes_max;
  const char* keys = w.keys == models::ProducerWorkload::Keys::None      ? "none"
                     : w.keys == models::ProducerWorkload::Keys::Uniform ? "uniform"
                                                                         : "zipf";
  out["keys"] = {{"distribution", keys}, {"count", w.key_count}, {"exponent", w.zipf_exponent}};
  if (w.tombstone_fraction > 0) out["keys"]["tombstones"] = w.tombstone_fraction;  // null values (compacted topics)
  // models/client/producer/partitioner.hpp: a key is the decimal text of its number.
  out["partitioner"] = c.partitioner == models::PartitionerClass::RoundRobin ? "round-robin"
                       : w.keys != models::ProducerWorkload::Keys::None    ? "murmur2-key"
                       : c.partitioner == models::PartitionerClass::StickyOnNewBatch ? "sticky-on-new-batch"
                       : c.partitioner == models::PartitionerClass::HashOrRoundRobin ? "round-robin"
                                                                           : "sticky";
  out["start_ns"] = w.start;
  out["stop_ns"] = std::min(w.stop, duration);  // producers stop at the scenario's duration
  out["records_per_transaction"] = transactional ? json(w.records_per_transaction) : json(nullptr);
  out["abort_probability"] = w.abort_probability;
  return out;
}

json producers_json(const Scenario& s) {
  const KafkaSpec& k = *s.kafka;
  json out = json::array();
  for (const auto& group : k.producers) {
    json p;
    p["name"] = group.name;
    p["kafka_version"] = group.release.name();
    p["nodes"] = nodes_of(s, group.name);
    p["config"] = producer_config(group.kafka_config, group.config);
    json per_node = json::object();
    if (!group.config.transactional_id.empty()) {
      for (const std::string& node : nodes_of(s, group.name)) {
        per_node[node] = {{"transactional.id", replaced(group.config.transactional_id, "{name}", node)}};
      }
    }
    p["node_configs"] = std::move(per_node);
    p["workload"] = workload_json(k, group.workload, group.config, s.duration, !group.config.transactional_id.empty());
    if (group.start_when_ready) p["workload"]["start_ns"] = nullptr;  // once the cluster is ready
    p["workload"]["paced_by"] = group.paced_by.empty() ? json(nullptr) : json(group.paced_by);
    out.push_back(std::move(p));
  }
  return out;
}

std::string assignor_class(const std::string& name) {
  if (name == "range") return "org.apache.kafka.clients.consumer.RangeAssignor";
  if (name == "roundrobin") return "org.apache.kafka.clients.consumer.RoundRobinAssignor";
  if (name == "sticky") return "org.apache.kafka.clients.consumer.StickyAssignor";
  if (name == "cooperative-sticky") return "org.apache.kafka.clients.consumer.CooperativeStickyAssignor";
  return name;  // already a class name
}

json consumer_config(const config::ResolvedValues& read, const models::ConsumerConfig& c) {
  json config = kafka_config_json(read);
  config["group.id"] = c.group_id;  // ksim's default: the entry's name
  if (c.group_instance_id) {
    config["group.instance.id"] = *c.group_instance_id;
  } else {
    config.erase("group.instance.id");
  }
  json assignors = json::array();
  for (const auto& name : c.partition_assignment_strategy) assignors.push_back(assignor_class(name));
  config["partition.assignment.strategy"] = std::move(assignors);
  return config;
}

// The transform's producers: one per consumer (NAME-producer-i), or per
// consumer and input partition (NAME-producer-i-p), as Cluster spawns them.
json transform_json(const Scenario& s, const KafkaSpec::ConsumerGroup& group) {
  const KafkaSpec& k = *s.kafka;
  const auto& w = group.workload;
  json t;
  t["topic"] = topic_name(k, w.output_topic);
  t["record_size"] = w.output_record_bytes;
  t["send_group_metadata"] = w.send_group_metadata;
  t["producer_per_partition"] = group.producer_per_partition;
  t["records_per_transaction"] = w.records_per_transaction;
  t["commit_interval_ns"] = w.commit_interval;
  t["config"] = producer_config(group.transform_kafka_config, *group.transform);
  const std::string& id = group.transform->transactional_id;
  const std::int32_t partitions = k.topics[static_cast<std::size_t>(w.topic)].partitions;
  json per_node = json::object();
  json nodes = json::array();
  for (const NodePlacement& p : node_placements(s)) {
    if (p.group != group.name + "-producer") continue;
    nodes.push_back({{"name", p.name},
                     {"consumer", group.name + "-" + std::to_string(group.producer_per_partition ? p.index / partitions : p.index)},
                     {"input_partition", group.producer_per_partition ? json(p.index % partitions) : json(nullptr)}});
    if (id.empty()) continue;
    const int consumer = group.producer_per_partition ? p.index / partitions : p.index;
    std::string node_id = replaced(id, "{name}", group.name + "-" + std::to_string(consumer));
    if (group.producer_per_partition) node_id = replaced(node_id, "{partition}", std::to_string(p.index % partitions));
    per_node[p.name] = {{"transactional.id", node_id}};
  }
  t["producers"] = std::move(nodes);
  t["node_configs"] = std::move(per_node);
  return t;
}

json consumers_json(const Scenario& s) {
  const KafkaSpec& k = *s.kafka;
  json out = json::array();
  for (const auto& group : k.consumers) {
    json c;
    c["name"] = group.name;
    c["kafka_version"] = group.release.name();
    c["nodes"] = nodes_of(s, group.name);
    c["group"] = group.config.group_id;
    c["topic"] = topic_name(k, group.workload.topic);
    c["config"] = consumer_config(group.kafka_config, group.config);
    json per_node = json::object();
    if (group.config.group_instance_id) {
      for (const std::string& node : nodes_of(s, group.name)) {
        per_node[node] = {{"group.instance.id", replaced(*group.config.group_instance_id, "{name}", node)}};
      }
    }
    c["node_configs"] = std::move(per_node);
    c["workload"] = {{"partitions", group.workload.partitions},  // empty: subscribe with the group
                     {"commit", models::to_string(group.workload.commit)},
                     {"processing_time", distribution_json(group.workload.processing_time)},
                     {"start_ns", group.start_when_ready ? json(nullptr) : json(group.start)}};
    c["transform"] = group.transform ? transform_json(s, group) : json(nullptr);
    out.push_back(std::move(c));
  }
  return out;
}

// KIP-932's share consumers: each entry's nodes, share group, Kafka configs
// (share.acknowledgement.mode among them) and workload, for the ground-truth
// harness's KafkaShareConsumer.
json share_consumers_json(const Scenario& s) {
  const KafkaSpec& k = *s.kafka;
  json out = json::array();
  for (const auto& group : k.share_consumers) {
    const auto& w = group.workload;
    json poison = w.poison_every == 0 ? json(nullptr)
                                      : json{{"every", w.poison_every},
                                             {"acknowledge", w.poison_acknowledge == models::AcknowledgeType::Release ? "release"
                                                                                                                    : "reject"}};
    out.push_back({{"name", group.name},
                   {"kafka_version", group.release.name()},
                   {"nodes", nodes_of(s, group.name)},
                   {"share_group", group.config.group_id},
                   {"topic", topic_name(k, w.topic)},
                   {"config", kafka_config_json(group.kafka_config)},
                   {"workload",
                    {{"commit", w.commit_sync ? "sync-after-process" : "none"},
                     {"processing_time", distribution_json(w.processing_time)},
                     {"poison", std::move(poison)},
                     {"start_ns", group.start_when_ready ? json(nullptr) : json(group.start)}}}});
  }
  return out;
}

// The brokers' configs, with the internal topics' replication as the
// cluster creates them: no more replicas than brokers (Cluster::offsets_topic).
json broker_config(const KafkaSpec& k) {
  json config = kafka_config_json(k.broker_config);
  const auto& g = k.broker.group_coordinator;
  const auto& t = k.broker.transaction_coordinator;
  const int txn_rf = std::min(t.replication_factor, k.brokers.count);
  config["offsets.topic.replication.factor"] = std::min(g.offsets_topic_replication_factor, k.brokers.count);
  config["transaction.state.log.replication.factor"] = txn_rf;
  config["transaction.state.log.min.isr"] = std::min(t.min_isr, txn_rf);
  return config;
}

}  // namespace

json kafka_config_json(const config::ResolvedValues& values) {
  json out = json::object();
  for (const auto& [key, resolved] : values) {
    if (resolved.duration) {
      out[key] = kafka_duration(key, std::get<std::int64_t>(resolved.value));
      continue;
    }
    std::visit([&, k = key](const auto& v) { out[k] = v; }, resolved.value);
  }
  return out;
}

namespace {

// A topic's configs as the modelled release knows them: a runner creates the
// topic with them, and a release before KIP-405 refuses remote.storage.enable
// ("Unknown topic config name", Kafka 2.8), which ksim reads as false.
json topic_config_json(const KafkaSpec& k, std::size_t topic) {
  json config = kafka_config_json(k.topic_configs[topic]);
  if (!k.broker.mechanisms.has(models::Mechanism::TieredStorage)) {
    for (const char* key : {"remote.storage.enable", "local.retention.ms", "local.retention.bytes"}) config.erase(key);
  }
  return config;
}

}  // namespace

void add_kafka_json(const Scenario& s, json& out) {
  const KafkaSpec& k = *s.kafka;
  out["kafka_version"] = k.release.release.name();
  json kips = json::object();
  for (const auto& [mechanism, on] : k.release.switches) kips[std::string(models::info(mechanism).key)] = on ? "on" : "off";
  out["kips"] = std::move(kips);
  json brokers;
  brokers["count"] = k.brokers.count;
  json names = json::array();
  json racks = json::array();
  for (const NodePlacement& p : node_placements(s)) {
    if (p.group != "brokers") continue;
    names.push_back(p.name);
    racks.push_back(p.rack);
  }
  brokers["names"] = std::move(names);  // broker id i is names[i]
  brokers["racks"] = std::move(racks);
  json added = json::array();  // add_broker operations: the ids after count, and when each starts
  for (models::BrokerId b = k.brokers.count; b < broker_total(k); ++b) added.push_back({{"id", b}, {"at_ns", broker_added_at(k, b)}});
  brokers["added"] = std::move(added);
  brokers["config"] = broker_config(k);
  brokers["truncate_to_high_watermark"] = !k.broker.mechanisms.has(models::Mechanism::LeaderEpochTruncation);
  brokers["consumer_fetch_completes_on_append"] = k.broker.consumer_fetch_completes_on_append;
  brokers["exit_teardown_ns"] = k.broker.exit_teardown;  // ksim's: the real side's is the real kernel's
  brokers["mutations"] = {{"stale_alter_partition_answer", k.broker.mutations.stale_alter_partition_answer},
                          {"tiered_delete_before_copy", k.broker.mutations.tiered_delete_before_copy}};
  brokers["remote_storage"] = {{"latency_ns", k.broker.remote_log.store_latency},
                               {"bandwidth_bytes_per_s", k.broker.remote_log.store_bytes_per_second}};
  out["brokers"] = std::move(brokers);
  if (k.zookeeper) {  // before KRaft: ZooKeeper, and the brokers' sessions with it; a broker is the controller
    const std::vector<NodePlacement> placed = node_placements(s);
    const NodePlacement zk = *std::find_if(placed.begin(), placed.end(),
                                           [](const NodePlacement& p) { return p.group == "zookeeper"; });
    out["zookeeper"] = {{"name", zk.name},
                        {"rack", zk.rack},
                        {"tick_time_ns", k.zookeeper_server.tick_time},
                        {"fsync_latency_ns", k.zookeeper_server.fsync_latency},
                        {"session_timeout_ns", k.zookeeper_client.session_timeout},
                        {"pipelined_reads", k.zookeeper_client.pipelined_reads},
                        {"broker_epochs", k.zookeeper_client.broker_epochs},
                        {"alter_isr", k.zookeeper_client.alter_isr}};
  } else {
    json controller_names = json::array();
    json controller_racks = json::array();
    for (const NodePlacement& p : node_placements(s)) {
      if (p.group != "controller" && p.group != "controllers") continue;
      controller_names.push_back(p.name);
      controller_racks.push_back(p.rack);
    }
    out["controller"] = {{"name", controller_names.front()},
                         {"rack", controller_racks.front()},
                         {"features", {{"eligible.leader.replicas.version", k.controller.eligible_leader_replicas ? 1 : 0},
                                       {"transaction.version", k.controller.transaction_version}}}};
    // The quorum: its controllers (controller id i is names[i]) and controller.quorum.* configs.
    out["controllers"] = {{"count", k.controller_count},
                          {"names", std::move(controller_names)},
                          {"racks", std::move(controller_racks)},
                          {"fsync_latency_ns", k.quorum.fsync_latency},
                          {"config", kafka_config_json(k.quorum_config)}};
  }
  json topics = json::array();
  for (std::size_t i = 0; i < k.topics.size(); ++i) {
    const auto& t = k.topics[i];
    json created_at = nullptr;  // null: the cluster starts with it; else a create_topic operation's time
    for (const OperationSpec& op : k.operations) {
      if (op.kind == OperationSpec::Kind::CreateTopic && op.topic == static_cast<std::int32_t>(i)) created_at = op.at;
    }
    topics.push_back({{"name", t.name},
                      {"partitions", t.partitions},
                      {"replication_factor", t.replication_factor},
                      {"assignment", t.assignment.empty() ? json(nullptr) : json(t.assignment)},
                      {"config", topic_config_json(k, i)},
                      {"creation", t.auto_created ? "auto" : created_at.is_null() ? "start" : "operation"},
                      {"created_at_ns", std::move(created_at)}});
  }
  out["topics"] = std::move(topics);
  json operations = json::array();  // every operation, for a runner to perform or refuse
  for (const OperationSpec& op : k.operations) {
    const bool names_topic = op.kind == OperationSpec::Kind::ReassignPartitions ||
                             op.kind == OperationSpec::Kind::CancelReassignment ||
                             op.kind == OperationSpec::Kind::AlterReplicaLogDirs || op.kind == OperationSpec::Kind::CreateTopic;
    operations.push_back({{"kind", to_string(op.kind)},
                          {"at_ns", op.at},
                          {"topic", names_topic ? json(k.topics[static_cast<std::size_t>(op.topic)].name) : json(nullptr)},
                          {"line", op.location.line}});
  }
  out["operations"] = std::move(operations);
  out["producers"] = producers_json(s);
  out["consumers"] = consumers_json(s);
  if (!k.share_consumers.empty()) out["share_consumers"] = share_consumers_json(s);
  out["transactions"] = k.has_transactions();
}

}  // namespace ksim::app
