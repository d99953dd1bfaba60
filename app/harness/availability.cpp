// The cluster's observers of availability and of faults. The availability
// tracker (models/check/availability_tracker.hpp): for each topic, its
// producers' strongest acks, its min.insync.replicas and the nodes of the
// clients that write and read it. The fault paths (app/harness/fault_paths.hpp).
#include <algorithm>

#include "app/harness/cluster.hpp"

namespace ksim::app {

namespace {

models::Acks stronger(models::Acks a, models::Acks b) {
  const auto rank = [](models::Acks x) { return x == models::Acks::All ? 2 : x == models::Acks::Leader ? 1 : 0; };
  return rank(a) >= rank(b) ? a : b;
}

}  // namespace

void Cluster::track_availability() {
  const KafkaSpec& kafka = *scenario_.kafka;
  // Every topic the scenario has, created at the start or later (a create_topic operation),
  // and the internal topics, numbered after them.
  const std::int32_t topic_count = std::max(
      quorum_->partitions().empty() ? 0 : quorum_->partitions().rbegin()->first.topic + 1,
      static_cast<std::int32_t>(kafka.topics.size()));
  std::vector<models::AvailabilityTracker::Topic> topics(static_cast<std::size_t>(topic_count));
  const auto internal = internal_topics();
  for (std::int32_t t = 0; t < topic_count; ++t) {
    auto& topic = topics[static_cast<std::size_t>(t)];
    topic.partitions = quorum_->partition_count(t);
    topic.tracked = !internal.contains(t);
    if (static_cast<std::size_t>(t) < kafka.topics.size()) {
      topic.min_insync_replicas = kafka.topics[static_cast<std::size_t>(t)].min_insync_replicas;
    }
    topic.acks = models::Acks::None;
  }
  const auto writes = [&](std::int32_t t, models::Acks acks, NodeId node) {
    if (t < 0 || t >= topic_count) return;
    auto& topic = topics[static_cast<std::size_t>(t)];
    topic.acks = stronger(topic.acks, acks);
    topic.writers.push_back(node);
  };
  for (std::size_t i = 0, p = 0; i < kafka.producers.size(); ++i) {
    for (int n = 0; n < kafka.producers[i].nodes.count; ++n, ++p) {
      writes(kafka.producers[i].workload.topic, kafka.producers[i].config.acks, producers_[p]->id());
    }
  }
  for (std::size_t i = 0, c = 0; i < kafka.consumers.size(); ++i) {
    const auto& group = kafka.consumers[i];
    for (int n = 0; n < group.nodes.count; ++n, ++c) {
      const std::int32_t t = group.workload.topic;
      if (t >= 0 && t < topic_count) topics[static_cast<std::size_t>(t)].readers.push_back(consumers_[c]->id());
    }
  }
  for (const models::Producer* p : transform_producers_) {
    writes(p->workload().topic, p->config().acks, p->id());
  }
  for (auto& topic : topics) {
    if (topic.writers.empty()) topic.acks = models::Acks::Leader;
  }
  const auto writers = static_cast<std::uint32_t>(producers_.size() + transform_producers_.size());
  const NetworkFaults& cuts = sim_->network().faults();
  availability_ = std::make_unique<models::AvailabilityTracker>(
      brokers_, std::move(topics), history_, writers, [&cuts](NodeId from, NodeId to) { return !cuts.is_cut(from, to); });
  for (models::Broker* b : brokers_) b->add_partition_listener(availability_.get());
  events_->subscribe([this](SimTime, const Node& from, const models::ModelEvent& e) { availability_->on_event(from, e); });
  sim_->observe_nodes([this](const Node& node, NodeChange change) { availability_->on_node(node, change); });
  faults_->observe([this](const Fault& fault, std::string_view name, bool starting) {
    std::vector<std::string> nodes;
    for (const NodeId n : fault.nodes) nodes.push_back(sim_->node(n).name());
    availability_->on_fault(sim_->now(), name, std::move(nodes), fault.duration, starting);
  });
  sim_->add_after_event_hook([this] { availability_->after_event(sim_->now()); });
}

models::AvailabilityFigures Cluster::availability() const {
  return availability_ ? availability_->figures(sim_->now()) : models::AvailabilityFigures{};
}

// What each fault hit (app/harness/fault_paths.hpp): nodes' roles, rebalances and transactions from the
// model events; and the protocol states the run went through (app/harness/protocol_coverage.hpp).
void Cluster::track_fault_paths() {
  std::vector<std::string> roles(sim_->node_count());
  for (const auto* b : brokers_) roles[b->id()] = "broker";
  for (const auto* c : controllers_) roles[c->id()] = "controller";
  for (const auto* p : producers_) roles[p->id()] = "producer";
  for (const auto* c : consumers_) roles[c->id()] = "consumer";
  for (const auto* c : share_consumers_) roles[c->id()] = "consumer";
  std::vector<std::string> names;
  for (NodeId n = 0; n < sim_->node_count(); ++n) names.push_back(sim_->node(n).name());
  fault_paths_ = std::make_unique<FaultPaths>(std::move(roles), std::move(names));
  events_->subscribe([this](SimTime, const Node& from, const models::ModelEvent& e) { fault_paths_->on_event(from, e); });
  protocol_coverage_ = std::make_unique<ProtocolCoverage>();
  events_->subscribe([this](SimTime, const Node&, const models::ModelEvent& e) { protocol_coverage_->on_event(e); });
}

// KIP-848's online migrations of consumer groups, for the groups' report.
void Cluster::track_group_conversions() {
  events_->subscribe([this](SimTime t, const Node&, const models::ModelEvent& e) {
    if (const auto* c = std::get_if<models::GroupConverted>(&e)) {
      conversions_.push_back({std::string(c->group), c->to == "consumer", t, std::string(c->trigger), c->members});
    }
  });
}

}  // namespace ksim::app
