#pragma once
// A replication throttle's byte rate (KIP-73, ReplicationQuotaManager): the
// bytes of throttled replicas a broker has sent, measured as Kafka's Rate
// over replication.quota.window.num (11) samples of
// replication.quota.window.size.seconds (1 s), and whether they exceed
// the throttled rate. Kafka's Rate divides by at least the full windows
// but one (10 s), so a throttle allows a burst of about ten seconds' worth
// before it holds the rate.
#include <cstdint>
#include <deque>

#include "sim/events/time.hpp"

namespace ksim::models {

class ReplicationQuota {
 public:
  static constexpr int kSamples = 11;           // replication.quota.window.num
  static constexpr SimTime kWindow = seconds(1);  // replication.quota.window.size.seconds

  void set_rate(double bytes_per_s) { rate_ = bytes_per_s; }
  bool enabled() const { return rate_ > 0; }
  void record(std::uint64_t bytes, SimTime now);
  double measured(SimTime now);  // bytes per second
  bool exceeded(SimTime now) { return enabled() && measured(now) > rate_; }

 private:
  struct Sample {
    SimTime start;
    std::uint64_t bytes;
  };
  void purge(SimTime now);
  double rate_ = 0;  // 0: not throttled (Long.MAX_VALUE, the default)
  std::deque<Sample> samples_;
};

}  // namespace ksim::models
