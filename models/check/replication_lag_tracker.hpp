#pragma once
// The largest gap between a leader's log end and a running follower's, in
// records, as sampled (every second of simulated time).
#include <cstdint>
#include <vector>

#include "models/broker/broker.hpp"

namespace ksim::models {

class ReplicationLagTracker {
 public:
  static constexpr SimTime kPeriod = seconds(1);
  void sample(const std::vector<Broker*>& brokers);
  std::int64_t max_lag_records() const { return max_lag_; }

 private:
  std::int64_t max_lag_ = 0;
};

}  // namespace ksim::models
