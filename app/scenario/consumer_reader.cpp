// A scenario's consumers entries: their Kafka configs (`config:` under
// Kafka's names, with the defaults of the consumer's release), commit
// strategy, and a consume-transform-produce application's producer.
#include <algorithm>

#include "app/scenario/distribution_reader.hpp"
#include "app/scenario/kafka_config_names.hpp"
#include "app/scenario/kafka_entry_readers.hpp"
#include "app/scenario/producer_config_reader.hpp"
#include "app/scenario/reconnect_backoff_reader.hpp"
#include "models/client/consumer/assignors/assignor.hpp"
#include "models/coordinator/consumer_group_assignor.hpp"

namespace ksim::app {

using config::Bytes;
using config::Duration;
using config::ListReader;
using config::MapReader;
using models::Mechanism;

namespace {

// partition.assignment.strategy: a YAML list, or a comma-separated string as in a Kafka properties file.
std::vector<std::string> read_assignors(MapReader& in, std::vector<std::string> defaults, const models::Mechanisms& m) {
  std::vector<std::string> names;
  if (in.has_list("partition.assignment.strategy")) {
    ListReader list = in.list("partition.assignment.strategy");
    for (std::size_t i = 0; i < list.size(); ++i) names.push_back(list.at<std::string>(i));
  } else if (const auto text = in.optional<std::string>("partition.assignment.strategy")) {
    std::size_t start = 0;
    while (start <= text->size()) {
      const std::size_t comma = std::min(text->find(',', start), text->size());
      std::string name = text->substr(start, comma - start);
      name.erase(0, name.find_first_not_of(' '));
      name.erase(name.find_last_not_of(' ') + 1);
      if (!name.empty()) names.push_back(name);
      start = comma + 1;
    }
  } else {
    return defaults;
  }
  if (names.empty()) throw in.error("partition.assignment.strategy", "needs at least one assignor");
  for (const std::string& name : names) {
    if (const auto assignor = models::make_assignor(name)) {
      // The sticky assignor came with KIP-54 (0.11), the cooperative one with KIP-429 (2.4).
      const std::string_view short_name = assignor->name();
      const auto needed = short_name == "sticky"               ? std::optional(Mechanism::StickyAssignor)
                          : short_name == "cooperative-sticky" ? std::optional(Mechanism::CooperativeRebalancing)
                                                               : std::nullopt;
      if (needed && !m.has(*needed)) {
        const models::MechanismInfo& info = models::info(*needed);
        in.reject("partition.assignment.strategy", "'" + std::string(short_name) + "' is not in Kafka " +
                                                       m.release().name() + ": " + std::string(info.key) + " brought it in " +
                                                       info.since.name());
      }
      continue;
    }
    const auto suggestion = config::closest_name(name, models::assignor_names());
    throw in.error("partition.assignment.strategy",
                   "unknown assignor '" + config::excerpt(name) + "'" + (suggestion ? " (did you mean '" + config::excerpt(*suggestion) + "'?)" : "") +
                       "; known: range, roundrobin, sticky, cooperative-sticky");
  }
  return names;
}

// group.protocol (KIP-848, 4.0): `consumer` has the broker assign and time
// the group, so the classic protocol's client configs are refused with it,
// as Kafka's ConsumerConfig does; group.remote.assignor picks a broker
// assignor. `classic` stays the default.
void read_group_protocol(MapReader& in, models::ConsumerConfig& c, const models::Mechanisms& m) {
  reject_absent(in, "group.protocol", m, Mechanism::ConsumerGroupProtocol);
  c.consumer_protocol = in.get_choice("group.protocol", {"classic", "consumer"}, "classic") == "consumer";
  if (!c.consumer_protocol) {
    if (in.has("group.remote.assignor")) {
      in.reject("group.remote.assignor", "is for group.protocol: consumer (the classic protocol assigns in the client)");
    }
    in.ignore("group.remote.assignor");
    return;
  }
  for (const char* key : {"session.timeout.ms", "heartbeat.interval.ms", "partition.assignment.strategy"}) {
    if (!in.has(key)) continue;
    in.reject(key, "not supported with group.protocol: consumer (the broker's group.consumer.* configs and "
                   "group.remote.assignor set it)");
    in.ignore(key);
  }
  const std::string assignor = in.get<std::string>("group.remote.assignor", "");
  if (!assignor.empty()) {
    const auto known = models::make_server_assignor(assignor);
    if (!known) {
      const auto suggestion = config::closest_name(assignor, models::server_assignor_names());
      throw in.error("group.remote.assignor", "unknown assignor '" + config::excerpt(assignor) + "'" +
                                                  (suggestion ? " (did you mean '" + *suggestion + "'?)" : "") +
                                                  "; known: uniform, range");
    }
    c.remote_assignor = std::string(known->name());
  }
}

// The defaults of the consumer's release (ConsumerConfig of each):
// session.timeout.ms 45 s from 3.0 (KIP-735), 10 s before;
// partition.assignment.strategy [range, cooperative-sticky] from 3.0, [range] before.
models::ConsumerConfig read_consumer_config(MapReader& in, const models::Mechanisms& m) {
  models::ConsumerConfig c;
  c.mechanisms = m;
  if (!m.has(Mechanism::LongerSessionTimeout)) c.session_timeout = seconds(10);
  if (!m.has(Mechanism::CooperativeAssignorDefault)) c.partition_assignment_strategy = {"range"};
  c.group_id = in.get<std::string>("group.id", c.group_id);
  reject_absent(in, "group.instance.id", m, Mechanism::StaticMembership);
  c.group_instance_id = in.optional<std::string>("group.instance.id");
  read_group_protocol(in, c, m);
  c.session_timeout = in.get<Duration>("session.timeout.ms", c.session_timeout, {1, kNever});
  c.heartbeat_interval = in.get<Duration>("heartbeat.interval.ms", c.heartbeat_interval, {1, kNever});
  if (c.heartbeat_interval >= c.session_timeout) {
    in.reject("heartbeat.interval.ms", "must be lower than session.timeout.ms");
  } else if (c.heartbeat_interval * 3 > c.session_timeout) {
    // ConsumerConfig's heartbeat.interval.ms: "typically should be set no higher than 1/3 of" session.timeout.ms.
    in.warn("heartbeat.interval.ms", "is over a third of session.timeout.ms (" + units::format_duration(c.session_timeout) +
                                         "): Kafka advises at most a third, so that a member survives two lost heartbeats");
  }
  c.max_poll_interval = in.get<Duration>("max.poll.interval.ms", c.max_poll_interval, {1, kNever});
  c.enable_auto_commit = in.get<bool>("enable.auto.commit", c.enable_auto_commit);
  c.auto_commit_interval = in.get<Duration>("auto.commit.interval.ms", c.auto_commit_interval, {1, kNever});
  c.partition_assignment_strategy = read_assignors(in, c.partition_assignment_strategy, m);
  c.default_api_timeout = in.get<Duration>("default.api.timeout.ms", c.default_api_timeout, {1, kNever});
  c.fetch_min_bytes = in.get<Bytes>("fetch.min.bytes", c.fetch_min_bytes);
  c.fetch_max_wait = in.get<Duration>("fetch.max.wait.ms", c.fetch_max_wait);
  c.max_partition_fetch_bytes = in.get<Bytes>("max.partition.fetch.bytes", c.max_partition_fetch_bytes, {1, 1ULL << 31});
  c.fetch_max_bytes = in.get<Bytes>("fetch.max.bytes", c.fetch_max_bytes, {1, 1ULL << 31});
  c.max_poll_records = in.get<int>("max.poll.records", c.max_poll_records, {1, 1000000});
  c.read_committed =
      in.get_choice("isolation.level", {"read_uncommitted", "read_committed"}, "read_uncommitted") == "read_committed";
  const std::string reset = in.get_choice("auto.offset.reset", {"latest", "earliest", "none"}, "latest");
  c.auto_offset_reset = reset == "latest"     ? models::OffsetReset::Latest
                        : reset == "earliest" ? models::OffsetReset::Earliest
                                              : models::OffsetReset::None;
  c.allow_auto_create_topics = in.get<bool>("allow.auto.create.topics", c.allow_auto_create_topics);
  c.request_timeout = in.get<Duration>("request.timeout.ms", c.request_timeout, {1, kNever});
  c.retry_backoff = in.get<Duration>("retry.backoff.ms", c.retry_backoff);
  if (m.has(Mechanism::ExponentialBackoff)) {
    c.retry_backoff_max = in.get<Duration>("retry.backoff.max.ms", c.retry_backoff_max);
  } else {  // before KIP-580 (3.7) metadata refreshes wait retry.backoff.ms each time
    reject_absent(in, "retry.backoff.max.ms", m, Mechanism::ExponentialBackoff);
    c.retry_backoff_max = c.retry_backoff;
  }
  read_reconnect_backoff(in, c.reconnect_backoff, c.reconnect_backoff_max);
  c.connection_setup_timeout = read_connection_setup_timeout(in, m);
  return c;
}

}  // namespace

KafkaSpec::ConsumerGroup read_consumer(MapReader in, const std::vector<models::TopicSpec>& topics,
                                       const std::vector<std::string>& racks, const ReleaseSpec& release) {
  KafkaSpec::ConsumerGroup group;
  group.name = in.get<std::string>("name", "consumer");
  group.nodes = read_group(in, group.nodes, racks);
  const ClientRelease client = read_client_release(in, release, false);
  group.release = client.release;
  group.own_release = client.own_release;
  group.switches = client.switches;
  MapReader config = kafka_config(in, KafkaConfigKind::Consumer);
  const bool has_group_id = config.has("group.id");
  group.config = read_consumer_config(config, client.mechanisms);
  if (!has_group_id) group.config.group_id = group.name;  // ksim's default: the entry's name
  if (group.config.group_instance_id && group.nodes.count > 1 &&
      group.config.group_instance_id->find("{name}") == std::string::npos) {
    throw config.error("group.instance.id",
                                 "each member needs its own: include {name}, which becomes the consumer's name");
  }
  if (in.has("restart_config")) {
    // A rolling deployment of new consumer configs: the whole config the
    // consumers run with once restarted (by a fault or the nemesis).
    MapReader restart = in.map("restart_config");
    restart.foreign_keys({&kafka_config_names(KafkaConfigKind::Consumer), "a Kafka consumer config"});
    models::ConsumerConfig next = read_consumer_config(restart, client.mechanisms);
    if (!restart.has("group.id")) next.group_id = group.config.group_id;
    if (next.group_id != group.config.group_id) throw restart.error("group.id", "must be the consumers' group.id");
    if (next.group_instance_id && group.nodes.count > 1 && next.group_instance_id->find("{name}") == std::string::npos) {
      throw restart.error("group.instance.id", "each member needs its own: include {name}, which becomes the consumer's name");
    }
    group.restart_config = std::move(next);
  }
  const std::optional<SimTime> start = read_client_start(in);
  group.start = start.value_or(0);
  group.start_when_ready = !start;
  const std::string commit = in.get_choice(
      "commit", {"none", "sync-before-process", "sync-after-process", "async-after-process", "transactional"}, "none");
  for (const auto strategy : {models::CommitStrategy::None, models::CommitStrategy::SyncBeforeProcess,
                              models::CommitStrategy::SyncAfterProcess, models::CommitStrategy::AsyncAfterProcess,
                              models::CommitStrategy::Transactional}) {
    if (commit == models::to_string(strategy)) group.workload.commit = strategy;
  }
  if (in.has_map("transform")) {
    MapReader transform = in.map("transform");
    group.workload.output_topic = read_topic_index(transform, topics);
    group.workload.output_record_bytes = transform.get<Bytes>("record_size", group.workload.output_record_bytes, {1, 1ULL << 30});
    // KIP-447 (2.5): sendOffsetsToTransaction with the group's metadata; before, only with the group.id.
    reject_absent(transform, "send_group_metadata", client.mechanisms, Mechanism::GroupMetadataInTxn);
    group.workload.send_group_metadata =
        transform.get<bool>("send_group_metadata", client.mechanisms.has(Mechanism::GroupMetadataInTxn));
    group.producer_per_partition = transform.get<bool>("producer_per_partition", false);
    group.workload.records_per_transaction = transform.get<std::uint64_t>("records_per_transaction", 0, {0, 100000000});
    group.workload.commit_interval = transform.get<Duration>("commit_interval", 0);
    group.transform = read_producer_config(transform, client.mechanisms);
    group.transform->transaction_v2 = client.mechanisms.has(Mechanism::TransactionsV2);  // and the cluster's feature (read_kafka)
    check_record_format(transform, *group.transform, topics[static_cast<std::size_t>(group.workload.output_topic)]);
    group.transform_kafka_config = transform.map("config").resolved();
    if (group.workload.commit == models::CommitStrategy::Transactional &&
        (group.config.consumer_protocol || (group.restart_config && group.restart_config->consumer_protocol))) {
      throw in.error("commit", "transactional with group.protocol: consumer is not modelled (issue 18)");
    }
    if (group.workload.commit == models::CommitStrategy::Transactional && group.transform->transactional_id.empty()) {
      throw transform.error("config", "commit: transactional needs a transactional.id for the producer");
    }
    const std::string& id = group.transform->transactional_id;
    if (group.producer_per_partition && !id.empty() && id.find("{partition}") == std::string::npos) {
      throw transform.map("config").error("transactional.id", "a producer per partition needs {partition} in it");
    }
    if (!group.producer_per_partition && !id.empty() && group.nodes.count > 1 && id.find("{name}") == std::string::npos) {
      throw transform.map("config").error("transactional.id", "each instance needs its own: include {name}");
    }
  } else {
    in.ignore("transform");
    if (group.workload.commit == models::CommitStrategy::Transactional) {
      throw in.error("commit", "transactional needs a transform (a producer writing the output)");
    }
  }
  group.workload.topic = read_topic_index(in, topics);
  ListReader partitions = in.list("partitions");
  const std::int32_t count = topics[static_cast<std::size_t>(group.workload.topic)].partitions;
  for (std::size_t i = 0; i < partitions.size(); ++i) group.workload.partitions.push_back(partitions.at<int>(i, {0, count - 1}));
  group.workload.processing_time = config::read_distribution(in, "processing_time", Distribution::constant(0));
  group.kafka_config = config.resolved();
  return group;
}

}  // namespace ksim::app
