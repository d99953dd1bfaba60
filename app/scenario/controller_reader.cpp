// The controller sections of a scenario: `controller` (ksim's costs of the
// controller's work, the cluster features, its rack) and `controllers` (the
// KRaft controller quorum: how many, and the controller.quorum.* configs).
#include "app/scenario/kafka_config_names.hpp"
#include "app/scenario/kafka_entry_readers.hpp"

namespace ksim::app {

using config::Duration;
using config::MapReader;
using models::Mechanism;

// The controller's configs: broker.session.timeout.ms, which a KRaft cluster
// sets in the server properties it shares with the brokers (brokers.config),
// and ksim's per-partition costs (the profile's, then the controller section's).
models::ControllerConfig read_controller_config(MapReader controller, MapReader broker_config,
                                                const std::optional<HardwareProfile>& profile, const models::Mechanisms& m) {
  models::ControllerConfig c;
  c.broker_session_timeout = broker_config.get<Duration>("broker.session.timeout.ms", c.broker_session_timeout, {1, kNever});
  // Preferred leader election (controller_leader_balance.cpp), KRaft's controller only.
  for (const std::string_view key : {"auto.leader.rebalance.enable", "leader.imbalance.check.interval.seconds"}) {
    if (!m.has(Mechanism::KRaft) && broker_config.has(key)) {
      broker_config.warn(key, "has no effect: ksim's ZooKeeper-era controller does not balance leaders");
    }
  }
  c.auto_leader_rebalance = broker_config.get<bool>("auto.leader.rebalance.enable", c.auto_leader_rebalance);
  c.leader_imbalance_check_interval =
      seconds(broker_config.get<std::int64_t>("leader.imbalance.check.interval.seconds",
                                              c.leader_imbalance_check_interval / seconds(1), {1, 1'000'000'000}));
  if (profile) {
    c.election_time_per_partition = profile->leader_election;
    c.metadata_load_time_per_partition = profile->controller_load;
  }
  c.election_time_per_partition = controller.get<Duration>("election_time_per_partition", c.election_time_per_partition);
  c.metadata_load_time_per_partition =
      controller.get<Duration>("metadata_load_time_per_partition", c.metadata_load_time_per_partition);
  // Cluster features (kafka-storage format --feature, kafka-features upgrade), by their Kafka names;
  // a new cluster of 4.1 or later has eligible.leader.replicas.version=1 (KIP-966).
  MapReader features = controller.map("features");
  const std::uint64_t elr = m.has(Mechanism::EligibleLeaderReplicas) ? 1 : 0;
  c.eligible_leader_replicas = features.get<std::uint64_t>("eligible.leader.replicas.version", elr, {0, 1}) == 1;
  // transaction.version=2 (KIP-890 part 2) for a new cluster from 4.0 (TV_2's bootstrap metadata version, IBP_4_0_IV2).
  const int tv = m.has(Mechanism::TransactionsV2) ? 2 : 0;
  if (features.has("transaction.version") && m.release() < models::KafkaRelease{4, 0}) {
    features.ignore("transaction.version");
    features.reject("transaction.version", "not in Kafka " + m.release().name() + ": the feature came in 4.0 (KIP-890)");
  }
  c.transaction_version = static_cast<int>(features.get<std::uint64_t>("transaction.version", tv, {0, 2}));
  return c;
}

// `controllers`: the quorum's size (Kafka allows any number of voters; 3 is
// the usual production choice, ksim takes 1 to 7) and its Raft configs, by
// Kafka's names with QuorumConfig's defaults, in a `config:` map of the
// controllers' server properties. One controller runs without Raft, so the
// quorum's settings do nothing then (a warning says so).
void read_controllers(MapReader& root, KafkaSpec& kafka) {
  MapReader in = root.map("controllers");
  kafka.controller_count = in.get<int>("count", kafka.controller_count, {1, 7});
  MapReader config = kafka_config(in, KafkaConfigKind::Broker);
  models::RaftConfig& r = kafka.quorum;
  const auto duration = [&](std::string_view key, SimTime& value, SimTime min) {
    if (kafka.controller_count == 1 && config.has(key)) {
      config.warn(key, "has no effect with one controller (controllers.count: 1 runs without Raft)");
    }
    value = config.get<Duration>(key, value, {min, kNever});
  };
  duration("controller.quorum.election.timeout.ms", r.election_timeout, 1);
  duration("controller.quorum.fetch.timeout.ms", r.fetch_timeout, 1);
  duration("controller.quorum.election.backoff.max.ms", r.election_backoff_max, 1);
  duration("controller.quorum.request.timeout.ms", r.request_timeout, 1);
  duration("controller.quorum.retry.backoff.ms", r.retry_backoff, 0);
  duration("controller.quorum.append.linger.ms", r.append_linger, 0);
  kafka.controller.connection_setup_timeout = config.get<Duration>(
      "socket.connection.setup.timeout.ms", kafka.controller.connection_setup_timeout, {1, kNever});
  kafka.quorum_config = config.resolved();
  if (kafka.controller_count == 1 && in.has("fsync_latency")) {
    in.warn("fsync_latency", "has no effect with one controller (controllers.count: 1 runs without Raft)");
  }
  r.fsync_latency = in.get<Duration>("fsync_latency", r.fsync_latency);
  r.followers_always_flush = true;  // RaftManager: a controller's follower flushes before it fetches again
  // A broker's requests to a controller that does not answer go to another
  // after this long (its metadata log fetch would ask another voter).
  kafka.broker.controller_request_timeout = r.request_timeout;
}

// ZooKeeper mode, the controller before KRaft: the brokers' session timeout
// (zookeeper.session.timeout.ms: 6 s, 18 s from 2.5, KIP-537) and the
// release's mechanisms of the ZooKeeper controller (KAFKA-5642's pipelined
// reads from 1.1, KAFKA-6772's brokers serving once registered from 2.0,
// KIP-380's broker epochs from 2.2, KIP-497's AlterIsr from 2.7); the
// `zookeeper:` section places the ZooKeeper node and times its work.
void read_zookeeper(MapReader& root, MapReader broker_config, const models::Mechanisms& cluster, KafkaSpec& kafka) {
  kafka.zookeeper = !cluster.has(Mechanism::KRaft);
  MapReader zk = root.map("zookeeper");
  if (!kafka.zookeeper) {
    if (root.has("zookeeper")) {
      root.ignore("zookeeper");
      root.reject("zookeeper", "Kafka " + cluster.release().name() +
                                   " runs KRaft: ZooKeeper is for releases before 3.3 (or kips: {KIP-500: off})");
    }
    for (const char* key : {"zookeeper.session.timeout.ms", "controlled.shutdown.max.retries",
                            "controlled.shutdown.retry.backoff.ms"}) {
      if (!broker_config.has(key)) continue;
      broker_config.warn(key, "has no effect: the cluster runs KRaft");
      broker_config.ignore(key);
    }
    return;
  }
  if (kafka.controller_count > 1) {  // so that one scenario runs on both sides of 3.3 with the version alone
    root.warn("controllers", "has no effect: Kafka " + cluster.release().name() +
                                 " runs ZooKeeper, where a broker is the controller (kips: {KIP-500: on} for KRaft)");
    kafka.controller_count = 1;
  }
  kafka.zookeeper_rack = zk.optional<std::string>("rack");
  models::ZooKeeperConfig& server = kafka.zookeeper_server;
  server.tick_time = zk.get<Duration>("tick_time", server.tick_time, {milliseconds(1), kNever});
  server.fsync_latency = zk.get<Duration>("fsync_latency", server.fsync_latency, {0, kNever});
  models::ZkControllerConfig& client = kafka.zookeeper_client;
  const SimTime timeout = cluster.has(Mechanism::LongerDefaultTimeouts) ? seconds(18) : seconds(6);
  client.session_timeout = broker_config.get<Duration>("zookeeper.session.timeout.ms", timeout, {1, kNever});
  client.pipelined_reads = cluster.release() >= models::KafkaRelease{1, 1};
  client.broker_epochs = cluster.release() >= models::KafkaRelease{2, 2};
  client.alter_isr = cluster.has(Mechanism::AlterIsr);
  client.serve_once_registered = cluster.release() >= models::KafkaRelease{2, 0};
  // KafkaServer.controlledShutdown: its tries and the sleep after each failed one.
  client.controlled_shutdown_max_retries =
      broker_config.get<int>("controlled.shutdown.max.retries", client.controlled_shutdown_max_retries, {0, 1000});
  client.controlled_shutdown_retry_backoff =
      broker_config.get<Duration>("controlled.shutdown.retry.backoff.ms", client.controlled_shutdown_retry_backoff);
}

}  // namespace ksim::app
