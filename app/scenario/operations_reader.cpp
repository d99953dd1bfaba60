// `operations:`, an operator's changes at given times (docs/scenarios.md#operations).
#include <algorithm>
#include <charconv>

#include "app/scenario/kafka_entry_readers.hpp"
#include "app/scenario/scenario.hpp"
#include "app/scenario/units.hpp"

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
    case OperationSpec::Kind::AddBroker: return "add_broker";
    case OperationSpec::Kind::GenerateReassignment: return "generate_reassignment";
    case OperationSpec::Kind::CreateTopic: return "create_topic";
  }
  return "?";
}

std::vector<std::pair<std::string, int>> internal_topic_replication(const KafkaSpec& kafka) {
  std::vector<std::pair<std::string, int>> internal;
  if (!kafka.consumers.empty() || !kafka.share_consumers.empty()) {
    internal.emplace_back("__consumer_offsets",
                          std::min(kafka.broker.group_coordinator.offsets_topic_replication_factor, kafka.brokers.count));
  }
  if (kafka.has_transactions()) {
    internal.emplace_back("__transaction_state",
                          std::min(kafka.broker.transaction_coordinator.replication_factor, kafka.brokers.count));
  }
  return internal;
}

int broker_total(const KafkaSpec& kafka) {
  int total = kafka.brokers.count;
  for (const OperationSpec& op : kafka.operations) total += op.kind == OperationSpec::Kind::AddBroker ? 1 : 0;
  return total;
}

SimTime broker_added_at(const KafkaSpec& kafka, models::BrokerId broker) {
  for (const OperationSpec& op : kafka.operations) {
    if (op.kind == OperationSpec::Kind::AddBroker && op.broker == broker) return op.at;
  }
  return 0;
}

std::vector<models::BrokerId> brokers_present_at(const KafkaSpec& kafka, SimTime at) {
  std::vector<models::BrokerId> present;
  for (models::BrokerId b = 0; b < broker_total(kafka); ++b) {
    if (broker_added_at(kafka, b) <= at) present.push_back(b);
  }
  return present;
}

namespace {

// The topics a --generate places (the --topics-to-move-json): the scenario's, and with internal_topics the
// internal ones; each needs as many brokers as its replication factor.
void check_topics_fit(MapReader& in, std::string_view key, const OperationSpec& op, const KafkaSpec& kafka, int brokers,
                      std::string_view what) {
  std::vector<std::pair<std::string, int>> topics;
  for (const auto& t : kafka.topics) topics.emplace_back(t.name, t.replication_factor);
  if (op.internal_topics) {
    for (const auto& internal : internal_topic_replication(kafka)) topics.push_back(internal);
  }
  for (const auto& [name, rf] : topics) {
    if (rf <= brokers) continue;
    throw in.error(key, "topic '" + name + "' has replication factor " + std::to_string(rf) + ": " + std::string(what));
  }
}

constexpr std::string_view kKindList =
    "reassign_partitions, cancel_reassignment, decommission_broker, alter_replica_log_dirs, balance_log_dirs, "
    "add_broker, generate_reassignment or create_topic";

// The brokers that operations add get the ids after the cluster's own, in time order (file order at the
// same time): a first pass over the list finds them, so that any operation may name one.
struct AddedBrokers {
  int first_id = 0;
  std::vector<std::pair<SimTime, std::size_t>> by_time;  // (at, list index), in id order

  int total() const { return first_id + static_cast<int>(by_time.size()); }
  models::BrokerId id_of(std::size_t list_index) const {
    for (std::size_t k = 0; k < by_time.size(); ++k) {
      if (by_time[k].second == list_index) return first_id + static_cast<int>(k);
    }
    return -1;
  }
  SimTime added_at(models::BrokerId b) const {
    return b < first_id ? 0 : by_time[static_cast<std::size_t>(b - first_id)].first;
  }
};

AddedBrokers find_added_brokers(ListReader& list, const KafkaSpec& kafka) {
  AddedBrokers added{kafka.brokers.count, {}};
  for (std::size_t i = 0; i < list.size(); ++i) {
    MapReader in = list.map_at(i);
    if (!in.has("kind") || !in.has("at") || in.get<std::string>("kind", "") != "add_broker") continue;
    added.by_time.emplace_back(in.required<config::Duration>("at"), i);
  }
  std::stable_sort(added.by_time.begin(), added.by_time.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return added;
}

// A broker an operation names must be running by then: one of the cluster's, or one added at or before it.
models::BrokerId present_broker(MapReader& in, std::string_view key, models::BrokerId b, SimTime at,
                                const AddedBrokers& added) {
  if (added.added_at(b) > at) {
    throw in.error(key, "broker " + std::to_string(b) + " is added at " + units::format_duration(added.added_at(b)) +
                            " (add_broker), after this operation at " + units::format_duration(at));
  }
  return b;
}

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
void read_targets(MapReader& in, OperationSpec& op, const KafkaSpec& kafka, const AddedBrokers& added) {
  const std::int32_t partitions = kafka.topics[static_cast<std::size_t>(op.topic)].partitions;
  MapReader targets = in.map("replicas");
  for (const std::string& key : targets.keys()) {
    const std::int32_t p = partition_number(targets, key, key, partitions);
    ListReader row = targets.list(key);
    std::vector<models::BrokerId> replicas;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const auto b = row.at<int>(i, {0, added.total() - 1});
      if (std::find(replicas.begin(), replicas.end(), b) != replicas.end()) throw row.error(i, "broker listed twice");
      present_broker(targets, key, b, op.at, added);
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
void read_log_dir_operation(MapReader& in, OperationSpec& op, const KafkaSpec& kafka, const AddedBrokers& added) {
  if (!kafka.broker.mechanisms.has(models::Mechanism::AlterReplicaLogDirs)) {
    throw in.error("kind", "moving replicas between log dirs (KIP-113) came with Kafka 1.1; this cluster's brokers "
                           "run an earlier release");
  }
  op.broker = present_broker(in, "broker", in.required<int>("broker", {0, added.total() - 1}), op.at, added);
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

// add_broker: the broker's rack (default: the next in the round robin the cluster's brokers follow).
void read_added_broker(MapReader& in, OperationSpec& op, const KafkaSpec& kafka, const std::vector<std::string>& racks,
                       const AddedBrokers& added, std::size_t list_index) {
  op.broker = added.id_of(list_index);
  const std::string fallback = kafka.brokers.rack.value_or(racks[static_cast<std::size_t>(op.broker) % racks.size()]);
  op.rack = in.get<std::string>("rack", fallback);
  if (std::find(racks.begin(), racks.end(), op.rack) == racks.end()) {
    throw in.error("rack", "'" + config::excerpt(op.rack) + "' is not one of network.racks");
  }
}

// generate_reassignment: the --broker-list (default: every broker running then); every topic must fit on it.
void read_generated_reassignment(MapReader& in, OperationSpec& op, const KafkaSpec& kafka, const AddedBrokers& added) {
  if (in.has("brokers")) {
    ListReader list = in.list("brokers");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const auto b = list.at<int>(i, {0, added.total() - 1});
      if (std::find(op.brokers.begin(), op.brokers.end(), b) != op.brokers.end()) throw list.error(i, "broker listed twice");
      present_broker(in, "brokers", b, op.at, added);
      op.brokers.push_back(b);
    }
    std::sort(op.brokers.begin(), op.brokers.end());
  } else {
    for (models::BrokerId b = 0; b < added.total(); ++b) {
      if (added.added_at(b) <= op.at) op.brokers.push_back(b);
    }
  }
  op.internal_topics = in.get<bool>("internal_topics", false);
  check_topics_fit(in, "brokers", op, kafka, static_cast<int>(op.brokers.size()),
                   "the list needs at least that many brokers");
  op.throttle = in.get<config::Bandwidth>("throttle", 0.0, {1.0, 1e13});
}

// create_topic: one of `topics:`, created once. Kafka's brokers create a topic
// a client asks metadata for while auto.create.topics.enable is true (its
// default), with num.partitions and default.replication.factor, before the
// operator's create (which then fails with TOPIC_ALREADY_EXISTS); ksim does
// not model that, so a topic some client uses needs it false.
void read_created_topic(MapReader& in, OperationSpec& op, const KafkaSpec& kafka,
                        const std::vector<OperationSpec>& earlier) {
  if (!in.has("topic")) throw in.error("topic", "is required: the topic of `topics:` to create");
  op.topic = read_topic_index(in, kafka.topics);
  const std::string& name = kafka.topics[static_cast<std::size_t>(op.topic)].name;
  if (kafka.topics[static_cast<std::size_t>(op.topic)].auto_created) {
    throw in.error("topic", "'" + name + "' is created automatically (create: auto), not by an operation");
  }
  for (const OperationSpec& other : earlier) {
    if (other.kind == OperationSpec::Kind::CreateTopic && other.topic == op.topic) {
      throw in.error("topic", "'" + name + "' is created by the operation at line " + std::to_string(other.location.line) +
                                  " already");
    }
  }
  if (!kafka.topic_defaults.auto_create_topics) return;
  std::string client;
  for (const auto& p : kafka.producers) {
    if (p.workload.topic == op.topic && client.empty()) client = "producer entry '" + p.name + "'";
  }
  for (const auto& c : kafka.consumers) {
    const bool uses = c.workload.topic == op.topic || (c.transform && c.workload.output_topic == op.topic);
    if (uses && client.empty()) client = "consumer entry '" + c.name + "'";
  }
  for (const auto& c : kafka.share_consumers) {
    if (c.workload.topic == op.topic && client.empty()) client = "consumer entry '" + c.name + "'";
  }
  if (client.empty()) return;
  throw in.error("topic", "'" + name + "' is used by " + client + ", and auto.create.topics.enable is true (Kafka's "
                          "default): its metadata requests would have the brokers create the topic with num.partitions "
                          "and default.replication.factor, which ksim does not model. Set "
                          "brokers.config[auto.create.topics.enable]: false, as clusters that create topics "
                          "explicitly do");
}

}  // namespace

std::vector<OperationSpec> read_operations(ListReader list, const KafkaSpec& kafka, const std::vector<std::string>& racks,
                                           SimTime end) {
  std::vector<OperationSpec> operations;
  const AddedBrokers added = find_added_brokers(list, kafka);
  for (std::size_t i = 0; i < list.size(); ++i) {
    MapReader in = list.map_at(i);
    OperationSpec op;
    op.location = in.location();
    if (!in.has("kind")) throw in.error("kind", "is required: " + std::string(kKindList));
    static constexpr OperationSpec::Kind kKinds[] = {
        OperationSpec::Kind::ReassignPartitions,  OperationSpec::Kind::CancelReassignment,
        OperationSpec::Kind::DecommissionBroker,  OperationSpec::Kind::AlterReplicaLogDirs,
        OperationSpec::Kind::BalanceLogDirs,      OperationSpec::Kind::AddBroker,
        OperationSpec::Kind::GenerateReassignment, OperationSpec::Kind::CreateTopic};
    const std::string kind = in.get_choice("kind",
                                           {"reassign_partitions", "cancel_reassignment", "decommission_broker",
                                            "alter_replica_log_dirs", "balance_log_dirs", "add_broker",
                                            "generate_reassignment", "create_topic"},
                                           "");
    // An unknown kind is an error get_choice reported; the item is read on as the default's.
    const auto* known = std::find_if(std::begin(kKinds), std::end(kKinds), [&](auto k) { return to_string(k) == kind; });
    if (known != std::end(kKinds)) op.kind = *known;
    op.at = in.required<config::Duration>("at");
    if (op.at >= end) throw in.error("at", "is after the run's end (duration + drain), so it never happens");
    if (op.kind == OperationSpec::Kind::AlterReplicaLogDirs || op.kind == OperationSpec::Kind::BalanceLogDirs) {
      read_log_dir_operation(in, op, kafka, added);
      in.finish();
      operations.push_back(std::move(op));
      continue;
    }
    // KIP-455 (2.4): AlterPartitionReassignments; before it kafka-reassign-partitions could not cancel.
    if (op.kind == OperationSpec::Kind::CancelReassignment && kafka.release.release < models::KafkaRelease{2, 4}) {
      throw in.error("kind", "cancelling a reassignment needs KIP-455 (Kafka 2.4): kafka_version " +
                                 kafka.release.release.name() + " cannot; use 2.4 or later");
    }
    if (op.kind == OperationSpec::Kind::CreateTopic) {
      read_created_topic(in, op, kafka, operations);
      in.finish();
      operations.push_back(std::move(op));
      continue;
    }
    if (op.kind == OperationSpec::Kind::AddBroker) {
      read_added_broker(in, op, kafka, racks, added, i);
    } else if (op.kind == OperationSpec::Kind::GenerateReassignment) {
      read_generated_reassignment(in, op, kafka, added);
    }
    if (op.kind == OperationSpec::Kind::AddBroker || op.kind == OperationSpec::Kind::GenerateReassignment) {
      in.finish();
      operations.push_back(std::move(op));
      continue;
    }
    if (op.kind == OperationSpec::Kind::DecommissionBroker) {
      op.broker = present_broker(in, "broker", in.required<int>("broker", {0, added.total() - 1}), op.at, added);
      int present = 0;
      for (models::BrokerId b = 0; b < added.total(); ++b) present += added.added_at(b) <= op.at ? 1 : 0;
      op.internal_topics = in.get<bool>("internal_topics", false);
      check_topics_fit(in, "broker", op, kafka, present - 1, "the other brokers cannot hold it");
      op.throttle = in.get<config::Bandwidth>("throttle", 0.0, {1.0, 1e13});
      in.finish();
      operations.push_back(std::move(op));
      continue;
    }
    op.topic = read_topic_index(in, kafka.topics);
    if (op.kind == OperationSpec::Kind::ReassignPartitions) {
      read_targets(in, op, kafka, added);
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
