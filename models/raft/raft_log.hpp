#pragma once
// A replica's copy of the metadata log (ReplicatedLog, as Kafka's MockLog
// has it): entries from offset 0 (no snapshots), the epoch each leader epoch
// starts at (the leader epoch cache), and how much of it reached stable
// storage. Appends land in the page cache; an fsync (flushed()) makes a
// prefix durable. A process crash keeps the whole log (the OS has it); a
// power loss (lose_unflushed()) keeps only the flushed prefix
// (MockLog.reopen). Truncations are durable.
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "models/raft/raft_record.hpp"

namespace ksim::models {

class RaftLog {
 public:
  Offset end_offset() const { return static_cast<Offset>(entries_.size()); }
  // The epoch of the last entry, 0 when empty (ReplicatedLog.lastFetchedEpoch).
  Epoch last_epoch() const { return epoch_starts_.empty() ? 0 : epoch_starts_.back().first; }
  Offset flushed_end_offset() const { return flushed_end_; }
  const RaftEntry& at(Offset offset) const;
  const std::vector<RaftEntry>& entries() const { return entries_; }

  // The leader's append: `records` as one batch at the end, in `epoch`. Returns the last offset.
  Offset append_batch(Epoch epoch, std::span<const RaftRecordPtr> records);
  // A follower's append of what the leader sent: entries starting at end_offset().
  void append_entries(std::span<const RaftEntry> entries);
  // Whole batches from `offset`, up to `max_bytes` (at least one batch): a fetch's records.
  std::vector<RaftEntry> read(Offset offset, std::uint64_t max_bytes) const;

  // Where `epoch` ends here: the start of the first larger epoch and the
  // largest epoch not above `epoch`; the end offset and last epoch when no
  // epoch is larger (ReplicatedLog.endOffsetForEpoch, as MockLog).
  EpochEndOffset end_offset_for_epoch(Epoch epoch) const;
  // ReplicatedLog.validateOffsetAndEpoch: none when a fetch at `fetch_offset`
  // whose last entry has `last_fetched_epoch` matches this log; otherwise where
  // the fetcher's log diverges (the largest valid offset and epoch).
  std::optional<EpochEndOffset> diverging_epoch(Offset fetch_offset, Epoch last_fetched_epoch) const;
  // ReplicatedLog.truncateToEndOffset: truncates to where the leader's epoch
  // ends, or to where this log's own largest epoch not above it ends. Returns the new end.
  Offset truncate_to_end_offset(EpochEndOffset leader_end);
  void truncate_to(Offset offset);

  // An fsync begun when the log ended at `end` completed: that prefix is durable.
  void flushed(Offset end);
  // A power loss: what no fsync reached is gone.
  void lose_unflushed() { truncate_to(flushed_end_); }

 private:
  std::vector<RaftEntry> entries_;
  std::vector<std::pair<Epoch, Offset>> epoch_starts_;  // (epoch, its first offset), ascending
  Offset flushed_end_ = 0;
};

}  // namespace ksim::models
