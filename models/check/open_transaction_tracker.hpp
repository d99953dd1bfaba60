#pragma once
// Transactions open on a partition, as its leader sees them (holding the last
// stable offset back, KIP-98), sampled every 100ms of simulated time: which
// stayed open longer than a threshold (hanging, KIP-890's subject), and the
// largest gap between a high watermark and its last stable offset.
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "models/broker/broker.hpp"

namespace ksim::models {

struct OpenTransaction {
  TopicPartition partition;
  ProducerId producer_id = kNoProducerId;
  Offset first_offset = 0;
  SimTime since = 0;
};

class OpenTransactionTracker {
 public:
  static constexpr SimTime kPeriod = milliseconds(100);
  explicit OpenTransactionTracker(std::set<std::int32_t> internal_topics) : internal_(std::move(internal_topics)) {}
  void sample(const std::vector<Broker*>& brokers, SimTime now);
  // Those open at `now` for longer than `threshold`.
  std::vector<OpenTransaction> hanging(SimTime threshold, SimTime now) const;
  std::int64_t max_lso_lag() const { return max_lso_lag_; }

 private:
  std::set<std::int32_t> internal_;
  std::map<TopicPartition, std::map<ProducerId, OpenTransaction>> open_;
  std::int64_t max_lso_lag_ = 0;
};

}  // namespace ksim::models
