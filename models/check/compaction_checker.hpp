#pragma once
// What compaction did and what it may not do (cleanup.policy=compact): the
// cleaner's totals over every replica, and the check that it never removed
// the latest record of a key (Kafka's promise: "log compaction ensures that
// Kafka will always retain at least the last known value for each message
// key", docs/design.html#compaction). The groups' views of the keys are in
// the consumption report (check_key_views).
#include <cstdint>
#include <string>

#include "models/history/compaction_history.hpp"
#include "models/history/delivery_history.hpp"

namespace ksim::models {

struct CompactionReport {
  std::uint64_t cleanings = 0;           // logs cleaned, every replica's
  std::uint64_t bytes_before = 0;        // of the segments the cleanings rewrote
  std::uint64_t bytes_after = 0;
  std::uint64_t records_removed = 0;     // every replica's removals
  std::uint64_t tombstones_removed = 0;
  std::uint64_t map_full_cleanings = 0;  // cleanings the offset map cut short (log.cleaner.dedupe.buffer.size)
  std::uint64_t aborted_cleanings = 0;   // cleanings whose result was dropped: the log changed meanwhile
  std::uint64_t internal_cleanings = 0;        // of __consumer_offsets and __transaction_state, every replica's
  std::uint64_t internal_records_removed = 0;  // the coordinators' records they removed
  std::uint64_t compacted = 0;           // committed records removed from the final leaders' logs
  std::uint64_t keys = 0;                // keys with a committed write, by partition
  std::uint64_t tombstone_keys = 0;      // of which the latest write is a tombstone
  std::uint64_t latest_removed = 0;      // keys whose latest committed write, a value, is gone from the final leader's log
  std::string vacuous;                   // "no compacted topic", "nothing cleaned"; "" when something was
};

CompactionReport check_compaction(const FinalLogs& logs, const CompactionHistory& history);

}  // namespace ksim::models
