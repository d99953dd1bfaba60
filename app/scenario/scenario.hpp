#pragma once
// A scenario as read from its YAML file: every value typed and validated,
// names not yet resolved to nodes (the cluster builder does that).
// docs/scenarios.md documents every key; keep the two in step.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/scenario/explore_spec.hpp"
#include "app/scenario/profile.hpp"
#include "app/scenario/release_reader.hpp"
#include "models/client/consumer/consumer.hpp"
#include "models/client/share_consumer/share_consumer.hpp"
#include "models/protocol/kafka_config.hpp"
#include "models/client/producer/producer.hpp"
#include "models/controller/zk_controller.hpp"
#include "models/raft/raft_config.hpp"
#include "models/zookeeper/zookeeper_server.hpp"
#include "models/workloads/rpc_client.hpp"
#include "models/workloads/rpc_server.hpp"
#include "app/scenario/config_reader.hpp"
#include "app/scenario/expectations.hpp"
#include "sim/random/distribution.hpp"
#include "sim/faults/fault.hpp"
#include "sim/core/network.hpp"
#include "sim/network/topology.hpp"

namespace ksim::app {

struct NetworkSpec {
  std::vector<std::string> racks{"rack-0"};  // nodes are placed round-robin over these
  LinkSpec host_link{1.25e9, microseconds(20)};  // 10 Gbps, host <-> rack switch
  LinkSpec spine_link{5e9, microseconds(50)};    // 40 Gbps, rack switch <-> spine
  NetworkOptions options;
  // A scenario-given graph instead of racks: switches and links between named vertices.
  struct ExplicitLink {
    std::string from, to;
    LinkSpec spec;
    config::Location location;
  };
  std::vector<std::string> switches;
  std::vector<ExplicitLink> links;
};

struct NodeGroupSpec {
  int count = 0;
  std::optional<std::string> rack;  // all in one rack; default: round-robin over the racks
};

struct RpcSpec {
  NodeGroupSpec servers{3, {}};
  NodeGroupSpec clients{3, {}};
  models::RpcServerOptions server;
  models::RpcClientOptions client;
};

// A Kafka cluster: brokers, the controller (or a quorum of them), topics and producers.
// An operator's change to a running cluster (`operations:`), made through
// the Admin API at a given time as Kafka's tools make it.
struct OperationSpec {
  enum class Kind : std::uint8_t {
    ReassignPartitions,  // kafka-reassign-partitions --execute: alterPartitionReassignments (KIP-455)
    CancelReassignment,  // kafka-reassign-partitions --cancel
    DecommissionBroker,  // --generate without the broker, then --execute: every topic on the others
    AlterReplicaLogDirs,  // KIP-113: the Admin API's alterReplicaLogDirs on one broker
    BalanceLogDirs,       // KIP-113 moves that even out one broker's log dirs (models/broker/log_dir_balance.hpp)
    AddBroker,            // a new broker process (the next broker id) starts and registers with the controller
    GenerateReassignment,  // --generate over a broker list, then --execute: every topic placed anew over them
    CreateTopic,           // kafka-topics --create: a topic of `topics:` the cluster does not start with
  };
  Kind kind = Kind::ReassignPartitions;
  SimTime at = 0;
  std::int32_t topic = 0;  // reassign, cancel, create_topic
  std::vector<std::pair<std::int32_t, std::vector<models::BrokerId>>> replicas;  // reassign: partition, target
  std::vector<std::int32_t> partitions;  // cancel
  models::BrokerId broker = -1;          // decommission, log dir moves, the id an added broker gets
  std::string rack;                      // add_broker: its rack
  std::vector<models::BrokerId> brokers;  // generate_reassignment: the --broker-list
  bool internal_topics = false;           // decommission, generate: __consumer_offsets and __transaction_state too
  std::vector<std::pair<std::int32_t, std::string>> log_dirs;  // alter_replica_log_dirs: partition, target path
  // reassign --throttle: leader.replication.throttled.rate in bytes/s; log dir moves
  // --replica-alter-log-dirs-throttle: replica.alter.log.dirs.io.max.bytes.per.second (0: none)
  double throttle = 0;
  config::Location location;
};
std::string_view to_string(OperationSpec::Kind kind);

struct KafkaSpec {
  ReleaseSpec release;  // kafka_version and kips: the brokers' and controller's, and the clients' default
  NodeGroupSpec brokers{3, {}};
  std::optional<std::string> controller_rack;
  models::BrokerConfig broker;
  // Broker configs that are the defaults of the topic configs of the same
  // names (brokers.config); a topic's own config overrides them.
  struct TopicDefaults {
    std::int32_t min_insync_replicas = 1;          // min.insync.replicas
    bool unclean_leader_election_enable = false;   // unclean.leader.election.enable
    bool log_flusher_runs = false;                 // log.flush.scheduler.interval.ms is set: flush.ms can apply
    bool auto_create_topics = true;                // auto.create.topics.enable (topics `create: auto`)
    std::int32_t num_partitions = 1;               // num.partitions: an automatically created topic's
    std::int32_t default_replication_factor = 1;   // default.replication.factor: likewise
    models::RecordFormat record_format = models::RecordFormat::V2;  // log.message.format.version (3.0+ ignore it)
    models::LogConfig log;  // log.segment.bytes, log.roll.ms, log.retention.ms, log.retention.bytes, log.cleanup.policy
    std::uint64_t min_segment_bytes = 14;  // segment.bytes' lower bound: 1 MiB from Kafka 4.1, 14 before
  };
  TopicDefaults topic_defaults;
  // Each `config:` map's Kafka configs as the reader resolved them (the
  // value given, or the default), for ksim validate --resolved.
  config::ResolvedValues broker_config;
  std::vector<config::ResolvedValues> topic_configs;  // by topic
  models::ControllerConfig controller;
  // controllers: the KRaft controller quorum. One controller (the default)
  // runs without Raft, as ksim did before the quorum; more are Raft voters.
  int controller_count = 1;
  models::RaftConfig quorum;               // controllers.config: controller.quorum.*
  config::ResolvedValues quorum_config;    // as read (see broker_config)
  // ZooKeeper mode: releases before 3.3 (or kips: {KIP-500: off}). A ZooKeeper
  // node (`zookeeper:`) replaces the controller; each broker's ZooKeeper side
  // may become the controller (models/controller/zk_controller.hpp).
  bool zookeeper = false;
  std::optional<std::string> zookeeper_rack;
  models::ZooKeeperConfig zookeeper_server;
  models::ZkControllerConfig zookeeper_client;  // zookeeper.session.timeout.ms and the release's mechanisms
  std::vector<models::TopicSpec> topics;
  std::vector<OperationSpec> operations;  // in time order
  struct ProducerGroup {
    std::string name = "producer";
    NodeGroupSpec nodes{1, {}};
    models::ProducerConfig config;
    models::ProducerWorkload workload;
    bool start_when_ready = true;  // no `start` (or `start: ready`): once the cluster is ready; else at workload.start
    config::ResolvedValues kafka_config;  // as read (see broker_config)
    std::string paced_by;  // `rate: {after_polled_by: C}`: the consumer entry C paces it (workload.paced_by_consumer)
    models::KafkaRelease release;  // its kafka_version: its own, or the cluster's
    bool own_release = false;
    MechanismSwitches switches;    // its own kips: (and the alias defaults: pre-3.0)
  };
  std::vector<ProducerGroup> producers;
  // A set of consumers with one configuration: members of the consumer group
  // config.group.id (by default the entry's name), or, with fixed partitions,
  // each assigned them. Several entries may share a group.id.
  struct ConsumerGroup {
    std::string name = "consumer";
    NodeGroupSpec nodes{1, {}};
    models::ConsumerConfig config;
    // `restart_config`: the configs the consumers restart with (a rolling
    // deployment of new settings, e.g. group.protocol: consumer).
    std::optional<models::ConsumerConfig> restart_config;
    models::ConsumerWorkload workload;
    SimTime start = 0;  // when these consumers start, unless start_when_ready
    bool start_when_ready = true;  // no `start` (or `start: ready`): once the cluster is ready
    // Consume-transform-produce: each consumer's own producer (nodes NAME-producer-i, one per consumer).
    std::optional<models::ProducerConfig> transform;
    bool producer_per_partition = false;  // EOS-v1: nodes NAME-producer-i-p, one per input partition p
    config::ResolvedValues kafka_config;            // as read (see broker_config)
    config::ResolvedValues transform_kafka_config;  // the transform's producer's
    models::KafkaRelease release;  // its kafka_version (its transform's producer's too): its own, or the cluster's
    bool own_release = false;
    MechanismSwitches switches;    // its own kips:
  };
  std::vector<ConsumerGroup> consumers;
  // Consumers entries with `share_group: NAME` (KIP-932): members of a share
  // group, kept apart from the consumer groups above (nodes NAME-i as theirs).
  struct ShareConsumerGroup {
    std::string name = "consumer";
    NodeGroupSpec nodes{1, {}};
    models::ShareConsumerConfig config;  // config.group_id: the share group
    models::ShareConsumerWorkload workload;
    SimTime start = 0;
    bool start_when_ready = true;
    config::ResolvedValues kafka_config;
    models::KafkaRelease release;
  };
  std::vector<ShareConsumerGroup> share_consumers;

  // A producer, or a transform's producer, has a transactional.id: the
  // cluster has __transaction_state and the report a transactions section.
  bool has_transactions() const;
};

// A fault as written: targets by name ("server-0", a group such as "servers", or "rack:NAME").
struct FaultSpec {
  Fault fault;  // kind, times and kind-specific values; node and link ids left empty
  std::vector<std::string> nodes;
  std::vector<std::string> other_nodes;
  std::vector<std::string> links;  // uplink of a host or rack
  config::Location location;       // for errors found when resolving names
};

struct NemesisRuleSpec {
  double rate_per_s = 0;
  Distribution duration;
  std::vector<std::string> targets{"all"};
  int count = 1;
  std::vector<std::string> links;
  std::vector<std::string> log_dirs;  // disk faults: one drawn per fault
  Fault shape;
  config::Location location;
};

struct NemesisSpec {
  SimTime start = 0;
  std::optional<SimTime> end;  // default: the scenario's duration
  std::vector<NemesisRuleSpec> rules;
};

// What the report gathers besides its figures (the scenario's `report:`).
struct ReportSpec {
  SimTime sample_interval = seconds(1);  // report.sample_interval: the time series' step (--sample-interval)
};

struct Scenario {
  std::string file;
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  SimTime duration = seconds(10);
  // The first part of `duration` whose figures (throughput, latency,
  // utilisation) are reported apart from the measured rest; checkers and
  // invariants cover the whole run.
  SimTime warmup = 0;
  SimTime drain = seconds(30);  // after `duration`: producers stop, in-flight work settles
  std::optional<HardwareProfile> profile;  // the machines, when the scenario names a profile
  NetworkSpec network;
  std::optional<RpcSpec> rpc;
  std::optional<KafkaSpec> kafka;
  std::vector<FaultSpec> faults;
  NemesisSpec nemesis;
  ExploreSpec explore;  // for ksim explore; a run ignores it
  ReportSpec report;
  std::vector<Expectation> expect;  // what must hold at the end; `ksim run` exits 1 when it does not
  std::vector<config::Warning> warnings;  // accepted, but probably not meant; the report lists them
  std::vector<config::IgnoredKey> ignored_configs;  // Kafka configs not modelled, accepted by --ignore-unmodelled
};

// Reads and validates the whole document; throws config::ConfigError (a
// config::ConfigErrors with every error found, in line order). The
// catalogue names what `expect:` may name: the report's, expectation_catalogue()
// (app/report/report_expectations.hpp), which this layer, below the report, cannot include.
Scenario read_scenario(const config::Document& document, const ExpectationCatalogue& expectations);
// For ksim run and validate: an empty file, or a scenario without nodes (no
// brokers:, no rpc:), would run nothing and pass; throws ConfigError.
void check_something_to_simulate(const config::Document& document, const Scenario& scenario);
// The Kafka sections (scenario_kafka.cpp).
std::optional<KafkaSpec> read_kafka(config::MapReader& root, const std::vector<std::string>& racks,
                                    const std::optional<HardwareProfile>& profile);
NodeGroupSpec read_group(config::MapReader& in, NodeGroupSpec group, const std::vector<std::string>& racks);
// The `operations:` list (operations_reader.cpp); needs the topics and brokers read.
std::vector<OperationSpec> read_operations(config::ListReader list, const KafkaSpec& kafka,
                                           const std::vector<std::string>& racks, SimTime end);
// The internal topics the cluster creates (a consumer group: __consumer_offsets; a transactional
// producer: __transaction_state) and their replication factors, as the brokers' configs and count set them.
std::vector<std::pair<std::string, int>> internal_topic_replication(const KafkaSpec& kafka);
// The brokers of the cluster: those it starts with (brokers.count) and those operations add.
int broker_total(const KafkaSpec& kafka);
// When a broker starts: 0 for the cluster's own, its add_broker's time for an added one.
SimTime broker_added_at(const KafkaSpec& kafka, models::BrokerId broker);
// The brokers running by `at` (started with the cluster or added at or before it), in id order.
std::vector<models::BrokerId> brokers_present_at(const KafkaSpec& kafka, SimTime at);

// Every node of the scenario, in creation order: brokers, the controller,
// producers, then servers and clients. Each node runs on a host of its own name.
struct NodePlacement {
  std::string name;   // "broker-0"
  std::string group;  // "brokers", "controller", a producer group's name, "servers", "clients"
  std::string rack;
  int index = 0;      // within its group
};
std::vector<NodePlacement> node_placements(const Scenario& scenario);

// Names a fault may target: node names, groups ("brokers", "servers", ..., "all") and "rack:NAME".
std::vector<std::string> target_names(const Scenario& scenario);
// Names whose uplink a link fault may slow: hosts and racks (or, with an explicit graph, its vertices).
std::vector<std::string> link_names(const Scenario& scenario);

}  // namespace ksim::app
