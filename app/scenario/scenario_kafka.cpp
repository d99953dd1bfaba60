// The Kafka sections of a scenario: brokers, controller, topics, producers.
// Kafka settings are read under Kafka's own names inside `config:` maps.
#include <algorithm>
#include <utility>

#include "app/scenario/scenario.hpp"
#include "app/scenario/distribution_reader.hpp"
#include "app/scenario/kafka_config_names.hpp"
#include "app/scenario/coordinator_config_reader.hpp"
#include "app/scenario/kafka_entry_readers.hpp"
#include "app/scenario/log_config_reader.hpp"
#include "app/scenario/producer_config_reader.hpp"
#include "app/scenario/reconnect_backoff_reader.hpp"
#include "app/scenario/release_reader.hpp"
#include "app/scenario/remote_log_reader.hpp"
#include "models/client/consumer/assignors/assignor.hpp"
#include "models/coordinator/consumer_group_assignor.hpp"

namespace ksim::app {

using config::Bytes;
using config::Duration;
using config::ListReader;
using config::MapReader;
using config::Rate;
using models::Mechanism;

namespace {

models::DiskSpec read_disk(MapReader in, models::DiskSpec disk) {
  disk.capacity_bytes = in.get<Bytes>("capacity", disk.capacity_bytes, {1, UINT64_MAX});
  disk.write_bytes_per_s = in.get<config::Bandwidth>("write_bandwidth", disk.write_bytes_per_s, {1.0, 1e13});
  disk.read_bytes_per_s = in.get<config::Bandwidth>("read_bandwidth", disk.read_bytes_per_s, {1.0, 1e13});
  disk.write_latency = in.get<Duration>("write_latency", disk.write_latency);
  disk.flush_latency = in.get<Duration>("flush_latency", disk.flush_latency);
  disk.dirty_limit_bytes = in.get<Bytes>("dirty_limit", disk.dirty_limit_bytes);
  disk.writeback_delay = in.get<Duration>("writeback_delay", disk.writeback_delay);
  return disk;
}

// A profile's disks: a log dir per disk (JBOD), or one over all of them (RAID-0 stripes their bandwidth).
std::vector<models::LogDirSpec> profile_log_dirs(const HardwareProfile& p, const models::DiskSpec& disk) {
  if (!p.raid) {
    std::vector<models::LogDirSpec> dirs;
    for (int i = 0; i < p.disk_count; ++i) dirs.push_back({"/data/" + std::to_string(i), disk});
    return dirs;
  }
  models::DiskSpec striped = disk;
  striped.write_bytes_per_s *= p.disk_count;
  striped.read_bytes_per_s *= p.disk_count;
  striped.capacity_bytes *= static_cast<std::uint64_t>(p.disk_count);
  return {{"/data/0", striped}};
}

std::vector<models::LogDirSpec> read_log_dirs(MapReader& brokers, const std::optional<HardwareProfile>& profile) {
  const models::DiskSpec defaults = read_disk(brokers.map("disk"), profile ? profile->disk : models::DiskSpec{});
  if (!brokers.has("log_dirs")) {
    brokers.ignore("log_dirs");
    if (profile) return profile_log_dirs(*profile, defaults);
    return {{"/data/0", defaults}};
  }
  ListReader list = brokers.list("log_dirs");
  if (list.empty()) throw brokers.error("log_dirs", "needs at least one log dir");
  std::vector<models::LogDirSpec> dirs;
  for (std::size_t i = 0; i < list.size(); ++i) {
    MapReader dir = list.map_at(i);
    const std::string path = dir.get<std::string>("path", "/data/" + std::to_string(i));
    for (const auto& other : dirs) {
      if (other.path == path) throw dir.error("path", "is already used by another log dir");
    }
    dirs.push_back({path, read_disk(dir, defaults)});
  }
  return dirs;
}

// group.protocol: consumer needs brokers that have KIP-848. One group may mix
// the protocols (KIP-848's online migration, group.consumer.migration.policy).
void check_group_protocol(ListReader& consumers, std::size_t i, const KafkaSpec& kafka) {
  const auto& added = kafka.consumers.back();
  const bool consumer_protocol =
      added.config.consumer_protocol || (added.restart_config && added.restart_config->consumer_protocol);
  if (consumer_protocol && !kafka.release.mechanisms(kafka.release.release, {}).has(Mechanism::ConsumerGroupProtocol)) {
    throw consumers.error(i, "group.protocol: consumer needs brokers with KIP-848 (4.0+); the cluster runs " +
                                 kafka.release.release.name());
  }
}

// A consumers entry with share_group (KIP-932): brokers with share groups
// (4.1+), a name of its own, and a group that is not a consumer group's.
void read_share_consumers(ListReader& consumers, std::size_t i, const std::vector<std::string>& racks, KafkaSpec& kafka) {
  if (!kafka.release.mechanisms(kafka.release.release, {}).has(Mechanism::ShareGroups)) {
    throw consumers.error(i, "share_group needs brokers with share groups (KIP-932, 4.1+); the cluster runs " +
                                 kafka.release.release.name());
  }
  KafkaSpec::ShareConsumerGroup group = read_share_consumer(consumers.map_at(i), kafka.topics, racks, kafka.release);
  if (kafka.topics[static_cast<std::size_t>(group.workload.topic)].log.remote_storage_enable) {
    // Kafka 4.1+ reads a share fetch below the local log start from the remote store; ksim's share-partition
    // reads the local log only, so it would stall there: refused rather than answered wrongly.
    throw consumers.map_at(i).error("topic", "is a tiered topic (remote.storage.enable): share groups reading tiered "
                                             "storage are not modelled");
  }
  for (const auto& c : kafka.consumers) {
    if (c.name == group.name) throw consumers.error(i, "duplicate consumer name");
    if (c.config.group_id == group.config.group_id) {
      throw consumers.error(i, "'" + group.config.group_id + "' is a consumer group's group.id: a group is one kind");
    }
  }
  for (const auto& c : kafka.share_consumers) {
    if (c.name == group.name) throw consumers.error(i, "duplicate consumer name");
  }
  for (const auto& p : kafka.producers) {
    if (p.name == group.name) throw consumers.error(i, "a producer group has this name");
  }
  kafka.share_consumers.push_back(std::move(group));
}

// The machine: threads and CPU costs, page cache (Kafka's num.network.threads
// and num.io.threads in brokers.config win over the profile's).
void read_broker_machine(MapReader& in, const std::optional<HardwareProfile>& profile, models::BrokerConfig& c) {
  if (profile) {
    c.threading = profile->threads;
    c.cpu_costs = profile->broker_costs;
    c.page_cache_bytes = profile->page_cache_bytes();
  }
  c.threading.num_network_threads = in.get<int>("num.network.threads", c.threading.num_network_threads, {1, 256});
  c.threading.num_io_threads = in.get<int>("num.io.threads", c.threading.num_io_threads, {1, 256});
}

// A killed process's sockets close once the kernel has freed its memory
// (kernel/exit.c: do_exit calls exit_mm before exit_files). Measured on the
// development machine (docs/engine.md): 90 to 110 ms per GiB of touched
// memory; a broker's is about its JVM heap, the profile's or
// kafka-server-start.sh's -Xmx1G.
SimTime default_exit_teardown(const std::optional<HardwareProfile>& profile) {
  constexpr SimTime kPerMiB = microseconds(90);
  const std::uint64_t heap = profile && profile->heap_bytes > 0 ? profile->heap_bytes : 1ULL << 30;
  return static_cast<SimTime>(heap >> 20) * kPerMiB;
}

// The defaults of the brokers' release: replica.lag.time.max.ms 30 s from
// 2.5 (KIP-537), 10 s before; fetch sessions from 1.1 (KIP-227);
// transaction.partition.verification.enable from 3.6 (KIP-890 part 1).
models::BrokerConfig read_broker_config(MapReader& brokers, const std::optional<HardwareProfile>& profile,
                                        const models::Mechanisms& m) {
  models::BrokerConfig c;
  c.mechanisms = m;
  if (!m.has(Mechanism::LongerDefaultTimeouts)) c.replica_lag_time_max = seconds(10);
  c.fetch_sessions = m.has(Mechanism::FetchSessions);
  c.transaction_partition_verification_enable = m.has(Mechanism::TxnVerification);
  MapReader in = kafka_config(brokers, KafkaConfigKind::Broker);
  read_broker_machine(in, profile, c);
  c.replica_lag_time_max = in.get<Duration>("replica.lag.time.max.ms", c.replica_lag_time_max, {1, kNever});
  c.controlled_shutdown_enable = in.get<bool>("controlled.shutdown.enable", c.controlled_shutdown_enable);
  c.num_replica_fetchers = in.get<int>("num.replica.fetchers", c.num_replica_fetchers, {1, 64});
  c.replica_fetch_max_bytes = in.get<Bytes>("replica.fetch.max.bytes", c.replica_fetch_max_bytes, {1, 1ULL << 31});
  c.replica_fetch_response_max_bytes =
      in.get<Bytes>("replica.fetch.response.max.bytes", c.replica_fetch_response_max_bytes, {1, 1ULL << 31});
  c.replica_fetch_min_bytes = in.get<Bytes>("replica.fetch.min.bytes", c.replica_fetch_min_bytes);
  c.replica_fetch_wait_max = in.get<Duration>("replica.fetch.wait.max.ms", c.replica_fetch_wait_max);
  c.replica_fetch_backoff = in.get<Duration>("replica.fetch.backoff.ms", c.replica_fetch_backoff);
  c.replica_socket_timeout = in.get<Duration>("replica.socket.timeout.ms", c.replica_socket_timeout, {1, kNever});
  c.connection_setup_timeout = read_connection_setup_timeout(in, m);
  // KIP-113 (1.1): the ReplicaAlterLogDirsThreads moving replicas between log dirs, and their throttle.
  reject_absent(in, "num.replica.alter.log.dirs.threads", m, Mechanism::AlterReplicaLogDirs);
  reject_absent(in, "replica.alter.log.dirs.io.max.bytes.per.second", m, Mechanism::AlterReplicaLogDirs);
  c.num_replica_alter_log_dirs_threads =
      in.has("num.replica.alter.log.dirs.threads") ? in.get<int>("num.replica.alter.log.dirs.threads", 1, {1, 64}) : 0;
  c.replica_alter_log_dirs_io_max_bytes_per_second = static_cast<double>(
      in.get<Bytes>("replica.alter.log.dirs.io.max.bytes.per.second", 0, {1, static_cast<std::uint64_t>(INT64_MAX)}));
  c.log_flush_interval_messages =
      in.get<std::int64_t>("log.flush.interval.messages", c.log_flush_interval_messages, {1, INT64_MAX});
  // LogManager's log flusher runs every log.flush.scheduler.interval.ms
  // (default Long.MAX_VALUE: never) and fsyncs each log whose last flush is
  // flush.ms old; so flush.ms does nothing unless the scheduler is set.
  c.log_flush_scheduler_interval =
      in.get<Duration>("log.flush.scheduler.interval.ms", c.log_flush_scheduler_interval, {1, kNever});
  c.log_flush_interval = in.get<Duration>("log.flush.interval.ms", c.log_flush_scheduler_interval, {0, kNever});
  if (in.has("log.flush.interval.ms") && c.log_flush_scheduler_interval == kNever) {
    in.warn("log.flush.interval.ms", "has no effect: Kafka's log flusher runs every log.flush.scheduler.interval.ms, "
                                     "which is unset (Long.MAX_VALUE); set it too (say 1000)");
  }
  c.broker_heartbeat_interval = in.get<Duration>("broker.heartbeat.interval.ms", c.broker_heartbeat_interval, {1, kNever});
  c.log_dir_failure_timeout = in.get<Duration>("log.dir.failure.timeout.ms", c.log_dir_failure_timeout, {1, kNever});
  // Read only when given: the resolved config (which the ground-truth harness
  // passes to real brokers) must not carry an empty path, which Kafka takes for "/".
  if (in.has("metadata.log.dir")) c.metadata_log_dir = in.get<std::string>("metadata.log.dir", "");
  // LogManager's retention task (kafka-log-retention), and how long deleted segment files stay on disk.
  c.log_retention_check_interval =
      in.get<Duration>("log.retention.check.interval.ms", c.log_retention_check_interval, {1, kNever});
  c.file_delete_delay = in.get<Duration>("log.segment.delete.delay.ms", c.file_delete_delay, {0, kNever});
  read_log_cleaner_config(in, c);
  read_group_coordinator_config(in, c.group_coordinator, m);
  reject_absent(in, "transaction.partition.verification.enable", m, Mechanism::TxnVerification);
  read_txn_coordinator_config(in, c);
  c.consumer_fetch_completes_on_append = brokers.get<bool>("consumer_fetch_completes_on_append", false);
  c.exit_teardown = brokers.get<Duration>("exit_teardown", default_exit_teardown(profile), {0, minutes(10)});
  c.log_dirs = read_log_dirs(brokers, profile);
  c.remote_log = read_remote_log_config(brokers, in, m);
  return c;
}

// log.message.format.version (brokers) or message.format.version (a topic):
// the record format of a release. Kafka 3.0+ ignores it (KIP-724) and 4.0
// removed it (a 4.x broker refuses the topic config), so it is read, and
// resolved for `ksim validate --resolved`, only when given; ksim applies it as
// the release it names would.
models::RecordFormat read_record_format(MapReader& config, std::string_view key, models::RecordFormat fallback) {
  if (!config.has(key)) return fallback;
  const std::optional<models::RecordFormat> format = models::record_format_of_version(config.get<std::string>(key, ""));
  if (!format) {
    throw config.error(key, "is not a release Kafka accepts here: 0.8.0 to 0.11.0 with three numbers (0.8.2, "
                            "0.10.0-IV1), 1.0 to 3.9 with two (2.8)");
  }
  return *format;
}

// The brokers' defaults of the topic configs of the same names (brokers.config),
// from their release: unclean.leader.election.enable false from 0.11 (KIP-106),
// true before; log.message.format.version 0.11's v2 from 0.11 (KIP-98), 0.10's v1 before.
KafkaSpec::TopicDefaults read_topic_defaults(MapReader broker_config, const models::Mechanisms& m) {
  KafkaSpec::TopicDefaults d;
  d.unclean_leader_election_enable = !m.has(Mechanism::UncleanDefaultOff);
  if (!m.has(Mechanism::IdempotentTransactional)) d.record_format = models::RecordFormat::V1;
  d.min_insync_replicas = broker_config.get<int>("min.insync.replicas", d.min_insync_replicas, {1, 1000});
  d.unclean_leader_election_enable =
      broker_config.get<bool>("unclean.leader.election.enable", d.unclean_leader_election_enable);
  d.log_flusher_runs = broker_config.has("log.flush.scheduler.interval.ms");
  d.auto_create_topics = broker_config.get<bool>("auto.create.topics.enable", d.auto_create_topics);
  d.num_partitions = broker_config.get<int>("num.partitions", d.num_partitions, {1, 1000000});
  d.default_replication_factor = broker_config.get<int>("default.replication.factor", d.default_replication_factor, {1, 1000});
  d.record_format = read_record_format(broker_config, "log.message.format.version", d.record_format);
  d.min_segment_bytes = m.release() >= models::KafkaRelease{4, 1} ? 1ULL << 20 : 14;  // LogConfig's bound
  d.log = read_log_defaults(broker_config, d.min_segment_bytes);
  return d;
}

// `create: auto` (AutoTopicCreationManager.creatableTopic): the brokers'
// num.partitions and default.replication.factor, and their topic defaults.
models::TopicSpec read_auto_created_topic(MapReader& in, models::TopicSpec t, const KafkaSpec::TopicDefaults& defaults,
                                          int broker_count) {
  for (const char* key : {"partitions", "replication_factor", "assignment", "config"}) {
    if (!in.has(key)) continue;
    throw in.error(key, "a topic the brokers create automatically has their num.partitions, default.replication.factor "
                        "and topic defaults (brokers.config): leave it out, or create the topic (create: start, or a "
                        "create_topic operation)");
  }
  if (!defaults.auto_create_topics) {
    throw in.error("create", "auto, but the brokers' auto.create.topics.enable is false: nothing would create it");
  }
  if (defaults.default_replication_factor > broker_count) {
    throw in.error("create", "auto, with default.replication.factor " + std::to_string(defaults.default_replication_factor) +
                                 " over the " + std::to_string(broker_count) +
                                 " brokers: the controller would refuse it (INVALID_REPLICATION_FACTOR)");
  }
  t.partitions = defaults.num_partitions;
  t.replication_factor = defaults.default_replication_factor;
  t.min_insync_replicas = defaults.min_insync_replicas;
  t.unclean_leader_election_enable = defaults.unclean_leader_election_enable;
  t.record_format = defaults.record_format;
  t.log = defaults.log;
  return t;
}

models::TopicSpec read_topic(MapReader in, const KafkaSpec::TopicDefaults& defaults, int broker_count) {
  models::TopicSpec t;
  t.name = in.required<std::string>("name");
  t.auto_created = in.get_choice("create", {"start", "auto"}, "start") == "auto";
  if (t.auto_created) return read_auto_created_topic(in, t, defaults, broker_count);
  t.partitions = in.get<int>("partitions", 1, {1, 1000000});
  t.replication_factor = in.get<int>("replication_factor", std::min(3, broker_count), {1, broker_count});
  MapReader config = kafka_config(in, KafkaConfigKind::Topic);
  t.min_insync_replicas = config.get<int>("min.insync.replicas", defaults.min_insync_replicas, {1, 1000});
  t.unclean_leader_election_enable =
      config.get<bool>("unclean.leader.election.enable", defaults.unclean_leader_election_enable);
  t.record_format = read_record_format(config, "message.format.version", defaults.record_format);
  // LogConfig's segment and retention configs, over the brokers' log.* defaults.
  t.log = read_topic_log_config(config, defaults.log, defaults.min_segment_bytes);
  if (config.has("flush.messages")) t.flush_messages = config.get<std::int64_t>("flush.messages", 0, {1, INT64_MAX});
  if (config.has("flush.ms")) {
    t.flush_ms = config.get<Duration>("flush.ms", 0, {0, kNever});
    if (!defaults.log_flusher_runs) {
      config.warn("flush.ms", "has no effect: Kafka's log flusher runs every log.flush.scheduler.interval.ms, "
                              "which the brokers leave unset (Long.MAX_VALUE); set it in brokers.config");
    }
  }
  ListReader rows = in.list("assignment");
  // Kafka accepts such a topic; since 3.7 (KAFKA-15583, Partition.effectiveMinIsr) its
  // acks=all writes need every replica in the ISR, before that they all failed.
  const auto check_min_isr = [&] {
    if (t.min_insync_replicas <= t.replication_factor) return;
    const std::string message = std::to_string(t.min_insync_replicas) + " is over the replication factor (" +
                                std::to_string(t.replication_factor) +
                                "): Kafka 3.7+ caps it there, so every acks=all write needs all replicas in sync "
                                "(before 3.7 every one failed with NOT_ENOUGH_REPLICAS)";
    if (config.has("min.insync.replicas")) {
      config.warn("min.insync.replicas", message);
    } else {
      in.warn("replication_factor", "is under the brokers' min.insync.replicas (" +
                                        std::to_string(t.min_insync_replicas) +
                                        "): Kafka 3.7+ caps it at the replication factor, so every acks=all "
                                        "write needs all replicas in sync (before 3.7 every one failed)");
    }
  };
  if (rows.empty()) {
    check_min_isr();
    return t;
  }
  if (static_cast<std::int32_t>(rows.size()) != t.partitions) {
    throw in.error("assignment", "must list one replica set per partition (" + std::to_string(t.partitions) + ")");
  }
  for (std::size_t p = 0; p < rows.size(); ++p) {
    ListReader row = rows.list_at(p);
    std::vector<models::BrokerId> replicas;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const auto b = row.at<int>(i, {0, broker_count - 1});
      if (std::find(replicas.begin(), replicas.end(), b) != replicas.end()) throw row.error(i, "broker listed twice");
      replicas.push_back(b);
    }
    if (replicas.empty()) throw rows.error(p, "needs at least one broker");
    t.assignment.push_back(std::move(replicas));
  }
  t.replication_factor = static_cast<std::int32_t>(t.assignment.front().size());
  check_min_isr();
  return t;
}

// TransactionCoordinator.handleInitProducerId refuses a transaction.timeout.ms
// over the brokers' transaction.max.timeout.ms (INVALID_TRANSACTION_TIMEOUT):
// initTransactions() fails and the producer never starts.
void check_transaction_timeout(MapReader config, const models::ProducerConfig& producer, const models::BrokerConfig& broker) {
  const SimTime max = broker.transaction_coordinator.max_timeout;
  if (producer.transactional_id.empty() || producer.transaction_timeout <= max) return;
  throw config.error("transaction.timeout.ms", "is over the brokers' transaction.max.timeout.ms (" +
                                                   units::format_duration(max) +
                                                   "): Kafka refuses it with INVALID_TRANSACTION_TIMEOUT and "
                                                   "initTransactions() fails; raise transaction.max.timeout.ms in brokers.config");
}

// `rate: {after_polled_by: C}` needs consumer entry C reading the producer's topic.
void check_paced_producers(ListReader& producers, const KafkaSpec& kafka) {
  for (std::size_t i = 0; i < kafka.producers.size(); ++i) {
    const auto& group = kafka.producers[i];
    if (group.paced_by.empty()) continue;
    MapReader rate = producers.map_at(i).map("rate");
    const auto consumer = std::find_if(kafka.consumers.begin(), kafka.consumers.end(),
                                       [&](const auto& c) { return c.name == group.paced_by; });
    if (consumer == kafka.consumers.end()) throw rate.error("after_polled_by", "names no consumer entry");
    if (consumer->workload.topic != group.workload.topic) {
      throw rate.error("after_polled_by", "names a consumer of another topic: it would never poll this producer's records");
    }
  }
}

models::ProducerWorkload read_workload(MapReader& in, const std::vector<models::TopicSpec>& topics) {
  models::ProducerWorkload w;
  w.topic = read_topic_index(in, topics);
  // rate: max is a closed loop (kafka-producer-perf-test --throughput -1);
  // rate: {after_polled_by: C} is paced by consumer entry C (kafka.tools.EndToEndLatency).
  w.paced_by_consumer = in.has_map("rate");
  w.closed_loop = in.has("rate") && !in.has_map("rate") && in.get<std::string>("rate", "") == "max";
  if (!w.closed_loop && !w.paced_by_consumer) w.rate_per_s = in.get<Rate>("rate", w.rate_per_s, {1e-6, 1e9});
  w.poisson = in.get_choice("arrival", {"poisson", "constant"}, "poisson") == "poisson";
  MapReader keys = in.map("keys");
  const std::string key_kind = keys.get_choice("distribution", {"none", "uniform", "zipf"}, "none");
  w.keys = key_kind == "none" ? models::ProducerWorkload::Keys::None
           : key_kind == "uniform" ? models::ProducerWorkload::Keys::Uniform
                                   : models::ProducerWorkload::Keys::Zipf;
  w.key_count = keys.get<std::uint64_t>("count", w.key_count, {1, 10000000});
  w.zipf_exponent = keys.get<double>("exponent", w.zipf_exponent, {0.0, 10.0});
  w.tombstone_fraction = keys.get<double>("tombstones", w.tombstone_fraction, {0.0, 1.0});
  if (w.tombstone_fraction > 0 && w.keys == models::ProducerWorkload::Keys::None) {
    throw keys.error("tombstones", "needs keys (distribution uniform or zipf): a tombstone is a null value for a key");
  }
  // LogValidator.validateKey: a compacted topic refuses keyless records (INVALID_RECORD, "Compacted topic cannot accept message without key").
  if (w.keys == models::ProducerWorkload::Keys::None && topics[static_cast<std::size_t>(w.topic)].log.compact_enabled) {
    throw keys.error("distribution", "must be uniform or zipf: topic " + topics[static_cast<std::size_t>(w.topic)].name +
                                         " has cleanup.policy compact, and Kafka refuses keyless records to it (INVALID_RECORD)");
  }
  if (in.has_map("record_size")) {
    MapReader size = in.map("record_size");
    w.record_bytes_min = size.required<Bytes>("min", {1, 1ULL << 30});
    w.record_bytes_max = size.required<Bytes>("max", {1, 1ULL << 30});
    if (w.record_bytes_max < w.record_bytes_min) throw size.error("max", "must not be less than min");
  } else {
    w.record_bytes_min = w.record_bytes_max = in.get<Bytes>("record_size", w.record_bytes_min, {1, 1ULL << 30});
  }
  w.start = read_client_start(in).value_or(0);
  w.stop = in.get<Duration>("stop", kNever);
  w.records_per_transaction =
      in.get<std::uint64_t>("records_per_transaction", w.records_per_transaction, {1, 100000000});
  w.abort_probability = in.get<double>("abort_probability", w.abort_probability, {0.0, 1.0});
  return w;
}

// mutations: test-only model mutations, bugs brought back on purpose to test the
// checkers, ksim explore and ksim shrink (docs/explore.md#model-mutations). Each
// one on is a warning: the run models that bug, not Kafka.
models::ModelMutations read_model_mutations(MapReader in) {
  models::ModelMutations m;
  m.stale_alter_partition_answer = in.get<bool>("stale_alter_partition_answer", false);
  if (m.stale_alter_partition_answer) {
    in.warn("stale_alter_partition_answer",
            "a test-only model mutation: leaders act on stale AlterPartition answers, the bug fixed by a763d60; "
            "the run models that bug, not Kafka (docs/explore.md#model-mutations)");
  }
  m.tiered_delete_before_copy = in.get<bool>("tiered_delete_before_copy", false);
  if (m.tiered_delete_before_copy) {
    in.warn("tiered_delete_before_copy",
            "a test-only model mutation: tiered topics' local segments are deleted before they are copied to the "
            "remote store; the run models that bug, not Kafka (docs/explore.md#model-mutations)");
  }
  return m;
}

}  // namespace

// The `topic` key (default: the first topic), as an index into `topics`.
std::int32_t read_topic_index(MapReader& in, const std::vector<models::TopicSpec>& topics) {
  std::vector<std::string> names;
  for (const auto& t : topics) names.push_back(t.name);
  const std::string topic = in.get<std::string>("topic", names.empty() ? "" : names.front());
  const auto it = std::find(names.begin(), names.end(), topic);
  if (it == names.end()) {
    const auto suggestion = config::closest_name(topic, names);
    throw in.error("topic", "unknown topic '" + config::excerpt(topic) + "'" + (suggestion ? " (did you mean '" + config::excerpt(*suggestion) + "'?)" : ""));
  }
  return static_cast<std::int32_t>(it - names.begin());
}

// A client's `start`: a time, or `ready` (also when absent): once the cluster
// is ready for clients (models/check/cluster_readiness.hpp); nullopt then.
std::optional<SimTime> read_client_start(MapReader& in) {
  if (!in.has("start") || in.get<std::string>("start", "") == "ready") return std::nullopt;
  return in.get<Duration>("start", 0);
}

std::optional<KafkaSpec> read_kafka(MapReader& root, const std::vector<std::string>& racks,
                                    const std::optional<HardwareProfile>& profile) {
  if (!root.has("brokers")) {
    for (const char* key : {"brokers", "controller", "controllers", "zookeeper", "topics", "producers", "consumers",
                            "kafka_version", "kips", "mutations"}) {
      if (root.has(key)) throw root.error(key, "needs a 'brokers' section");
      root.ignore(key);
    }
    return std::nullopt;
  }
  KafkaSpec kafka;
  kafka.release = read_release(root);
  const models::Mechanisms cluster = kafka.release.mechanisms(kafka.release.release);
  MapReader brokers = root.map("brokers");
  kafka.brokers = read_group(brokers, kafka.brokers, racks);
  kafka.broker = read_broker_config(brokers, profile, cluster);
  kafka.broker.mutations = read_model_mutations(root.map("mutations"));
  kafka.topic_defaults = read_topic_defaults(brokers.map("config"), cluster);
  kafka.broker.auto_create_topics = kafka.topic_defaults.auto_create_topics;
  MapReader controller = root.map("controller");
  kafka.controller_rack = controller.optional<std::string>("rack");
  kafka.controller = read_controller_config(controller, brokers.map("config"), profile, cluster);
  kafka.broker.transaction_coordinator.transaction_v2 = kafka.controller.transaction_version >= 2;
  read_controllers(root, kafka);
  kafka.quorum.fetch_carries_high_watermark = cluster.has(Mechanism::HighWatermarkInFetch);  // KIP-1166 (4.1)
  kafka.quorum.pre_vote = cluster.has(Mechanism::PreVote);  // KIP-996 (4.0)
  read_zookeeper(root, brokers.map("config"), cluster, kafka);
  kafka.zookeeper_client.controlled_shutdown = kafka.broker.controlled_shutdown_enable;
  kafka.broker_config = brokers.map("config").resolved();
  // Kafka accepts any pair (KafkaConfig checks neither against the other), but a broker whose
  // heartbeats come less often than the controller's session timeout is fenced between two of them.
  if (kafka.broker.broker_heartbeat_interval > kafka.controller.broker_session_timeout) {
    brokers.map("config").warn("broker.heartbeat.interval.ms",
                               "is longer than broker.session.timeout.ms (" +
                                   units::format_duration(kafka.controller.broker_session_timeout) +
                                   "): the controller fences every broker between two heartbeats");
  }
  // KIP-858's keys (KRaft from 3.7) mean nothing to a ZooKeeper-era broker or an earlier KRaft one.
  if (kafka.zookeeper || !cluster.has(Mechanism::DirectoryAssignment)) {
    for (const char* key : {"log.dir.failure.timeout.ms", "metadata.log.dir"}) {
      if (brokers.map("config").has(key)) {
        brokers.map("config").warn(key, "has no effect: KIP-858's failed log dir handling is KRaft's from 3.7");
      }
    }
  }
  ListReader topics = root.list("topics");
  for (std::size_t i = 0; i < topics.size(); ++i) {
    kafka.topics.push_back(read_topic(topics.map_at(i), kafka.topic_defaults, kafka.brokers.count));
    MapReader topic_config = topics.map_at(i).map("config");
    check_tiered_topic(topic_config, kafka.topics.back(), kafka.broker.remote_log, cluster);
    kafka.topic_configs.push_back(topics.map_at(i).map("config").resolved());
    for (std::size_t j = 0; j + 1 < kafka.topics.size(); ++j) {
      if (kafka.topics[j].name == kafka.topics.back().name) throw topics.error(i, "duplicate topic name");
    }
  }
  ListReader producers = root.list("producers");
  if (!producers.empty() && kafka.topics.empty()) throw root.error("producers", "need a topic to produce to");
  for (std::size_t i = 0; i < producers.size(); ++i) {
    MapReader in = producers.map_at(i);
    KafkaSpec::ProducerGroup group;
    group.name = in.get<std::string>("name", "producer");
    group.nodes = read_group(in, group.nodes, racks);
    const ClientRelease client = read_client_release(in, kafka.release, true);
    group.release = client.release;
    group.own_release = client.own_release;
    group.switches = client.switches;
    group.config = read_producer_config(in, client.mechanisms);
    group.config.transaction_v2 = client.mechanisms.has(Mechanism::TransactionsV2) &&  // the client's release, and
                                  kafka.broker.transaction_coordinator.transaction_v2;  // the cluster's feature
    check_transaction_timeout(in.map("config"), group.config, kafka.broker);
    group.kafka_config = in.map("config").resolved();
    group.workload = read_workload(in, kafka.topics);
    if (group.workload.paced_by_consumer) group.paced_by = in.map("rate").required<std::string>("after_polled_by");
    check_record_format(in, group.config, kafka.topics[static_cast<std::size_t>(group.workload.topic)]);
    group.start_when_ready = !read_client_start(in);
    if (profile) group.workload.cpu = profile->client_costs;
    if (group.workload.closed_loop && !group.workload.cpu.enabled()) {
      throw in.error("rate", "'max' (a closed loop) needs client CPU costs: name a profile");
    }
    for (const auto& other : kafka.producers) {
      if (other.name == group.name) throw in.error("name", "another producer group has this name");
    }
    kafka.producers.push_back(std::move(group));
  }
  ListReader consumers = root.list("consumers");
  if (!consumers.empty() && kafka.topics.empty()) throw root.error("consumers", "need a topic to consume from");
  for (std::size_t i = 0; i < consumers.size(); ++i) {
    if (consumers.map_at(i).has("share_group")) {
      read_share_consumers(consumers, i, racks, kafka);
      continue;
    }
    kafka.consumers.push_back(read_consumer(consumers.map_at(i), kafka.topics, racks, kafka.release));
    if (auto& transform = kafka.consumers.back().transform) {
      transform->transaction_v2 = transform->transaction_v2 && kafka.broker.transaction_coordinator.transaction_v2;
    }
    if (const auto& transform = kafka.consumers.back().transform) {
      check_transaction_timeout(consumers.map_at(i).map("transform").map("config"), *transform, kafka.broker);
    }
    if (profile) kafka.consumers.back().workload.cpu = profile->client_costs;
    for (std::size_t j = 0; j + 1 < kafka.consumers.size(); ++j) {
      if (kafka.consumers[j].name == kafka.consumers.back().name) throw consumers.error(i, "duplicate consumer name");
    }
    for (const auto& p : kafka.producers) {
      if (p.name == kafka.consumers.back().name) throw consumers.error(i, "a producer group has this name");
    }
    for (const auto& c : kafka.share_consumers) {
      if (c.name == kafka.consumers.back().name) throw consumers.error(i, "duplicate consumer name");
    }
    check_group_protocol(consumers, i, kafka);
  }
  check_paced_producers(producers, kafka);
  return kafka;
}

bool KafkaSpec::has_transactions() const {
  return std::any_of(producers.begin(), producers.end(), [](const auto& p) { return !p.config.transactional_id.empty(); }) ||
         std::any_of(consumers.begin(), consumers.end(),
                     [](const auto& c) { return c.transform && !c.transform->transactional_id.empty(); });
}

}  // namespace ksim::app
