#include "models/history/retention_history.hpp"

namespace ksim::models {

void RetentionHistory::segments_deleted(TopicPartition tp, const std::vector<RecordBatch>& batches) {
  Deleted& kept = deleted[tp];
  for (const RecordBatch& b : batches) {
    if (kept.end >= 0 && b.base_offset < kept.end) continue;
    kept.end = b.next_offset();
    if (b.is_control()) continue;
    kept.batches.push_back({b.base_offset, b.first_record, b.writer, b.record_count});
  }
}

std::vector<RecordBatch> RetentionHistory::expired_below(TopicPartition tp, Offset log_start) const {
  std::vector<RecordBatch> expired;
  const auto it = deleted.find(tp);
  if (it == deleted.end()) return expired;
  for (const DeletedBatch& d : it->second.batches) {
    if (d.next_offset() > log_start) break;
    RecordBatch b;
    b.base_offset = d.base_offset;
    b.record_count = d.record_count;
    b.writer = d.writer;
    b.first_record = d.first_record;
    expired.push_back(b);
  }
  return expired;
}

}  // namespace ksim::models
