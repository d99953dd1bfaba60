#pragma once
// The run's figures over time, one sample per interval of simulated time
// (a second by default; the scenario's report.sample_interval): records
// acknowledged and processed per second, produce and end-to-end latency
// percentiles of the records acknowledged and polled in the interval, and,
// at the sample's instant, the groups' lag and the partitions that cannot be
// written or read, have no leader, or are under-replicated. The harness
// samples between events (never from an event of the simulation), so
// sampling changes nothing that runs, nor the trace.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/check/availability_tracker.hpp"
#include "models/check/committed_logs.hpp"
#include "models/client/consumer/consumer.hpp"
#include "models/client/producer/producer.hpp"
#include "models/history/consumption_history.hpp"
#include "sim/observe/histogram.hpp"

namespace ksim::models {

struct TimeSample {
  SimTime at = 0;  // the end of the interval, when the instant figures were read
  double produced_records_per_s = 0;  // in batches the leaders acknowledged in the interval (as the report's throughput)
  double consumed_records_per_s = 0;  // returned by poll() and processed in the interval
  // Of the records acknowledged (polled) in the interval; none when there was none.
  std::optional<SimTime> produce_latency_p50, produce_latency_p99;
  std::optional<SimTime> end_to_end_latency_p50, end_to_end_latency_p99;
  // Records below each partition's last stable offset that its group (or
  // assigned consumer) has not processed yet, summed over groups and partitions.
  std::int64_t consumer_lag_records = 0;
  std::uint32_t unwritable_partitions = 0;  // cannot accept writes (availability_tracker.hpp)
  std::uint32_t unreadable_partitions = 0;  // cannot be read
  std::uint32_t offline_partitions = 0;     // the controller has no leader for them
  std::uint32_t under_replicated_partitions = 0;  // with a leader, and an ISR smaller than the replicas (the controller's)
};

class TimeSeriesTracker {
 public:
  // `availability` may be null (then no partition counts as unavailable).
  TimeSeriesTracker(SimTime interval, ClusterView cluster, const std::vector<Producer*>& producers,
                    const std::vector<Consumer*>& consumers, const ConsumptionHistory& consumption,
                    const AvailabilityTracker* availability);

  SimTime interval() const { return interval_; }
  SimTime next_sample() const { return next_; }
  // Reads the figures at `now` (== next_sample()), between two events.
  void sample(SimTime now);
  const std::vector<TimeSample>& samples() const { return samples_; }

 private:
  void lag_and_partitions(TimeSample& s);

  SimTime interval_;
  SimTime next_;
  ClusterView cluster_;
  const std::vector<Producer*>& producers_;
  const std::vector<Consumer*>& consumers_;
  const ConsumptionHistory& consumption_;
  const AvailabilityTracker* availability_;
  std::vector<TimeSample> samples_;
  std::uint64_t acked_ = 0, processed_ = 0;  // at the last sample
  Histogram produce_latency_, end_to_end_latency_;  // at the last sample
  std::size_t processed_seen_ = 0;  // consumption_.processed read so far
  // By reader (a group.id, or an assigned consumer's name) and partition: the end of what it processed.
  std::map<std::pair<std::string, TopicPartition>, Offset> processed_to_;
  std::vector<std::pair<std::string, TopicPartition>> read_;  // (reader, partition), made at the first sample
  std::map<TopicPartition, Offset> stable_;  // the last stable offset last seen on a leader
};

}  // namespace ksim::models
