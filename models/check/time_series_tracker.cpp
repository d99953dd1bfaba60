#include "models/check/time_series_tracker.hpp"

#include <algorithm>
#include <cassert>

namespace ksim::models {

namespace {

// Who reads a topic's partitions: a group, or a consumer of its own (assigned, no group.id).
std::string reader_of(const Consumer& c) { return c.config().group_id.empty() ? c.name() : c.config().group_id; }

}  // namespace

TimeSeriesTracker::TimeSeriesTracker(SimTime interval, ClusterView cluster, const std::vector<Producer*>& producers,
                                     const std::vector<Consumer*>& consumers, const ConsumptionHistory& consumption,
                                     const AvailabilityTracker* availability)
    : interval_(interval),
      next_(interval),
      cluster_(std::move(cluster)),
      producers_(producers),
      consumers_(consumers),
      consumption_(consumption),
      availability_(availability) {
  assert(interval > 0);
}

void TimeSeriesTracker::sample(SimTime now) {
  assert(now == next_ && "samples are read at their instants");
  TimeSample s;
  s.at = now;
  const double seconds = to_seconds(interval_);
  std::uint64_t acked = 0;
  Histogram produce;
  for (const Producer* p : producers_) {
    acked += p->stats().records_acked;
    produce.merge(p->stats().latency);
    produce.merge(p->stats().warmup_latency);
  }
  std::uint64_t processed = 0;
  Histogram end_to_end;
  for (const Consumer* c : consumers_) {
    processed += c->records_processed();
    end_to_end.merge(c->end_to_end_latency());
    end_to_end.merge(c->warmup_end_to_end_latency());
  }
  s.produced_records_per_s = static_cast<double>(acked - acked_) / seconds;
  s.consumed_records_per_s = static_cast<double>(processed - processed_) / seconds;
  const Histogram produce_now = produce.since(produce_latency_);
  if (produce_now.count() > 0) {
    s.produce_latency_p50 = produce_now.percentile(50);
    s.produce_latency_p99 = produce_now.percentile(99);
  }
  const Histogram end_to_end_now = end_to_end.since(end_to_end_latency_);
  if (end_to_end_now.count() > 0) {
    s.end_to_end_latency_p50 = end_to_end_now.percentile(50);
    s.end_to_end_latency_p99 = end_to_end_now.percentile(99);
  }
  acked_ = acked;
  processed_ = processed;
  produce_latency_ = produce;
  end_to_end_latency_ = end_to_end;
  lag_and_partitions(s);
  if (availability_) {
    const auto unavailable = availability_->unavailable_now();
    s.unwritable_partitions = unavailable.writes;
    s.unreadable_partitions = unavailable.reads;
  }
  samples_.push_back(s);
  next_ += interval_;
}

void TimeSeriesTracker::lag_and_partitions(TimeSample& s) {
  for (const auto& [tp, state] : cluster_.controller.partitions()) {
    if (cluster_.internal_topics.contains(tp.topic)) continue;
    if (state.leader == kNoBroker) {
      ++s.offline_partitions;
      continue;
    }
    if (state.isr.size() < state.replicas.size()) ++s.under_replicated_partitions;
    const Broker& leader = *cluster_.brokers[static_cast<std::size_t>(state.leader)];
    if (leader.state() == NodeState::Running && leader.is_leader(tp)) stable_[tp] = leader.last_stable_offset(tp);
  }
  for (; processed_seen_ < consumption_.processed.size(); ++processed_seen_) {
    const ProcessedRecord& r = consumption_.processed[processed_seen_];
    Offset& end = processed_to_[{reader_of(*consumers_[r.consumer]), r.partition}];
    end = std::max(end, r.offset + static_cast<Offset>(r.count));
  }
  if (read_.empty()) {  // each reader's partitions, once: they do not change
    std::set<std::pair<std::string, TopicPartition>> read;
    for (const Consumer* c : consumers_) {
      const std::int32_t topic = c->workload().topic;
      std::vector<std::int32_t> partitions = c->workload().partitions;
      if (partitions.empty()) {
        for (std::int32_t p = 0; p < cluster_.controller.partition_count(topic); ++p) partitions.push_back(p);
      }
      for (const std::int32_t p : partitions) read.insert({reader_of(*c), TopicPartition{topic, p}});
    }
    read_.assign(read.begin(), read.end());
  }
  for (const auto& key : read_) {
    const auto stable = stable_.find(key.second);
    if (stable == stable_.end()) continue;
    const auto it = processed_to_.find(key);
    s.consumer_lag_records += std::max<Offset>(0, stable->second - (it == processed_to_.end() ? 0 : it->second));
  }
}

}  // namespace ksim::models
