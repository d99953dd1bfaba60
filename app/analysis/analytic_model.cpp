#include "app/analysis/analytic_model.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "app/analysis/flow_model.hpp"

namespace ksim::app {

namespace {

using models::BrokerId;
using models::FlowModel;

// What the run tells about batching: records per batch and batches per request.
struct Batching {
  double records_per_batch = 1;
  double batches_per_request = 1;
  double records_per_follower_fetch = 0;  // records replicated per follower fetch served (0: one per produce request)
  double records_per_consumer_fetch = 0;  // records consumed per consumer fetch served
  double records_per_request() const { return records_per_batch * batches_per_request; }
};

Batching observed_batching(const Cluster& cluster) {
  // All counted over the measured part of the workload (after any warm-up), as the utilisations are.
  const ResourceSample at_end = used_since(cluster.resources_at_end_of_workload(), cluster.resources_at_end_of_warmup());
  const std::uint64_t records = at_end.records_acked, batches = at_end.batches_sent, requests = at_end.produce_requests;
  Batching b;
  if (batches > 0) b.records_per_batch = std::max(1.0, static_cast<double>(records) / static_cast<double>(batches));
  if (requests > 0) b.batches_per_request = std::max(1.0, static_cast<double>(batches) / static_cast<double>(requests));
  // Fetches, like batches, follow timing: how many records each carried.
  std::uint64_t follower_fetches = 0, consumer_fetches = 0;
  const std::uint64_t consumed = at_end.records_consumed;
  for (const auto& [name, usage] : at_end.brokers) {
    follower_fetches += usage.follower_fetches;
    consumer_fetches += usage.consumer_fetches;
  }
  const auto& topic = cluster.scenario().kafka->topics[static_cast<std::size_t>(cluster.scenario().kafka->producers.front().workload.topic)];
  const double replicated = static_cast<double>(records) * (topic.replication_factor - 1);
  if (follower_fetches > 0 && replicated > 0) b.records_per_follower_fetch = replicated / static_cast<double>(follower_fetches);
  if (consumer_fetches > 0 && consumed > 0) b.records_per_consumer_fetch = static_cast<double>(consumed) / static_cast<double>(consumer_fetches);
  return b;
}

// The network the scenario's workload makes, with the costs of its profile.
class KafkaFlow {
 public:
  KafkaFlow(const Cluster& cluster, Batching batching)
      : cluster_(cluster), spec_(*cluster.scenario().kafka), profile_(*cluster.scenario().profile), batching_(batching) {
    const auto& w = spec_.producers.front().workload;
    topic_ = w.topic;
    value_bytes_ = static_cast<double>(w.record_bytes_min + w.record_bytes_max) / 2;
    record_bytes_ = wire_bytes_per_record(w);
    nic_ = cluster.scenario().network.host_link.bandwidth_bytes_per_s;
    add_broker_resources();
    add_partition_stages();
    add_producers();
    add_consumers();
  }
  FlowModel& model() { return model_; }
  const std::vector<std::string>& nodes() const { return node_of_resource_; }

 private:
  struct BrokerResources {
    std::size_t cpu, network, io, nic_in, nic_out;
    std::vector<std::pair<double, std::size_t>> disks;  // (share of the broker's replicas, resource)
    // By source broker: num.replica.fetchers threads for each (AbstractFetcherManager).
    std::vector<std::size_t> fetchers_from;
  };

  // A record of the average size, half a batch from its batch's first (the
  // deltas' varints), with its share of the batch header.
  double wire_bytes_per_record(const models::ProducerWorkload& w) const {
    const models::RecordFormat format = spec_.topics[static_cast<std::size_t>(w.topic)].record_format;
    const std::int32_t key_bytes =
        w.keys == models::ProducerWorkload::Keys::None ? -1 : static_cast<std::int32_t>(std::to_string(w.key_count / 2).size());
    const auto half_batch = static_cast<std::int32_t>(batching_.records_per_batch / 2);
    const models::RecordShape record{key_bytes, static_cast<std::uint64_t>(value_bytes_)};
    return static_cast<double>(models::record_bytes_in_batch(format, record, half_batch, 0)) +
           static_cast<double>(models::batch_header_bytes(format)) / batching_.records_per_batch;
  }

  std::size_t resource(const std::string& node, const std::string& what, const std::string& kind, double capacity) {
    node_of_resource_.push_back(node);
    return model_.add_resource(node + ":" + what, kind, capacity);
  }

  void add_broker_resources() {
    const models::BrokerConfig& c = spec_.broker;
    for (const models::Broker* b : cluster_.brokers()) {
      const std::string& n = b->name();
      BrokerResources r{resource(n, "cpu", "broker_cpu", c.threading.cores),
                        resource(n, "network threads", "broker_network_threads", c.threading.num_network_threads),
                        resource(n, "request handlers", "broker_io_threads", c.threading.num_io_threads),
                        resource(n, "nic in", "nic", 1), resource(n, "nic out", "nic", 1), {}, {}};
      for (const models::Broker* source : cluster_.brokers()) {
        r.fetchers_from.push_back(source == b ? kNone
                                              : resource(n, "replica fetchers from " + source->name(), "broker_fetchers",
                                                         c.num_replica_fetchers));
      }
      double replicas = 0;
      for (const auto& d : b->log_dir_stats()) replicas += d.partitions;
      for (const auto& d : b->log_dir_stats()) {
        if (d.partitions > 0) r.disks.emplace_back(d.partitions / replicas, resource(n + ":" + d.path, "disk", "disk", 1));
      }
      brokers_.push_back(r);
    }
  }

  // Per broker: the records its leaders take (produce@b), and what each
  // follower copies of them (replicate@b>f), by the controller's assignment.
  void add_partition_stages() {
    const std::size_t n = brokers_.size();
    std::vector<double> led(n, 0);
    std::vector<std::vector<double>> followed(n, std::vector<double>(n, 0));
    session_.assign(n, std::vector<double>(n, 0));  // every partition a follower fetches, internal topics too
    double partitions = 0;
    for (const auto& [tp, state] : cluster_.controller()->partitions()) {
      if (state.leader == models::kNoBroker) continue;
      for (const BrokerId f : state.replicas) {
        if (f != state.leader) ++session_[static_cast<std::size_t>(state.leader)][static_cast<std::size_t>(f)];
      }
      if (tp.topic != topic_) continue;
      const auto leader = static_cast<std::size_t>(state.leader);
      ++partitions;
      ++led[leader];
      for (const BrokerId f : state.replicas) {
        if (static_cast<std::size_t>(f) != leader) ++followed[leader][static_cast<std::size_t>(f)];
      }
    }
    for (std::size_t b = 0; b < n; ++b) {
      lead_share_.push_back(led[b] / partitions);
      produce_stage_.push_back(model_.add_stage("produce@" + std::to_string(b), 0));
      add_produce_demands(b, led[b]);
    }
    for (std::size_t b = 0; b < n; ++b) {
      for (std::size_t f = 0; f < n; ++f) {
        if (followed[b][f] == 0) continue;
        const std::size_t stage = model_.add_stage("replicate@" + std::to_string(b) + ">" + std::to_string(f), 0);
        model_.route(produce_stage_[b], stage, followed[b][f] / led[b]);
        add_replication_demands(b, f, followed[b][f], session_[b][f], followed[b][f] / led[b], stage);
      }
    }
  }

  // A leader's work per record: the produce request through a network thread
  // and a request handler, the bytes in through the NIC and onto its disk.
  void add_produce_demands(std::size_t b, double partitions_led) {
    const models::BrokerCpuCosts& c = spec_.broker.cpu_costs;
    const std::size_t stage = produce_stage_[b];
    const double per_request = 1.0 / batching_.records_per_request();
    const double network = (2 * ns(c.network_request) * per_request + record_bytes_ * c.network_ns_per_byte) * 1e-9;
    const double io = (ns(c.request) * per_request + ns(c.partition + c.batch) / batching_.records_per_batch +
                       ns(c.record) + record_bytes_ * c.ns_per_byte) * 1e-9;
    cpu_work(b, stage, network, io, 0);
    model_.demand(brokers_[b].nic_in, stage, record_bytes_ / nic_);
    disk_work(b, stage, partitions_led);
  }

  // Replication from leader b to follower f: a fetch per produce request at
  // b, answered by b's threads, appended by f's replica fetcher.
  void add_replication_demands(std::size_t b, std::size_t f, double partitions, double session, double fraction,
                               std::size_t stage) {
    const models::BrokerCpuCosts& c = spec_.broker.cpu_costs;
    const double per_fetch = 1.0 / (batching_.records_per_follower_fetch > 0 ? batching_.records_per_follower_fetch
                                                                                : batching_.records_per_request() * fraction);
    cpu_work(b, stage, (2 * ns(c.network_request) * per_fetch + record_bytes_ * c.network_ns_per_byte) * 1e-9,
             (ns(c.request) + session * ns(c.partition)) * per_fetch * 1e-9, 0);
    const double append = ((ns(c.network_request) + batching_.batches_per_request * fraction * ns(c.partition)) * per_fetch +
                           ns(c.batch) / batching_.records_per_batch + record_bytes_ * c.follower_ns_per_byte) * 1e-9;
    cpu_work(f, stage, 0, 0, append, brokers_[f].fetchers_from[b]);
    model_.demand(brokers_[b].nic_out, stage, record_bytes_ / nic_);
    model_.demand(brokers_[f].nic_in, stage, record_bytes_ / nic_);
    disk_work(f, stage, partitions);
  }

  static constexpr std::size_t kNone = SIZE_MAX;

  void cpu_work(std::size_t b, std::size_t stage, double network, double io, double fetcher = 0,
                std::size_t fetcher_resource = kNone) {
    const BrokerResources& r = brokers_[b];
    if (network > 0) model_.demand(r.network, stage, network);
    if (io > 0) model_.demand(r.io, stage, io);
    if (fetcher > 0 && fetcher_resource != kNone) model_.demand(fetcher_resource, stage, fetcher);
    model_.demand(r.cpu, stage, network + io + fetcher);
  }

  // Appends reach the disks in proportion to the replicas on each. The page
  // cache merges a file's appends into write-back I/Os of up to
  // writeback_io_bytes (under load they fill); a hard disk with several
  // partitions seeks at almost every I/O.
  void disk_work(std::size_t b, std::size_t stage, double partitions) {
    for (const auto& [share, disk] : brokers_[b].disks) {
      const models::DiskSpec& d = spec_.broker.log_dirs.front().disk;
      const double seek = partitions * share > 1 ? ns(d.seek_time) : 0;
      const double records_per_io = std::max(1.0, static_cast<double>(d.writeback_io_bytes) / record_bytes_);
      model_.demand(disk, stage, share * (record_bytes_ / d.write_bytes_per_s +
                                          (ns(d.write_latency) + seek) * 1e-9 / records_per_io));
    }
  }

  void add_producers() {
    const models::ClientCpuCosts& c = profile_.client_costs;
    double total_rate = 0;
    for (const auto& group : spec_.producers) total_rate += group.workload.closed_loop ? 0 : group.workload.rate_per_s * group.nodes.count;
    std::size_t producers = 0;
    for (const auto& group : spec_.producers) producers += static_cast<std::size_t>(group.nodes.count);
    for (const auto& group : spec_.producers) {
      for (int i = 0; i < group.nodes.count; ++i) {
        const std::string node = group.name + "-" + std::to_string(i);
        const double share = total_rate > 0 ? group.workload.rate_per_s / total_rate : 1.0 / static_cast<double>(producers);
        const std::size_t stage = model_.add_stage("send@" + node, share);
        for (std::size_t b = 0; b < brokers_.size(); ++b) model_.route(stage, produce_stage_[b], lead_share_[b]);
        model_.demand(resource(node, "application", "client_cpu", 1), stage, ns(c.record_cost(static_cast<std::uint64_t>(value_bytes_))) * 1e-9);
        model_.demand(resource(node, "sender", "client_cpu", 1), stage,
                      2 * (ns(c.request) / batching_.records_per_request() + ns(c.batch) / batching_.records_per_batch) * 1e-9);
        model_.demand(resource(node, "nic out", "nic", 1), stage, record_bytes_ / nic_);
      }
    }
  }

  // Each consumer group reads every record once, its members an equal share
  // of every leader's partitions, a fetch per produce request.
  void add_consumers() {
    const models::BrokerCpuCosts& c = spec_.broker.cpu_costs;
    const models::ClientCpuCosts& client = profile_.client_costs;
    std::map<std::string, int> members;
    for (const auto& group : spec_.consumers) {
      if (group.workload.topic == topic_ && group.workload.output_topic < 0) members[group.config.group_id] += group.nodes.count;
    }
    const double partitions = static_cast<double>(spec_.topics[static_cast<std::size_t>(topic_)].partitions);
    for (const auto& group : spec_.consumers) {
      if (group.workload.topic != topic_ || group.workload.output_topic >= 0) continue;
      const double share = 1.0 / members[group.config.group_id];
      for (int i = 0; i < group.nodes.count; ++i) {
        const std::string node = group.name + "-" + std::to_string(i);
        const std::size_t thread = resource(node, "poll", "client_cpu", 1);
        const std::size_t nic_in = resource(node, "nic in", "nic", 1);
        for (std::size_t b = 0; b < brokers_.size(); ++b) {
          const std::size_t stage = model_.add_stage("consume@" + std::to_string(b) + ">" + node, 0);
          model_.route(produce_stage_[b], stage, share);
          const double per_fetch = 1.0 / (batching_.records_per_consumer_fetch > 0 ? batching_.records_per_consumer_fetch
                                                                                    : batching_.records_per_request() * share);
          const double fetched = lead_share_[b] * partitions * share;  // partitions in each fetch
          cpu_work(b, stage, (2 * ns(c.network_request) * per_fetch + record_bytes_ * c.network_ns_per_byte) * 1e-9,
                   (ns(c.request) + fetched * ns(c.partition)) * per_fetch * 1e-9, 0);
          model_.demand(brokers_[b].nic_out, stage, record_bytes_ / nic_);
          model_.demand(nic_in, stage, record_bytes_ / nic_);
          model_.demand(thread, stage, (ns(client.request) * per_fetch + ns(client.record_cost(static_cast<std::uint64_t>(record_bytes_)))) * 1e-9);
        }
      }
    }
  }

  static double ns(SimTime t) { return static_cast<double>(t); }

  const Cluster& cluster_;
  const KafkaSpec& spec_;
  const HardwareProfile& profile_;
  Batching batching_;
  FlowModel model_;
  std::int32_t topic_ = 0;
  double value_bytes_ = 0;   // the application's, per record
  double record_bytes_ = 0;  // on the wire and on disk: the record format's overhead and a share of its batch's header
  double nic_ = 0;
  std::vector<BrokerResources> brokers_;
  std::vector<double> lead_share_;
  std::vector<std::vector<double>> session_;
  std::vector<std::size_t> produce_stage_;
  std::vector<std::string> node_of_resource_;
};

// The busiest resource of each kind, as the simulation reports them.
Utilization summarize(const FlowModel::Solution& s, const std::vector<std::string>& nodes) {
  Utilization u;
  double top = -1;
  for (std::size_t r = 0; r < s.resources.size(); ++r) {
    const auto& res = s.resources[r];
    double* field = res.kind == "broker_cpu"               ? &u.broker_cpu
                    : res.kind == "broker_network_threads" ? &u.broker_network_threads
                    : res.kind == "broker_io_threads"      ? &u.broker_io_threads
                    : res.kind == "disk"                   ? &u.disk
                    : res.kind == "nic"                    ? &u.nic
                    : res.kind == "client_cpu"             ? &u.client_cpu
                                                           : nullptr;
    if (field) *field = std::max(*field, res.utilization);
    if (res.utilization > top) {
      top = res.utilization;
      const bool broker = res.kind.rfind("broker", 0) == 0;
      u.bottleneck = broker ? "broker_cpu" : res.kind;
      u.bottleneck_node = nodes[r];
    }
  }
  return u;
}

// A producer paced by a consumer has no rate of its own: what it offered is
// what it achieved, its records over the time it could send.
double paced_rate(const Cluster& cluster, const KafkaSpec::ProducerGroup& group, SimTime duration) {
  const SimTime from = group.start_when_ready ? 0 : group.workload.start;
  const SimTime to = std::min(group.workload.stop, duration);
  if (to <= from) return 0;
  std::uint64_t sent = 0;
  const std::string prefix = group.name + "-";
  for (const models::Producer* p : cluster.producers()) {
    if (p->name().starts_with(prefix)) sent += p->stats().records_sent;
  }
  return static_cast<double>(sent) / (static_cast<double>(to - from) * 1e-9);
}

}  // namespace

std::optional<AnalyticFigures> analytic_figures(const Cluster& cluster) {
  const Scenario& s = cluster.scenario();
  if (!s.kafka || !s.profile || s.kafka->producers.empty() || !cluster.controller()) return std::nullopt;
  KafkaFlow flow(cluster, observed_batching(cluster));
  AnalyticFigures a;
  bool closed = false;
  for (const auto& group : s.kafka->producers) {
    closed |= group.workload.closed_loop;
    if (group.workload.paced_by_consumer) {
      a.offered_records_per_s += paced_rate(cluster, group, s.duration);
    } else if (!group.workload.closed_loop) {
      a.offered_records_per_s += group.workload.rate_per_s * group.nodes.count;
    }
  }
  const FlowModel::Solution at_max = flow.model().solve(1.0);
  a.max_records_per_s = at_max.max_throughput;
  a.records_per_s = closed ? a.max_records_per_s : std::min(a.offered_records_per_s, a.max_records_per_s);
  a.utilization = summarize(flow.model().solve(a.records_per_s), flow.nodes());
  return a;
}

}  // namespace ksim::app
