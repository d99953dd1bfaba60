#include "models/check/availability_tracker.hpp"

#include <algorithm>
#include <cassert>

namespace ksim::models {

AvailabilityTracker::AvailabilityTracker(std::vector<Broker*> brokers, std::vector<Topic> topics,
                                         const DeliveryHistory& history, std::uint32_t writers, Reachable reachable)
    : brokers_(std::move(brokers)),
      topics_(std::move(topics)),
      history_(history),
      writers_(writers),
      reachable_(std::move(reachable)) {
  std::int32_t base = 0;
  for (std::size_t t = 0; t < topics_.size(); ++t) {
    topic_base_.push_back(base);
    base += topics_[t].partitions;
    for (std::int32_t p = 0; p < topics_[t].partitions; ++p) {
      partitions_.push_back({static_cast<std::int32_t>(t), p});
    }
  }
  states_.resize(partitions_.size());
  dirty_.assign(partitions_.size(), 0);
  incidents_.push_back({});  // no fault
  touched_.emplace_back(partitions_.size(), 0);
}

void AvailabilityTracker::mark(TopicPartition tp) {
  if (all_dirty_ || static_cast<std::size_t>(tp.topic) >= topics_.size()) return;
  if (!topics_[static_cast<std::size_t>(tp.topic)].tracked) return;
  std::uint8_t& d = dirty_[index(tp)];
  if (d) return;
  d = 1;
  dirty_list_.push_back(tp);
}

void AvailabilityTracker::partition_changed(const Partition& partition, PartitionChange change) {
  // A role, the committed ISR, a crash, or a pending ISR change (the maximal ISR).
  if (change == PartitionChange::State || change == PartitionChange::PendingIsr) mark(partition.tp());
}

void AvailabilityTracker::on_event(const Node&, const ModelEvent& event) {
  if (const auto* e = std::get_if<BecameLeader>(&event)) {
    if (static_cast<std::size_t>(e->partition.topic) >= topics_.size()) return;
    if (!topics_[static_cast<std::size_t>(e->partition.topic)].tracked) return;
    states_[index(e->partition)].leader = e->broker;
    mark(e->partition);
  }
}

void AvailabilityTracker::on_node(const Node&, NodeChange) { all_dirty_ = true; }

void AvailabilityTracker::on_fault(SimTime now, std::string_view fault, std::vector<std::string> nodes,
                                   SimTime duration, bool starting) {
  all_dirty_ = true;  // a cut between nodes, a log dir, ... may have changed
  if (!starting) return;
  incidents_.push_back({std::string(fault), std::move(nodes), now, duration, {}, {}});
  touched_.emplace_back(partitions_.size(), 0);
}

bool AvailabilityTracker::leads(const State& s, TopicPartition tp) const {
  if (s.leader < 0) return false;
  const Broker& b = *brokers_[static_cast<std::size_t>(s.leader)];
  return b.state() == NodeState::Running && b.is_leader(tp);  // is_leader: running, leading, its log dir online
}

bool AvailabilityTracker::reaches_one_of(const std::vector<NodeId>& clients, NodeId broker) const {
  if (clients.empty()) return true;
  return std::any_of(clients.begin(), clients.end(),
                     [&](NodeId c) { return reachable_(c, broker) && reachable_(broker, c); });
}

bool AvailabilityTracker::can_write(TopicPartition tp, const State& s) const {
  const Topic& topic = topics_[static_cast<std::size_t>(tp.topic)];
  if (!leads(s, tp)) return false;
  const Broker& leader = *brokers_[static_cast<std::size_t>(s.leader)];
  if (!reaches_one_of(topic.writers, leader.id())) return false;
  if (topic.acks != Acks::All) return true;
  const Partition& p = *leader.partition(tp);
  if (!p.enough_replicas_to_append(topic.min_insync_replicas, leader.strict_min_isr())) return false;  // NotEnoughReplicas
  for (const BrokerId member : p.maximal_isr()) {
    if (member == s.leader) continue;
    const Broker& follower = *brokers_[static_cast<std::size_t>(member)];
    if (follower.state() != NodeState::Running) return false;
    if (!reachable_(follower.id(), leader.id()) || !reachable_(leader.id(), follower.id())) return false;
  }
  return true;
}

bool AvailabilityTracker::can_read(TopicPartition tp, const State& s) const {
  const Topic& topic = topics_[static_cast<std::size_t>(tp.topic)];
  if (!leads(s, tp)) return false;
  return reaches_one_of(topic.readers.empty() ? topic.writers : topic.readers,
                        brokers_[static_cast<std::size_t>(s.leader)]->id());
}

std::uint64_t AvailabilityTracker::produced(TopicPartition tp) const {
  std::uint64_t total = 0;
  for (std::uint32_t w = 0; w < writers_; ++w) {
    const auto it = history_.produced.find({w, tp});
    if (it != history_.produced.end()) total += it->second;
  }
  return total;
}

// The incident an interval starting now belongs to: the latest that started.
void AvailabilityTracker::evaluate(TopicPartition tp, SimTime now) {
  const std::size_t i = index(tp);
  State& s = states_[i];
  if (s.leader < 0) return;  // being created: counted from its first leader on
  const std::size_t incident = incidents_.size() - 1;
  const bool write_ok = can_write(tp, s);
  if (!write_ok && s.write_down_since == kNever) {
    s.write_down_since = now;
    s.write_incident = incident;
    s.produced_at_down = produced(tp);
  } else if (write_ok && s.write_down_since != kNever) {
    UnavailabilityCost& cost = incidents_[s.write_incident].writes;
    close(cost, s.write_down_since, now, !(touched_[s.write_incident][i] & 1));
    touched_[s.write_incident][i] |= 1;
    cost.records_waited += produced(tp) - s.produced_at_down;
    s.write_down_since = kNever;
  }
  const bool read_ok = can_read(tp, s);
  if (!read_ok && s.read_down_since == kNever) {
    s.read_down_since = now;
    s.read_incident = incident;
  } else if (read_ok && s.read_down_since != kNever) {
    close(incidents_[s.read_incident].reads, s.read_down_since, now, !(touched_[s.read_incident][i] & 2));
    touched_[s.read_incident][i] |= 2;
    s.read_down_since = kNever;
  }
}

void AvailabilityTracker::close(UnavailabilityCost& cost, SimTime since, SimTime now, bool first_for_partition) const {
  cost.partitions += first_for_partition ? 1 : 0;
  cost.longest = std::max(cost.longest, now - since);
  cost.partition_s += to_seconds(now - since);
}

void AvailabilityTracker::after_event(SimTime now) {
  if (all_dirty_) {
    all_dirty_ = false;
    for (std::size_t i = 0; i < partitions_.size(); ++i) {
      if (topics_[static_cast<std::size_t>(partitions_[i].topic)].tracked) evaluate(partitions_[i], now);
    }
    for (const TopicPartition tp : dirty_list_) dirty_[index(tp)] = 0;
    dirty_list_.clear();
    return;
  }
  for (const TopicPartition tp : dirty_list_) {
    dirty_[index(tp)] = 0;
    evaluate(tp, now);
  }
  dirty_list_.clear();
}

AvailabilityTracker::Unavailable AvailabilityTracker::unavailable_now() const {
  Unavailable now;
  for (const State& s : states_) {
    now.writes += s.write_down_since != kNever ? 1 : 0;
    now.reads += s.read_down_since != kNever ? 1 : 0;
  }
  return now;
}

AvailabilityFigures AvailabilityTracker::figures(SimTime end) const {
  AvailabilityFigures f;
  std::vector<AvailabilityIncident> incidents = incidents_;
  for (std::size_t i = 0; i < states_.size(); ++i) {  // what is still unavailable ends at the end
    const State& s = states_[i];
    if (s.write_down_since != kNever) {
      UnavailabilityCost& cost = incidents[s.write_incident].writes;
      close(cost, s.write_down_since, end, !(touched_[s.write_incident][i] & 1));
      cost.records_waited += produced(partitions_[i]) - s.produced_at_down;
      ++cost.still_unavailable;
    }
    if (s.read_down_since != kNever) {
      UnavailabilityCost& cost = incidents[s.read_incident].reads;
      close(cost, s.read_down_since, end, !(touched_[s.read_incident][i] & 2));
      ++cost.still_unavailable;
    }
  }
  std::vector<std::uint8_t> ever(states_.size(), 0);  // a partition counts once in the totals
  for (std::size_t n = 0; n < incidents.size(); ++n) {
    for (std::size_t i = 0; i < states_.size(); ++i) ever[i] |= touched_[n][i];
  }
  for (std::size_t i = 0; i < states_.size(); ++i) {
    ever[i] |= (states_[i].write_down_since != kNever ? 1 : 0) | (states_[i].read_down_since != kNever ? 2 : 0);
    f.writes.partitions += ever[i] & 1;
    f.reads.partitions += (ever[i] & 2) >> 1;
  }
  for (const AvailabilityIncident& incident : incidents) {
    for (auto [total, cost] : {std::pair{&f.writes, &incident.writes}, std::pair{&f.reads, &incident.reads}}) {
      total->longest = std::max(total->longest, cost->longest);
      total->partition_s += cost->partition_s;
      total->still_unavailable += cost->still_unavailable;
      total->records_waited += cost->records_waited;
    }
    if (incident.writes.partition_s > 0 || incident.reads.partition_s > 0) f.incidents.push_back(incident);
  }
  return f;
}

}  // namespace ksim::models
