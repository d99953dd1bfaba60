#pragma once
// What retention deleted from the partitions' logs during a run
// (UnifiedLog.deleteOldSegments on any replica), each offset once, so the
// checkers can tell records deleted by retention (committed, then expired)
// from records Kafka lost. Kept small, as it grows with every batch deleted:
// per deleted data batch only its offsets and which records it held (24
// bytes, not the 64 of a RecordBatch); markers only move the end.
#include <cstdint>
#include <map>
#include <vector>

#include "models/protocol/kafka_types.hpp"

namespace ksim::models {

struct RetentionHistory {
  // A deleted batch of workload records: `record_count` offsets from
  // `base_offset`, the records `first_record`... of producer `writer`.
  struct DeletedBatch {
    Offset base_offset = 0;
    std::uint64_t first_record = 0;
    std::uint32_t writer = 0;
    std::int32_t record_count = 0;
    Offset next_offset() const { return base_offset + record_count; }
  };
  struct Deleted {
    Offset end = -1;  // the next offset after the last batch deleted, markers included (-1: none yet)
    std::vector<DeletedBatch> batches;  // in offset order, each offset once
  };
  std::map<TopicPartition, Deleted> deleted;

  // Replicas delete the same committed batches: a batch below the end of
  // what was deleted before is not counted again.
  void segments_deleted(TopicPartition tp, const std::vector<RecordBatch>& batches);

  // The data batches deleted wholly below `log_start` (the final leader's log
  // start offset), in offset order, as batches with their offsets, writer and
  // record numbers (the rest left at its defaults: the checkers read no more).
  std::vector<RecordBatch> expired_below(TopicPartition tp, Offset log_start) const;
};

}  // namespace ksim::models
