#include "models/check/compaction_checker.hpp"

#include <map>
#include <set>

#include "models/check/consumption_checker.hpp"
#include "models/protocol/record_keys.hpp"

namespace ksim::models {

namespace {

struct LatestWrite {
  Offset offset = -1;
  bool tombstone = false;
  bool removed = false;  // the cleaner removed it from the final leader's log
};

// The latest committed write of each key of each partition of `topic` (every topic: -1),
// from the final leaders' logs and what the cleaner removed from them.
std::map<std::pair<TopicPartition, std::int64_t>, LatestWrite> latest_writes(const FinalLogs& logs, std::int32_t topic) {
  std::map<std::pair<TopicPartition, std::int64_t>, LatestWrite> latest;
  const auto add = [&](const std::map<TopicPartition, std::vector<RecordBatch>>& from, bool removed) {
    for (const auto& [tp, batches] : from) {
      if (topic >= 0 && tp.topic != topic) continue;
      for (const RecordBatch& b : batches) {
        if (b.is_control()) continue;
        for (std::int32_t i = 0; i < b.record_count; ++i) {
          const RecordKey key = logs.keys->of(b, tp, i);
          if (key.key < 0) continue;
          LatestWrite& w = latest[{tp, key.key}];
          const Offset offset = b.base_offset + i;
          if (offset > w.offset) w = {offset, key.tombstone, removed};
        }
      }
    }
  };
  add(logs.committed, false);
  add(logs.compacted, true);
  return latest;
}

}  // namespace

CompactionReport check_compaction(const FinalLogs& logs, const CompactionHistory& history) {
  CompactionReport r;
  r.cleanings = history.cleanings;
  r.bytes_before = history.bytes_before;
  r.bytes_after = history.bytes_after;
  r.records_removed = history.records_removed;
  r.tombstones_removed = history.tombstones_removed;
  r.map_full_cleanings = history.map_full_cleanings;
  r.aborted_cleanings = history.aborted_cleanings;
  r.internal_cleanings = history.internal_cleanings;
  r.internal_records_removed = history.internal_records_removed;
  for (const auto& [tp, removed] : logs.compacted) r.compacted += removed.size();
  if (!logs.keys) {
    r.vacuous = "no compacted topic";
    return r;
  }
  for (const auto& [key, write] : latest_writes(logs, -1)) {
    ++r.keys;
    r.tombstone_keys += write.tombstone ? 1 : 0;
    // A tombstone goes once delete.retention.ms has passed since its segment was cleaned; a value never does.
    r.latest_removed += write.removed && !write.tombstone ? 1 : 0;
  }
  if (r.cleanings == 0) r.vacuous = "nothing cleaned";
  return r;
}

// Each key's final view by the group: the record of the highest offset of
// that key any member processed (a consumer reads a partition in offset
// order, so the last it saw of a key). Right when it is the latest write, or
// when the latest write is a tombstone and the view is a tombstone or nothing.
void check_key_views(const ConsumptionHistory& history, const FinalLogs& logs, const ConsumerGroupSpec& group,
                     ConsumptionReport& report) {
  const auto latest = latest_writes(logs, group.topic);
  if (latest.empty()) return;
  std::set<std::uint32_t> members(group.consumers.begin(), group.consumers.end());
  std::map<std::pair<TopicPartition, std::int64_t>, std::pair<Offset, bool>> seen;  // (offset, tombstone)
  for (const ProcessedRecord& run : history.processed) {
    if (run.partition.topic != group.topic || !members.contains(run.consumer)) continue;
    for (std::uint32_t i = 0; i < run.count; ++i) {
      const RecordKey key = logs.keys->at(run.writer, run.partition, run.record + i);
      if (key.key < 0) continue;
      auto [it, fresh] = seen.try_emplace({run.partition, key.key}, run.offset + i, key.tombstone);
      if (!fresh && run.offset + i > it->second.first) it->second = {run.offset + i, key.tombstone};
    }
  }
  for (const auto& [key, write] : latest) {
    ++report.keys_checked;
    const auto view = seen.find(key);
    const bool right = write.tombstone ? view == seen.end() || view->second.second
                                       : view != seen.end() && view->second.first == write.offset;
    if (right) continue;
    ++report.stale_keys;
    // Missed, not merely not reached yet: the cleaner removed the tombstone before the group read it.
    if (write.tombstone && write.removed) ++report.tombstones_missed;
  }
}

}  // namespace ksim::models
