#include "app/timeline/timeline_recorder.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "app/timeline/message_about.hpp"
#include "app/timeline/timeline_outcomes.hpp"

namespace ksim::app::timeline {

namespace {

std::string crash_label(CrashKind kind) {
  return kind == CrashKind::Machine ? "power loss" : kind == CrashKind::Shutdown ? "shut down" : "crashed";
}

}  // namespace

TimelineRecorder::TimelineRecorder(Cluster& cluster, RecorderOptions options)
    : sim_(cluster.sim()), options_(std::move(options)) {
  add_rows(cluster);
  sim_.observe_nodes([this](const Node& node, NodeChange change) { on_node(node, change); });
  cluster.faults().observe([this](const Fault& f, std::string_view kind, bool starting) { on_fault(f, kind, starting); });
  if (models::ModelEventBus* bus = cluster.model_events()) {
    bus->subscribe([this](SimTime now, const Node& from, const models::ModelEvent& e) { on_event(now, from, e); });
  }
  if (options_.window) {
    builder_.timeline().window = MessageWindow{options_.window->first, options_.window->second, options_.partition_name, {}, {}, 0};
    sim_.network().observe_messages(
        [this](const Message& m, NodeId from, NodeId to, bool delivered) { on_message(m, from, to, delivered); });
  }
}

void TimelineRecorder::add_rows(const Cluster& cluster) {
  faults_row_ = builder_.add_row("faults", RowKind::Faults, false);
  for (const models::Broker* b : cluster.brokers()) builder_.add_row(b->name(), RowKind::Broker);
  if (const models::ControllerQuorum* quorum = cluster.controller()) {
    // A row per controller (a quorum's standbys too): each marks what it did while active.
    for (const models::Controller* c : quorum->controllers()) {
      controller_rows_[c->id()] = builder_.add_row(c->name(), RowKind::Controller);
    }
    const KafkaSpec& kafka = *cluster.scenario().kafka;
    for (const auto& t : kafka.topics) topic_names_.push_back(t.name);
    if (!kafka.consumers.empty()) {
      internal_topics_.insert(static_cast<std::int32_t>(topic_names_.size()));
      topic_names_.push_back("__consumer_offsets");
    }
    if (kafka.has_transactions()) {
      internal_topics_.insert(static_cast<std::int32_t>(topic_names_.size()));
      topic_names_.push_back("__transaction_state");
    }
    std::size_t user_partitions = 0;
    for (const auto& [tp, state] : quorum->partitions()) {
      replicas_[tp] = state.replicas.size();
      if (internal_topics_.contains(tp.topic)) continue;
      ++user_partitions;
      const bool chosen = options_.partition == tp;
      if (partition_rows_.size() >= kMaxPartitionRows && !chosen) continue;
      partition_rows_[tp] = builder_.add_row(partition_name(tp), RowKind::Partition, false);
      if (state.leader != models::kNoBroker) led_[state.leader].insert(tp);
      partition_changed(0, tp, state.leader, state.leader_epoch, state.isr.size(), false);
    }
    if (user_partitions > partition_rows_.size()) {
      builder_.note(fmt::format("partitions: {} of {} drawn (the first by topic and number{})", partition_rows_.size(),
                                user_partitions, options_.partition ? ", and the one chosen" : ""));
    }
  }
  std::size_t producers = 0, consumers = 0;
  for (const models::Producer* p : cluster.producers()) {
    if (++producers > kMaxClientRows) continue;
    const std::size_t row = builder_.add_row(p->name(), RowKind::Producer);
    if (!p->config().transactional_id.empty()) transactional_rows_[p->config().transactional_id] = row;
  }
  for (const models::Consumer* c : cluster.consumers()) {
    if (++consumers <= kMaxClientRows) builder_.add_row(c->name(), RowKind::Consumer);
  }
  for (const auto& [count, kind] : {std::pair{producers, "producers"}, std::pair{consumers, "consumers"}}) {
    if (count > kMaxClientRows) builder_.note(fmt::format("{}: the first {} of {} drawn", kind, kMaxClientRows, count));
  }
  for (const models::Consumer* c : cluster.consumers()) {
    const std::string group = group_row_name(c->config().group_id);
    if (!c->config().group_id.empty() && !builder_.row(group)) builder_.add_row(group, RowKind::Group);
  }
  for (const models::RpcServer* s : cluster.servers()) builder_.add_row(s->name(), RowKind::Node);
  for (const models::RpcClient* c : cluster.clients()) builder_.add_row(c->name(), RowKind::Node);
  builder_.add_row("anomalies", RowKind::Anomalies, false);
  for (const auto& [broker, partitions] : led_) leaderships(0, broker);
  node_rows_.assign(sim_.node_count(), kNoRow);
  for (NodeId n = 0; n < sim_.node_count(); ++n) node_rows_[n] = builder_.row(sim_.node(n).name()).value_or(kNoRow);
}

std::string TimelineRecorder::partition_name(models::TopicPartition tp) const {
  const auto t = static_cast<std::size_t>(tp.topic);
  return fmt::format("{}-{}", t < topic_names_.size() ? topic_names_[t] : fmt::format("topic{}", tp.topic), tp.partition);
}

std::optional<std::size_t> TimelineRecorder::broker_row(models::BrokerId broker) const {
  return builder_.row(fmt::format("broker-{}", broker));
}

void TimelineRecorder::on_node(const Node& node, NodeChange change) {
  const std::size_t row_index = node.id() < node_rows_.size() ? node_rows_[node.id()] : kNoRow;
  if (row_index == kNoRow) return;
  const std::optional<std::size_t> row = row_index;
  const SimTime now = sim_.now();
  switch (change.kind) {
    case NodeChange::Kind::Started: builder_.close(*row, "down", now); break;
    case NodeChange::Kind::Crashed:
      builder_.close(*row, "paused", now);
      builder_.close(*row, "generation", now);
      builder_.close(*row, "joining", now);
      builder_.close(*row, "active", now);  // a controller that crashes stops being the active one
      builder_.open(*row, "down", now, crash_label(change.crash), fmt::format("{}: {}", node.name(), crash_label(change.crash)));
      if (const auto* broker = dynamic_cast<const models::Broker*>(&node)) {
        led_[broker->broker_id()].clear();
        leaderships(now, broker->broker_id());
      }
      break;
    case NodeChange::Kind::ShutdownRequested:
      builder_.mark(*row, "event", now, "shutdown", node.name() + ": controlled shutdown requested");
      break;
    case NodeChange::Kind::Paused: builder_.open(*row, "paused", now, "paused", node.name() + ": paused"); break;
    case NodeChange::Kind::Resumed: builder_.close(*row, "paused", now); break;
  }
}

void TimelineRecorder::on_fault(const Fault& fault, std::string_view kind, bool starting) {
  const SimTime now = sim_.now();
  if (starting) {
    std::string nodes;
    for (const NodeId n : fault.nodes) nodes += (nodes.empty() ? "" : ", ") + sim_.node(n).name();
    std::string label = nodes.empty() ? std::string(kind) : fmt::format("{} {}", kind, nodes);
    if (fault.extra_latency > 0) label += " +" + format_time(fault.extra_latency);
    active_faults_.push_back({&fault, now, std::move(label)});
    return;
  }
  const auto it = std::find_if(active_faults_.begin(), active_faults_.end(), [&](const auto& f) { return f.fault == &fault; });
  if (it == active_faults_.end()) return;
  end_fault(*it, now, "");
  active_faults_.erase(it);
}

void TimelineRecorder::end_fault(const ActiveFault& f, SimTime end, std::string_view note) {
  builder_.span({faults_row_, f.start, end, "fault", f.label,
                 fmt::format("{} from {} to {}{}", f.label, format_time(f.start), format_time(end), note), -1});
}

void TimelineRecorder::leaderships(SimTime now, models::BrokerId broker) {
  if (const auto row = broker_row(broker)) builder_.step(*row, now, static_cast<double>(led_[broker].size()));
}

void TimelineRecorder::partition_changed(SimTime now, models::TopicPartition tp, models::BrokerId leader,
                                         models::Epoch epoch, std::size_t isr, bool unclean) {
  const auto it = partition_rows_.find(tp);
  if (it == partition_rows_.end()) return;
  const std::size_t row = it->second;
  const std::string name = partition_name(tp);
  builder_.close(row, "leader", now);
  builder_.close(row, "offline", now);
  if (leader == models::kNoBroker) {
    builder_.open(row, "offline", now, "no leader", fmt::format("{}: no leader (epoch {})", name, epoch));
  } else {
    builder_.open(row, "leader", now, fmt::format("broker-{} e{}", leader, epoch),
                  fmt::format("{}: leader broker-{}, epoch {}{}", name, leader, epoch, unclean ? " (unclean)" : ""),
                  leader);
  }
  const std::size_t replicas = replicas_[tp];
  if (isr < replicas) {
    builder_.open(row, "isr", now, fmt::format("ISR {}/{}", isr, replicas),
                  fmt::format("{}: ISR of {} of its {} replicas", name, isr, replicas));
  } else {
    builder_.close(row, "isr", now);
  }
}

void TimelineRecorder::on_event(SimTime now, const Node& from, const models::ModelEvent& event) {
  using namespace models;
  if (std::holds_alternative<HighWatermarkAdvanced>(event) || std::holds_alternative<BatchAppended>(event)) return;
  if (const auto c = controller_rows_.find(from.id()); c != controller_rows_.end()) {
    return on_controller_event(now, c->second, event);
  }
  const std::size_t row = from.id() < node_rows_.size() ? node_rows_[from.id()] : kNoRow;
  if (row == kNoRow) return;
  if (builder_.timeline().rows[row].kind == RowKind::Broker) return on_broker_event(now, row, event);
  on_client_event(now, row, event);
}

void TimelineRecorder::on_broker_event(SimTime now, std::size_t row, const models::ModelEvent& event) {
  using namespace models;
  const std::string& broker = builder_.timeline().rows[row].name;
  if (const auto* e = std::get_if<BecameLeader>(&event)) {
    led_[e->broker].insert(e->partition);
    leaderships(now, e->broker);
  } else if (const auto* e = std::get_if<BecameFollower>(&event)) {
    led_[e->broker].erase(e->partition);
    leaderships(now, e->broker);
  } else if (const auto* e = std::get_if<LogTruncated>(&event)) {
    const auto it = partition_rows_.find(e->partition);
    if (it != partition_rows_.end() && e->from != e->to) {
      builder_.mark(it->second, "truncation", now, "truncated",
                    fmt::format("{}: {} truncated its log from {} to {}", partition_name(e->partition), broker, e->from, e->to));
    }
  } else if (const auto* e = std::get_if<LogDirWentOffline>(&event)) {
    builder_.mark(row, "fault", now, "log dir offline", fmt::format("{}: log dir {} offline: {}", broker, e->path, e->reason));
  } else if (std::holds_alternative<BrokerShutDown>(event)) {
    builder_.mark(row, "event", now, "shut down", broker + ": controlled shutdown complete");
  } else if (const auto* e = std::get_if<MemberRemoved>(&event)) {
    if (const auto g = builder_.row(group_row_name(e->group))) {
      builder_.mark(*g, "event", now, "left", fmt::format("{}: member {} removed ({})", e->group, e->member, e->reason));
    }
  } else if (const auto* e = std::get_if<GroupLoaded>(&event)) {
    if (const auto g = builder_.row(group_row_name(e->group))) {
      builder_.mark(*g, "event", now, "loaded",
                    fmt::format("{}: loaded by {} at generation {} ({})", e->group, broker, e->generation, e->state));
    }
  } else if (const auto* e = std::get_if<TxnFenced>(&event)) {
    const auto it = transactional_rows_.find(std::string(e->transactional_id));
    builder_.mark(it == transactional_rows_.end() ? row : it->second, "fenced", now, "fenced",
                  fmt::format("{}: fenced by the coordinator on {} (epoch {})", e->transactional_id, broker, e->epoch));
  } else if (const auto* e = std::get_if<TxnTimedOut>(&event)) {
    const auto it = transactional_rows_.find(std::string(e->transactional_id));
    builder_.mark(it == transactional_rows_.end() ? row : it->second, "txn-abort", now, "timeout",
                  fmt::format("{}: transaction.timeout.ms passed: aborted by {}", e->transactional_id, broker));
  }
}

void TimelineRecorder::on_controller_event(SimTime now, std::size_t controller_row, const models::ModelEvent& event) {
  using namespace models;
  if (const auto* e = std::get_if<LeaderElected>(&event)) {
    const std::string name = partition_name(e->partition);
    builder_.mark(controller_row, e->unclean ? "unclean" : "election", now, e->unclean ? "unclean" : "",
                  fmt::format("{}: leader {}{}, epoch {}, ISR {}", name,
                              e->leader == kNoBroker ? "none" : fmt::format("broker-{}", e->leader),
                              e->unclean ? " (unclean election)" : "", e->epoch, e->isr_size));
    if (const auto it = partition_rows_.find(e->partition); it != partition_rows_.end() && e->unclean) {
      builder_.mark(it->second, "unclean", now, "unclean", fmt::format("{}: unclean election of broker-{}", name, e->leader));
    }
    partition_changed(now, e->partition, e->leader, e->epoch, e->isr_size, e->unclean);
  } else if (const auto* e = std::get_if<IsrCommitted>(&event)) {
    const auto it = partition_rows_.find(e->partition);
    if (it == partition_rows_.end()) return;
    const std::size_t replicas = replicas_[e->partition];
    if (e->isr_size < replicas) {
      builder_.open(it->second, "isr", now, fmt::format("ISR {}/{}", e->isr_size, replicas),
                    fmt::format("{}: ISR of {} of its {} replicas", partition_name(e->partition), e->isr_size, replicas));
    } else {
      builder_.close(it->second, "isr", now);
    }
  } else if (const auto* e = std::get_if<BrokerFenced>(&event)) {
    if (const auto row = broker_row(e->broker)) {
      builder_.open(*row, "fenced", now, "fenced", fmt::format("broker-{} fenced by the controller: {}", e->broker, e->reason));
    }
  } else if (const auto* e = std::get_if<BrokerUnfenced>(&event)) {
    if (const auto row = broker_row(e->broker)) builder_.close(*row, "fenced", now);
  } else if (const auto* e = std::get_if<ControlledShutdownStarted>(&event)) {
    builder_.mark(controller_row, "event", now, "", fmt::format("broker-{}: controlled shutdown starts", e->broker));
  } else if (const auto* e = std::get_if<ControllerActivated>(&event)) {
    builder_.open(controller_row, "active", now, fmt::format("active, epoch {}", e->epoch),
                  fmt::format("controller {} active in epoch {}", e->controller, e->epoch));
  } else if (const auto* e = std::get_if<ControllerRenounced>(&event)) {
    builder_.close(controller_row, "active", now);
    builder_.mark(controller_row, "event", now, "renounced",
                  fmt::format("controller {} renounced epoch {}: {} uncommitted records reverted", e->controller, e->epoch,
                              e->reverted_records));
  } else if (const auto* e = std::get_if<ControllerLoading>(&event)) {
    builder_.span({controller_row, now, now + e->load_time, "loading", "loading",
                   fmt::format("a new active controller loads {} partitions ({})", e->partitions, format_time(e->load_time))});
  }
}

void TimelineRecorder::on_client_event(SimTime now, std::size_t row, const models::ModelEvent& event) {
  using namespace models;
  const std::string& client = builder_.timeline().rows[row].name;
  if (const auto* e = std::get_if<AssignmentReceived>(&event)) {
    builder_.close(row, "joining", now);
    builder_.open(row, "generation", now, fmt::format("gen {}", e->generation),
                  fmt::format("{}: generation {}, {} partitions", client, e->generation, e->partitions));
  } else if (const auto* e = std::get_if<JoinSent>(&event)) {
    builder_.close(row, "generation", now);
    builder_.open(row, "joining", now, "joining", fmt::format("{}: (re)joining the group: {}", client, e->reason));
  } else if (std::holds_alternative<PollTimedOut>(event)) {
    builder_.mark(row, "timeout", now, "poll timeout", client + ": max.poll.interval.ms passed; it leaves the group");
  } else if (const auto* e = std::get_if<PartitionReleased>(&event); e && e->lost) {
    builder_.mark(row, "event", now, "", fmt::format("{}: partition {} lost", client, e->partition));
  } else if (const auto* e = std::get_if<ConsumerStopped>(&event)) {
    builder_.mark(row, "fail", now, "stopped", fmt::format("{}: the application stops: {}", client, e->reason));
  } else if (const auto* e = std::get_if<TruncationDetected>(&event)) {
    builder_.mark(row, "truncation", now, "truncation",
                  fmt::format("{}: partition {} truncated below its position {} (to {})", client, e->partition, e->position,
                              e->end_offset));
  } else if (const auto* e = std::get_if<TransactionsInitialised>(&event)) {
    builder_.mark(row, "event", now, "", fmt::format("{}: initTransactions(): producer id {}, epoch {}", client, e->producer, e->epoch));
  } else if (const auto* e = std::get_if<ProducerFenced>(&event)) {
    builder_.mark(row, "fenced", now, "fenced", fmt::format("{}: fenced ({})", client, to_string(e->error)));
  } else if (const auto* e = std::get_if<BatchFailed>(&event)) {
    builder_.mark(row, "fail", now, "", fmt::format("{}: {} records to {} failed: {}", client, e->records,
                                                  partition_name(e->partition), to_string(e->error)));
  } else if (const auto* e = std::get_if<ProduceRequestTimedOut>(&event)) {
    builder_.mark(row, "timeout", now, "", fmt::format("{}: request to broker-{} timed out", client, e->broker));
  }
}

void TimelineRecorder::on_message(const Message& message, NodeId from, NodeId to, bool delivered) {
  MessageWindow& window = *builder_.timeline().window;
  const SimTime now = sim_.now();
  if (delivered) {
    const auto it = in_flight_.find(&message);
    if (it == in_flight_.end()) return;
    window.messages[it->second].delivered = now;
    in_flight_.erase(it);
    return;
  }
  if (!in_flight_.empty()) in_flight_.erase(&message);  // an address used again: the earlier message was dropped
  if (now < window.from || now >= window.to) return;
  const std::optional<std::string> about = message_about(message, options_.partition);
  if (!about) return;
  if (window.messages.size() >= kMaxMessages) {
    ++window.left_out;
    return;
  }
  lifelines_.insert(from);
  lifelines_.insert(to);
  in_flight_[&message] = window.messages.size();
  window.messages.push_back({sim_.node(from).name(), sim_.node(to).name(), now, kNever, std::string(message.name()), *about});
}

Timeline TimelineRecorder::finish(const Cluster& cluster, const RunReport& report) {
  if (MessageWindow* window = builder_.timeline().window ? &*builder_.timeline().window : nullptr) {
    for (const NodeId n : lifelines_) window->nodes.push_back(sim_.node(n).name());  // in creation order
    if (window->left_out > 0) {
      builder_.note(fmt::format("spacetime diagram: the first {} messages drawn, {} more left out", kMaxMessages,
                                window->left_out));
    }
  }
  for (const ActiveFault& f : active_faults_) end_fault(f, sim_.now(), " (the end of the run: still in force)");
  active_faults_.clear();
  add_outcomes(builder_, cluster, report);
  return builder_.finish(sim_.now());
}

}  // namespace ksim::app::timeline
