#pragma once
// What retention deleted from the partitions' logs during a run
// (UnifiedLog.deleteOldSegments on any replica): the batches, each offset
// once, so the checkers can tell records deleted by retention (committed,
// then expired) from records Kafka lost.
#include <map>
#include <vector>

#include "models/protocol/kafka_types.hpp"

namespace ksim::models {

struct RetentionHistory {
  // By partition, in offset order, each offset once (replicas delete the same committed batches).
  std::map<TopicPartition, std::vector<RecordBatch>> deleted;

  void segments_deleted(TopicPartition tp, const std::vector<RecordBatch>& batches) {
    auto& kept = deleted[tp];
    for (const RecordBatch& b : batches) {
      if (kept.empty() || b.base_offset >= kept.back().next_offset()) kept.push_back(b);
    }
  }
};

}  // namespace ksim::models
