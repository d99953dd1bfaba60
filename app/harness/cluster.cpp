#include "app/harness/cluster.hpp"

#include <algorithm>
#include <cassert>
#include <set>

#include "app/scenario/units.hpp"
#include "models/check/cluster_readiness.hpp"
#include "models/controller/replica_assignment.hpp"

namespace ksim::app {

Cluster::Cluster(const Scenario& scenario, const RunOptions& options)
    : scenario_(scenario), placements_(node_placements(scenario)) {
  sim_ = std::make_unique<Simulation>(scenario.seed, build_topology(), scenario.network.options, options.log_level);
  sim_->trace().write_to(options.trace_out);
  events_ = std::make_unique<models::ModelEventBus>(sim_->trace());
  events_->subscribe([this](SimTime t, const Node& from, const models::ModelEvent& e) { failover_.on_event(t, from, e); });
  sim_->observe_nodes([this](const Node& node, NodeChange change) { failover_.on_node(sim_->now(), node, change); });
  faults_ = std::make_unique<FaultInjector>(*sim_);
  if (options.record_history) history_.record_sends = true;
  // Each fault as it starts, with what it hit (ksim explore's coverage, the report's fault list).
  faults_->observe([this](const Fault& fault, std::string_view kind, bool starting) {
    if (!starting) return;
    FiredFault fired{std::string(kind), sim_->now(), {}, fault};
    for (const NodeId n : fault.nodes) fired.nodes.push_back(sim_->node(n).name());
    fired_faults_.push_back(std::move(fired));
    if (fault_paths_) fault_paths_->on_fault(kind, fault, faults_->active() - 1, quorum_.get(), brokers_);
  });
  if (scenario.kafka) {
    spawn_kafka();
    invariants_ = std::make_unique<models::ClusterInvariants>(brokers_, *quorum_, scenario.seed, options.invariants);
    events_->subscribe([this](SimTime, const Node& from, const models::ModelEvent& e) { invariants_->on_event(from, e); });
    sim_->observe_nodes([this](const Node& node, NodeChange change) { invariants_->on_node(node, change); });
    sim_->add_after_event_hook([this] { invariants_->after_event(sim_->now()); });
    sim_->add_after_event_hook([this] { quorum_->after_event(sim_->now()); });
    track_availability();
    schedule_operations();
    track_group_conversions();
  }
  if (transaction_topic_ >= 0) open_transactions_ = std::make_unique<models::OpenTransactionTracker>(internal_topics());
  if (scenario.kafka) {
    time_series_ = std::make_unique<models::TimeSeriesTracker>(scenario.report.sample_interval, view(), producers_,
                                                               consumers_, consumption_, availability_.get());
  }
  if (scenario.rpc) spawn_rpc();
  for (const std::int32_t internal : {offsets_topic_, transaction_topic_}) {
    if (internal >= 0) failover_.ignore_topic(internal);
  }
  register_disk_faults();
  for (const NodePlacement& p : placements_) placement_nodes_.push_back(sim_->find_node(p.name)->id());
  assert(placement_nodes_.size() + zookeeper_sides_.size() == sim_->node_count() &&
         "every node is placed (a broker's ZooKeeper side runs on the broker's host)");
  if (scenario.kafka) track_fault_paths();
  for (models::Controller* c : controllers_) c->start();  // brokers register with it as they start
  if (zookeeper_) zookeeper_->start();  // as the brokers' ZooKeeper sides connect to it
  std::vector<NodeId> waiting;  // for the cluster to be ready
  for (std::size_t i = 0; i < placements_.size(); ++i) {  // in placement order
    const NodeId n = placement_nodes_[i];
    if (sim_->node(n).state() != NodeState::Crashed) continue;
    const SimTime start = start_time(placements_[i]);
    if (start == kNever) continue;
    if (start == kWhenReady) {
      waiting.push_back(n);
    } else if (start == 0) {
      sim_->node(n).start();
    } else {
      sim_->events().schedule_at(start, [this, n] { sim_->node(n).start(); });
    }
  }
  if (!waiting.empty()) {
    startup_.waited = true;
    poll_readiness(std::move(waiting));
  }
  schedule_faults();
  plan_nemesis();
}

// Clients that wait for the cluster start on the first poll that finds it ready.
void Cluster::poll_readiness(std::vector<NodeId> waiting) {
  constexpr SimTime kPoll = 100'000;  // 100us
  std::optional<std::string> missing = models::cluster_not_ready(view());
  if (missing && sim_->now() + kPoll <= kReadyTimeout) {
    sim_->events().schedule_at(sim_->now() + kPoll, [this, w = std::move(waiting)]() mutable { poll_readiness(std::move(w)); });
    return;
  }
  if (missing) {
    startup_.not_ready = std::move(*missing);
  } else {
    startup_.ready_at = sim_->now();
  }
  startup_.clients_started = sim_->now();
  for (const NodeId n : waiting) {
    if (sim_->node(n).never_started()) sim_->node(n).start();
  }
}

SimTime Cluster::producers_started() const {
  SimTime first = kNever;
  for (const auto& group : scenario_.kafka->producers) {
    first = std::min(first, group.start_when_ready ? startup_.clients_started : group.workload.start);
  }
  return first;
}

Topology Cluster::build_topology() const {
  const NetworkSpec& net = scenario_.network;
  if (net.links.empty()) {
    RackLayout layout;
    layout.host_link = net.host_link;
    layout.spine_link = net.spine_link;
    for (const auto& p : placements_) layout.hosts.push_back({p.name, p.rack});
    return build_rack_topology(layout);
  }
  Topology topology;
  for (const auto& name : net.switches) topology.add_switch(name);
  for (const auto& p : placements_) topology.add_host(p.name, p.rack);
  for (const auto& link : net.links) topology.add_link(*topology.find(link.from), *topology.find(link.to), link.spec);
  const std::vector<VertexId> hosts = topology.hosts();
  for (const VertexId host : hosts) {
    try {
      topology.route(hosts.front(), host);
    } catch (const std::runtime_error& e) {
      throw config::ConfigError(config::Location{scenario_.file, 0, 0}, "network.links", e.what());
    }
  }
  return topology;
}

// EOS-v1: for consumer i, a producer per input partition p, with transactional.id's
// {partition} = p and {name} = the consumer's name.
void Cluster::spawn_task_producers(const KafkaSpec::ConsumerGroup& group, std::size_t first_consumer,
                                   std::uint32_t& index, const std::shared_ptr<models::ClusterDirectory>& directory) {
  const std::int32_t partitions = directory->topics[static_cast<std::size_t>(group.workload.topic)].partitions;
  for (int i = 0; i < group.nodes.count; ++i) {
    std::vector<models::Producer*> tasks;
    for (std::int32_t p = 0; p < partitions; ++p) {
      const std::string name = group.name + "-producer-" + std::to_string(i) + "-" + std::to_string(p);
      models::ProducerConfig config = *group.transform;
      const auto replace = [&](std::string_view key, const std::string& value) {
        const auto at = config.transactional_id.find(key);
        if (at != std::string::npos) config.transactional_id.replace(at, key.size(), value);
      };
      replace("{partition}", std::to_string(p));
      replace("{name}", group.name + "-" + std::to_string(i));
      models::ProducerWorkload workload;
      workload.topic = group.workload.output_topic;
      workload.external = true;
      workload.stop = 0;
      workload.warmup_end = scenario_.warmup;
      auto& producer =
          sim_->spawn<models::Producer>(name, *sim_->topology().find(name), index++, config, workload, directory, *events_, history_);
      producers_.push_back(&producer);
      transform_producers_.push_back(&producer);
      tasks.push_back(&producer);
    }
    consumers_[first_consumer + static_cast<std::size_t>(i)]->set_task_producers(std::move(tasks));
  }
}

// When a node starts: clients without a `start` once the cluster is ready;
// consumer entries may start later than the rest (and their transforms'
// producers with them), and a transactional producer's application calls
// initTransactions() when it starts sending. Other producers start at 0 and
// send from their `start`.
SimTime Cluster::start_time(const NodePlacement& placement) const {
  if (!scenario_.kafka) return 0;
  for (const auto& group : scenario_.kafka->consumers) {
    if (placement.group == group.name) return group.start_when_ready ? kWhenReady : group.start;
    if (placement.group != group.name + "-producer") continue;
    // EOS-v1 task producers start when their consumer is assigned the partition.
    if (group.producer_per_partition) return kNever;
    return group.start_when_ready ? kWhenReady : 0;
  }
  for (const auto& group : scenario_.kafka->share_consumers) {
    if (placement.group == group.name) return group.start_when_ready ? kWhenReady : group.start;
  }
  for (const auto& group : scenario_.kafka->producers) {
    if (placement.group != group.name) continue;
    if (group.start_when_ready) return kWhenReady;
    return group.config.transactional_id.empty() ? 0 : group.workload.start;
  }
  if (placement.group == "brokers") return broker_added_at(*scenario_.kafka, placement.index);  // add_broker
  return 0;
}

// Consumers commit to __consumer_offsets, created with the cluster (Kafka
// creates it on the first FindCoordinator), with fewer replicas than
// offsets.topic.replication.factor when there are fewer brokers. Its topic
// configs set no min.insync.replicas (GroupCoordinator's offsetsTopicConfigs),
// so the brokers' min.insync.replicas applies to the coordinator's acks=all writes.
models::TopicSpec Cluster::offsets_topic() const {
  const KafkaSpec& kafka = *scenario_.kafka;
  models::TopicSpec topic;
  topic.name = "__consumer_offsets";
  topic.partitions = kafka.broker.group_coordinator.offsets_topic_num_partitions;
  topic.replication_factor = std::min(kafka.broker.group_coordinator.offsets_topic_replication_factor, kafka.brokers.count);
  topic.min_insync_replicas = kafka.topic_defaults.min_insync_replicas;
  topic.log = internal_log_config(kafka.broker.group_coordinator.offsets_topic_segment_bytes);
  return topic;
}

// __transaction_state, created with the cluster when a producer is transactional.
models::TopicSpec Cluster::transaction_topic() const {
  const KafkaSpec& kafka = *scenario_.kafka;
  const auto& t = kafka.broker.transaction_coordinator;
  models::TopicSpec topic;
  topic.name = "__transaction_state";
  topic.partitions = t.partitions;
  topic.replication_factor = std::min(t.replication_factor, kafka.brokers.count);
  topic.min_insync_replicas = std::min(t.min_isr, topic.replication_factor);
  topic.log = internal_log_config(t.segment_bytes);
  return topic;
}

// The internal topics' configs (GroupCoordinatorService.groupMetadataTopicConfigs,
// TransactionStateManager.transactionTopicConfigs): compacted, segments of
// offsets.topic.segment.bytes or transaction.state.log.segment.bytes, the
// brokers' log.* defaults for the rest.
models::LogConfig Cluster::internal_log_config(std::uint64_t segment_bytes) const {
  models::LogConfig log = scenario_.kafka->topic_defaults.log;
  log.compact_enabled = true;
  log.delete_enabled = false;
  log.segment_bytes = segment_bytes;
  return log;
}

void Cluster::spawn_kafka() {
  const KafkaSpec& kafka = *scenario_.kafka;
  auto directory = std::make_shared<models::ClusterDirectory>();
  directory->topics = kafka.topics;
  if (!kafka.consumers.empty() || !kafka.share_consumers.empty()) {
    directory->offsets_topic = static_cast<std::int32_t>(directory->topics.size());
    directory->topics.push_back(offsets_topic());
  }
  const bool transactions = kafka.has_transactions();
  if (transactions) {
    directory->transaction_topic = static_cast<std::int32_t>(directory->topics.size());
    directory->topics.push_back(transaction_topic());
  }
  if (directory->offsets_topic >= 0 || transactions) {
    directory->coordinator_records = std::make_shared<models::CoordinatorRecordStore>();
  }
  if (std::any_of(kafka.topics.begin(), kafka.topics.end(), [](const auto& t) { return t.log.compact_enabled; })) {
    record_keys_ = directory->record_keys = std::make_shared<models::RecordKeyStore>();
  }
  if (std::any_of(kafka.topics.begin(), kafka.topics.end(), [](const auto& t) { return t.log.remote_storage_enable; })) {
    remote_storage_ = directory->remote_storage = std::make_shared<models::RemoteStorage>();
  }
  offsets_topic_ = directory->offsets_topic;
  transaction_topic_ = directory->transaction_topic;
  // Broker ids are the brokers' indexes; the directory learns their nodes as they
  // are created, and is complete before any node starts.
  std::vector<models::BrokerPlacement> placement;
  for (const auto& p : placements_) {
    if (p.group != "brokers") continue;
    assert(static_cast<std::size_t>(p.index) == brokers_.size() && "broker ids are the brokers' indexes");
    brokers_.push_back(&sim_->spawn<models::Broker>(p.name, *sim_->topology().find(p.name), p.index, kafka.broker,
                                                    directory, *events_));
    brokers_.back()->set_exit_teardown(kafka.broker.exit_teardown);
    brokers_.back()->observe_groups(&consumption_);
    brokers_.back()->observe_retention(&retention_);
    brokers_.back()->observe_compaction(&compaction_);
    directory->broker_nodes.push_back(brokers_.back()->id());
    placement.push_back({p.index, scenario_.network.racks.size() > 1 ? p.rack : ""});
  }
  broker_placement_ = placement;
  // The topics are created on the brokers the cluster starts with; those an operation adds get none.
  std::erase_if(placement, [&](const models::BrokerPlacement& b) { return b.id >= kafka.brokers.count; });
  for (const auto& p : placements_) {
    if (p.group != "controller" && p.group != "controllers") continue;
    controllers_.push_back(&sim_->spawn<models::Controller>(p.name, *sim_->topology().find(p.name), kafka.controller,
                                                            directory, *events_, p.index, kafka.quorum));
    directory->controller_nodes.push_back(controllers_.back()->id());
    controllers_.back()->place_topics_over(broker_placement_);
  }
  if (kafka.zookeeper) spawn_zookeeper(directory);
  RandomStream assignment_rng = sim_->stream("replica-assignment");
  std::vector<std::vector<std::vector<models::BrokerId>>> replicas;
  for (std::size_t t = 0; t < directory->topics.size(); ++t) {
    const auto& topic = directory->topics[t];
    const auto created_later = [&](const OperationSpec& op) {
      return op.kind == OperationSpec::Kind::CreateTopic && op.topic == static_cast<std::int32_t>(t);
    };
    if (topic.auto_created || std::any_of(kafka.operations.begin(), kafka.operations.end(), created_later)) {
      replicas.emplace_back();  // an operation or a broker creates it (controller_topics.cpp)
      continue;
    }
    replicas.push_back(topic.assignment.empty()
                           ? models::assign_replicas(placement, topic.partitions, topic.replication_factor, assignment_rng)
                           : topic.assignment);
    for (std::size_t p = 0; p < replicas.back().size(); ++p) {
      for (const models::BrokerId b : replicas.back()[p]) {
        brokers_[static_cast<std::size_t>(b)]->create_replica({static_cast<std::int32_t>(t), static_cast<std::int32_t>(p)});
      }
    }
  }
  const auto directory_of = [&](models::BrokerId b, models::TopicPartition tp) {
    return brokers_[static_cast<std::size_t>(b)]->recorded_log_dir(tp);
  };
  for (models::Controller* c : controllers_) c->create_partitions(replicas, directory_of);
  if (kafka.zookeeper) {
    seed_zookeeper(replicas);
  } else {
    quorum_ = std::make_unique<models::ControllerQuorum>(controllers_);
  }
  if (quorum_->is_quorum()) host_metadata_logs();
  if (offsets_topic_ >= 0) offsets_replicas_ = replicas[static_cast<std::size_t>(offsets_topic_)];
  if (transaction_topic_ >= 0) transaction_replicas_ = replicas[static_cast<std::size_t>(transaction_topic_)];
  std::uint32_t index = 0;
  for (const auto& group : kafka.producers) {
    for (const auto& p : placements_) {
      if (p.group != group.name) continue;
      models::ProducerWorkload workload = group.workload;
      workload.stop = std::min(workload.stop, scenario_.duration);
      workload.warmup_end = scenario_.warmup;
      models::ProducerConfig config = group.config;
      const auto at = config.transactional_id.find("{name}");
      if (at != std::string::npos) config.transactional_id.replace(at, 6, p.name);
      producers_.push_back(&sim_->spawn<models::Producer>(p.name, *sim_->topology().find(p.name), index++, config,
                                                          workload, directory, *events_, history_));
    }
  }
  std::uint32_t consumer_index = 0;
  std::vector<std::size_t> first_consumer;  // of each consumer entry
  for (const auto& group : kafka.consumers) {
    first_consumer.push_back(consumers_.size());
    for (const auto& p : placements_) {
      if (p.group != group.name) continue;
      models::ConsumerConfig config = group.config;
      if (config.group_instance_id) {
        const auto at = config.group_instance_id->find("{name}");
        if (at != std::string::npos) config.group_instance_id->replace(at, 6, p.name);
      }
      models::ConsumerWorkload workload = group.workload;
      workload.warmup_end = scenario_.warmup;
      consumers_.push_back(&sim_->spawn<models::Consumer>(p.name, *sim_->topology().find(p.name), consumer_index++,
                                                          config, workload, directory, *events_, consumption_));
      if (group.restart_config) {
        models::ConsumerConfig restart = *group.restart_config;
        if (restart.group_instance_id) {
          const auto at = restart.group_instance_id->find("{name}");
          if (at != std::string::npos) restart.group_instance_id->replace(at, 6, p.name);
        }
        consumers_.back()->set_restart_config(std::move(restart));
      }
    }
  }
  // Producers paced by consumers (kafka.tools.EndToEndLatency): every consumer of the entry paces them.
  for (std::size_t i = 0, first = 0; i < kafka.producers.size(); first += static_cast<std::size_t>(kafka.producers[i].nodes.count), ++i) {
    if (kafka.producers[i].paced_by.empty()) continue;
    for (std::size_t g = 0; g < kafka.consumers.size(); ++g) {
      if (kafka.consumers[g].name != kafka.producers[i].paced_by) continue;
      for (int c = 0; c < kafka.consumers[g].nodes.count; ++c) {
        for (int n = 0; n < kafka.producers[i].nodes.count; ++n) {
          consumers_[first_consumer[g] + static_cast<std::size_t>(c)]->add_paced_producer(producers_[first + static_cast<std::size_t>(n)]);
        }
      }
    }
  }
  // The transform applications' producers come after every consumer, as node_placements lists them.
  for (std::size_t g = 0; g < kafka.consumers.size(); ++g) {
    const auto& group = kafka.consumers[g];
    if (!group.transform) continue;
    if (group.producer_per_partition) {
      spawn_task_producers(group, first_consumer[g], index, directory);
      continue;
    }
    // Each consumer's producer: the same application, writing the outputs.
    for (const auto& p : placements_) {
      if (p.group != group.name + "-producer") continue;
      models::ProducerConfig config = *group.transform;
      const auto at = config.transactional_id.find("{name}");
      if (at != std::string::npos) config.transactional_id.replace(at, 6, group.name + "-" + std::to_string(p.index));
      models::ProducerWorkload workload;
      workload.topic = group.workload.output_topic;
      workload.external = true;
      workload.stop = 0;  // no records of its own
      workload.warmup_end = scenario_.warmup;
      auto& producer = sim_->spawn<models::Producer>(p.name, *sim_->topology().find(p.name), index++, config, workload,
                                                     directory, *events_, history_);
      producers_.push_back(&producer);
      transform_producers_.push_back(&producer);
      consumers_[first_consumer[g] + static_cast<std::size_t>(p.index)]->set_output(&producer);
    }
  }
  spawn_share_consumers(directory);  // app/harness/cluster_share.cpp: last, as node_placements lists them
}

void Cluster::spawn_rpc() {
  const RpcSpec& rpc = *scenario_.rpc;
  std::vector<NodeId> server_ids;
  for (const auto& p : placements_) {
    if (p.group != "servers") continue;
    auto& server = sim_->spawn<models::RpcServer>(p.name, *sim_->topology().find(p.name), rpc.server);
    servers_.push_back(&server);
    server_ids.push_back(server.id());
  }
  for (const auto& p : placements_) {
    if (p.group != "clients") continue;
    models::RpcClientOptions options = rpc.client;
    options.servers = server_ids;
    options.stop_at = scenario_.duration;
    clients_.push_back(&sim_->spawn<models::RpcClient>(p.name, *sim_->topology().find(p.name), options));
  }
}

SimTime Cluster::end() const { return scenario_.duration + (scenario_.kafka ? scenario_.drain : 0); }
void Cluster::run() { run_until(end()); }

// In steps of the trackers' period (100ms), sampling them after each step.
void Cluster::run_until(SimTime until) {
  constexpr SimTime kStep = models::OpenTransactionTracker::kPeriod;
  // To `t`, reading the time series at its instants on the way, between events (nothing is scheduled for it).
  const auto advance = [this](SimTime t) {
    while (time_series_ && time_series_->next_sample() <= t) {
      sim_->run_until(time_series_->next_sample());
      time_series_->sample(time_series_->next_sample());
    }
    sim_->run_until(t);
  };
  while (clock_ < until) {
    const SimTime next = std::min((clock_ / kStep + 1) * kStep, until);
    if (clock_ < scenario_.warmup && next >= scenario_.warmup) {  // the measured part begins
      advance(scenario_.warmup);
      warmup_resources_ = sample_resources(brokers_, producers_, consumers_, sim_->network().topology());
    }
    if (clock_ < scenario_.duration && next >= scenario_.duration) {  // the workload ends: how busy was everything?
      advance(scenario_.duration);
      resources_ = sample_resources(brokers_, producers_, consumers_, sim_->network().topology());
    }
    advance(next);
    clock_ = next;
    if (open_transactions_) open_transactions_->sample(brokers_, clock_);
    if (scenario_.kafka && clock_ % models::ReplicationLagTracker::kPeriod == 0) replication_lag_.sample(brokers_);
    if (on_step_) on_step_();
  }
  // Where a run (or a phase of it) ends: do the replicas agree on what they committed?
  if (invariants_) invariants_->check_at_end(clock_);
}

void Cluster::heal() { faults_->heal_all(); }

std::optional<std::string> Cluster::unconverged_reason() {
  if (clock_ < scenario_.duration) return "the workload runs until " + units::format_duration(scenario_.duration);
  if (faults_->active() > 0) return std::to_string(faults_->active()) + " fault(s) in force";
  if (!scenario_.kafka) return std::nullopt;
  if (!convergence_) convergence_ = std::make_unique<models::Convergence>(view(), producers_, consumers_, consumption_);
  return convergence_->reason();
}

std::optional<std::string> Cluster::run_until_quiet(SimTime timeout) {
  const SimTime deadline = clock_ + timeout;
  std::optional<std::string> reason = unconverged_reason();
  while (reason && clock_ < deadline) {
    run_until(std::min(deadline, (clock_ / models::OpenTransactionTracker::kPeriod + 1) *
                                     models::OpenTransactionTracker::kPeriod));
    reason = unconverged_reason();
  }
  return reason;
}

// The active controller's node, else the last active one's, else the first controller's;
// with ZooKeeper, the node of the broker whose side is the controller (else broker 0).
NodeId Cluster::active_controller_node() const {
  if (quorum_->is_zookeeper()) {
    const models::ZkController* side = quorum_->active_zookeeper_controller();
    return brokers_[side ? static_cast<std::size_t>(side->broker_id()) : 0]->id();
  }
  const models::Controller* c = quorum_->active();
  if (!c) c = quorum_->last_active();
  return c ? c->id() : controllers_.front()->id();
}

// With a quorum, the first controller (by number) that is not the active one.
NodeId Cluster::standby_controller_node() const {
  const NodeId active = active_controller_node();
  for (const models::Controller* c : controllers_) {
    if (c->id() != active) return c->id();
  }
  return controllers_.front()->id();
}

std::string Cluster::topic_name(std::int32_t topic) const {
  if (topic == offsets_topic_) return "__consumer_offsets";
  if (topic == transaction_topic_) return "__transaction_state";
  return scenario_.kafka->topics.at(static_cast<std::size_t>(topic)).name;
}

std::set<std::int32_t> Cluster::internal_topics() const {
  std::set<std::int32_t> internal;
  for (const std::int32_t t : {offsets_topic_, transaction_topic_}) {
    if (t >= 0) internal.insert(t);
  }
  return internal;
}

std::size_t Cluster::replica_divergences_at_end() const {
  return invariants_ ? invariants_->divergences_at_end() : 0;
}

const std::vector<models::TimeSample>& Cluster::time_series() const {
  static const std::vector<models::TimeSample> none;
  return time_series_ ? time_series_->samples() : none;
}

const std::vector<models::InvariantViolation>& Cluster::invariant_violations() const {
  static const std::vector<models::InvariantViolation> none;
  return invariants_ ? invariants_->violations() : none;
}

}  // namespace ksim::app

namespace ksim::app {

// The broker that leads the transactional.id's __transaction_state partition now.
std::optional<models::BrokerId> Cluster::txn_coordinator_of(const std::string& transactional_id) const {
  if (transaction_replicas_.empty()) return std::nullopt;
  const std::int32_t p =
      models::group_partition(transactional_id, static_cast<std::int32_t>(transaction_replicas_.size()));
  return leader_now({transaction_topic_, p}, transaction_replicas_[static_cast<std::size_t>(p)].front());
}

// The broker that leads the group's __consumer_offsets partition now.
std::optional<models::BrokerId> Cluster::coordinator_of(const std::string& group) const {
  if (offsets_replicas_.empty()) return std::nullopt;
  const std::int32_t p = models::group_partition(group, static_cast<std::int32_t>(offsets_replicas_.size()));
  return leader_now({offsets_topic_, p}, offsets_replicas_[static_cast<std::size_t>(p)].front());
}

std::optional<models::BrokerId> Cluster::leader_now(models::TopicPartition tp,
                                                    std::optional<models::BrokerId> preferred) const {
  if (!quorum_) return preferred;
  const auto& partitions = quorum_->partitions();
  const auto it = partitions.find(tp);
  if (it == partitions.end()) return preferred;
  if (it->second.leader == models::kNoBroker) return std::nullopt;
  return it->second.leader;
}

}  // namespace ksim::app
