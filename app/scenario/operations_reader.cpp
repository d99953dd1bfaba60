// `operations:`, an operator's changes at given times (docs/scenarios.md#operations).
#include <algorithm>
#include <charconv>

#include "app/scenario/kafka_entry_readers.hpp"
#include "app/scenario/scenario.hpp"

namespace ksim::app {

using config::ListReader;
using config::MapReader;

std::string_view to_string(OperationSpec::Kind kind) {
  switch (kind) {
    case OperationSpec::Kind::ReassignPartitions: return "reassign_partitions";
    case OperationSpec::Kind::CancelReassignment: return "cancel_reassignment";
    case OperationSpec::Kind::DecommissionBroker: return "decommission_broker";
    case OperationSpec::Kind::AlterReplicaLogDirs: return "alter_replica_log_dirs";
    case OperationSpec::Kind::BalanceLogDirs: return "balance_log_dirs";
  }
  return "?";
}

namespace {

std::int32_t partition_number(MapReader& in, std::string_view key, const std::string& text, std::int32_t partitions) {
  std::int32_t p = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), p);
  if (error != std::errc{} || end != text.data() + text.size() || p < 0 || p >= partitions) {
    throw in.error(key, "'" + config::excerpt(text) + "' is not a partition of the topic (0 to " +
                            std::to_string(partitions - 1) + ")");
  }
  return p;
}

// replicas: {PARTITION: [BROKER, ...]}, as the tool's JSON lists them, preferred leader first.
void read_targets(MapReader& in, OperationSpec& op, const KafkaSpec& kafka) {
  const std::int32_t partitions = kafka.topics[static_cast<std::size_t>(op.topic)].partitions;
  MapReader targets = in.map("replicas");
  for (const std::string& key : targets.keys()) {
    const std::int32_t p = partition_number(targets, key, key, partitions);
    ListReader row = targets.list(key);
    std::vector<models::BrokerId> replicas;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const auto b = row.at<int>(i, {0, kafka.brokers.count - 1});
      if (std::find(replicas.begin(), replicas.end(), b) != replicas.end()) throw row.error(i, "broker listed twice");
      replicas.push_back(b);
    }
    if (replicas.empty()) throw targets.error(key, "needs at least one broker");
    op.replicas.emplace_back(p, std::move(replicas));
  }
  targets.finish();
  if (op.replicas.empty()) throw in.error("replicas", "is required: the new replicas of each partition moved");
}

// KIP-113's moves between one broker's log dirs: alter_replica_log_dirs
// (log_dirs: {PARTITION: PATH}, as the tool's reassignment JSON names them) or
// balance_log_dirs; both optionally throttled (--replica-alter-log-dirs-throttle).
void read_log_dir_operation(MapReader& in, OperationSpec& op, const KafkaSpec& kafka) {
  if (!kafka.broker.mechanisms.has(models::Mechanism::AlterReplicaLogDirs)) {
    throw in.error("kind", "moving replicas between log dirs (KIP-113) came with Kafka 1.1; this cluster's brokers "
                           "run an earlier release");
  }
  op.broker = in.required<int>("broker", {0, kafka.brokers.count - 1});
  const auto& dirs = kafka.broker.log_dirs;
  if (dirs.size() < 2) throw in.error("kind", "the brokers have one log dir (brokers.log_dirs): nowhere to move a replica");
  if (op.kind == OperationSpec::Kind::AlterReplicaLogDirs) {
    op.topic = read_topic_index(in, kafka.topics);
    const std::int32_t partitions = kafka.topics[static_cast<std::size_t>(op.topic)].partitions;
    MapReader targets = in.map("log_dirs");
    for (const std::string& key : targets.keys()) {
      const std::int32_t p = partition_number(targets, key, key, partitions);
      const auto path = targets.required<std::string>(key);
      if (std::none_of(dirs.begin(), dirs.end(), [&](const auto& d) { return d.path == path; })) {
        std::string known;
        for (const auto& d : dirs) known += (known.empty() ? "" : ", ") + d.path;
        throw targets.error(key, "'" + config::excerpt(path) + "' is not one of the brokers' log dirs (" + known + ")");
      }
      op.log_dirs.emplace_back(p, path);
    }
    targets.finish();
    if (op.log_dirs.empty()) throw in.error("log_dirs", "is required: the log dir each partition's replica moves to");
  }
  op.throttle = in.get<config::Bandwidth>("throttle", 0.0, {1.0, 1e13});
}

}  // namespace

std::vector<OperationSpec> read_operations(ListReader list, const KafkaSpec& kafka, SimTime end) {
  std::vector<OperationSpec> operations;
  for (std::size_t i = 0; i < list.size(); ++i) {
    MapReader in = list.map_at(i);
    OperationSpec op;
    op.location = in.location();
    if (!in.has("kind")) {
      throw in.error("kind", "is required: reassign_partitions, cancel_reassignment, decommission_broker, "
                             "alter_replica_log_dirs or balance_log_dirs");
    }
    static constexpr OperationSpec::Kind kKinds[] = {
        OperationSpec::Kind::ReassignPartitions, OperationSpec::Kind::CancelReassignment,
        OperationSpec::Kind::DecommissionBroker, OperationSpec::Kind::AlterReplicaLogDirs,
        OperationSpec::Kind::BalanceLogDirs};
    const std::string kind = in.get_choice("kind",
                                           {"reassign_partitions", "cancel_reassignment", "decommission_broker",
                                            "alter_replica_log_dirs", "balance_log_dirs"},
                                           "");
    // An unknown kind is an error get_choice reported; the item is read on as the default's.
    const auto* known = std::find_if(std::begin(kKinds), std::end(kKinds), [&](auto k) { return to_string(k) == kind; });
    if (known != std::end(kKinds)) op.kind = *known;
    op.at = in.required<config::Duration>("at");
    if (op.at >= end) throw in.error("at", "is after the run's end (duration + drain), so it never happens");
    if (op.kind == OperationSpec::Kind::AlterReplicaLogDirs || op.kind == OperationSpec::Kind::BalanceLogDirs) {
      read_log_dir_operation(in, op, kafka);
      in.finish();
      operations.push_back(std::move(op));
      continue;
    }
    if (kafka.zookeeper) {
      throw in.error("kind", "partition reassignment is modelled on KRaft controllers only; this cluster's "
                             "release runs a ZooKeeper controller (kafka_version 3.3 or later with KRaft)");
    }
    if (op.kind == OperationSpec::Kind::DecommissionBroker) {
      op.broker = in.required<int>("broker", {0, kafka.brokers.count - 1});
      for (const auto& t : kafka.topics) {
        if (t.replication_factor < kafka.brokers.count) continue;
        throw in.error("broker", "topic '" + t.name + "' has a replica on every broker (replication factor " +
                                     std::to_string(t.replication_factor) + "): the others cannot hold it");
      }
      op.throttle = in.get<config::Bandwidth>("throttle", 0.0, {1.0, 1e13});
      in.finish();
      operations.push_back(std::move(op));
      continue;
    }
    op.topic = read_topic_index(in, kafka.topics);
    if (op.kind == OperationSpec::Kind::ReassignPartitions) {
      read_targets(in, op, kafka);
      op.throttle = in.get<config::Bandwidth>("throttle", 0.0, {1.0, 1e13});
    } else {
      ListReader partitions = in.list("partitions");
      const std::int32_t count = kafka.topics[static_cast<std::size_t>(op.topic)].partitions;
      for (std::size_t p = 0; p < partitions.size(); ++p) op.partitions.push_back(partitions.at<int>(p, {0, count - 1}));
      if (op.partitions.empty()) throw in.error("partitions", "is required: the partitions whose reassignment to cancel");
    }
    in.finish();
    operations.push_back(std::move(op));
  }
  std::stable_sort(operations.begin(), operations.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
  return operations;
}

}  // namespace ksim::app
