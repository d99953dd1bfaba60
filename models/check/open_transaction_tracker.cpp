#include "models/check/open_transaction_tracker.hpp"

#include <algorithm>

namespace ksim::models {

void OpenTransactionTracker::sample(const std::vector<Broker*>& brokers, SimTime now) {
  for (const Broker* leader : brokers) {
    for (const TopicPartition tp : leader->hosted_partitions()) {
      if (internal_.contains(tp.topic) || !leader->is_leader(tp)) continue;
      const auto open = leader->open_transactions(tp);
      max_lso_lag_ = std::max(max_lso_lag_, leader->log(tp)->high_watermark() - leader->last_stable_offset(tp));
      auto& known = open_[tp];
      std::erase_if(known, [&](const auto& entry) {
        const auto it = open.find(entry.first);
        return it == open.end() || it->second != entry.second.first_offset;
      });
      for (const auto& [producer, first] : open) known.try_emplace(producer, OpenTransaction{tp, producer, first, now});
    }
  }
}

std::vector<OpenTransaction> OpenTransactionTracker::hanging(SimTime threshold, SimTime now) const {
  std::vector<OpenTransaction> hanging;
  for (const auto& [tp, open] : open_) {
    for (const auto& [producer, txn] : open) {
      if (now - txn.since > threshold) hanging.push_back(txn);
    }
  }
  return hanging;
}

}  // namespace ksim::models
