#pragma once
// What the log cleaner did during a run (Cleaner.doClean on any replica):
// the records it removed, each offset once (replicas compact the same
// committed records, each its own log), so the checkers can tell records
// compaction superseded from records Kafka lost; and its totals over every
// replica's cleanings (Kafka's CleanerStats, summed).
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "models/protocol/kafka_types.hpp"

namespace ksim::models {

struct CompactionHistory {
  struct Removed {
    std::uint32_t writer = 0;
    std::uint64_t record = 0;
  };
  // By partition and offset: the records some replica's cleaner removed.
  std::map<TopicPartition, std::map<Offset, Removed>> removed;
  std::uint64_t cleanings = 0;
  std::uint64_t bytes_before = 0;  // of the segments rewritten
  std::uint64_t bytes_after = 0;
  std::uint64_t records_removed = 0;  // every replica's, each removal counted
  std::uint64_t tombstones_removed = 0;
  std::uint64_t map_full_cleanings = 0;  // cleanings that stopped where the offset map was full
  std::uint64_t aborted_cleanings = 0;   // the log changed while it was cleaned: its segments kept (LogCleanerManager.abortCleaning)
  // __consumer_offsets and __transaction_state: their cleanings and the coordinator records they removed.
  std::uint64_t internal_cleanings = 0;
  std::uint64_t internal_records_removed = 0;

  void cleaned(TopicPartition tp, const std::vector<RecordBatch>& runs) {
    auto& kept = removed[tp];
    for (const RecordBatch& b : runs) {
      for (std::int32_t i = 0; i < b.record_count; ++i) {
        kept.try_emplace(b.base_offset + i, Removed{b.writer, b.first_record + static_cast<std::uint64_t>(i)});
      }
    }
  }
};

}  // namespace ksim::models
