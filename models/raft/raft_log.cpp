#include "models/raft/raft_log.hpp"

#include <algorithm>
#include <cassert>

namespace ksim::models {

const RaftEntry& RaftLog::at(Offset offset) const {
  assert(offset >= 0 && offset < end_offset());
  return entries_[static_cast<std::size_t>(offset)];
}

Offset RaftLog::append_batch(Epoch epoch, std::span<const RaftRecordPtr> records) {
  assert(!records.empty());
  assert(epoch >= last_epoch() && "a leader appends in its own epoch, never below the log's");
  if (epoch_starts_.empty() || epoch_starts_.back().first != epoch) epoch_starts_.emplace_back(epoch, end_offset());
  for (std::size_t i = 0; i < records.size(); ++i) {
    assert(records[i] && "a record is never null");
    entries_.push_back({end_offset(), epoch, records[i], i + 1 == records.size()});
  }
  return end_offset() - 1;
}

void RaftLog::append_entries(std::span<const RaftEntry> entries) {
  for (const RaftEntry& entry : entries) {
    assert(entry.offset == end_offset() && "a follower appends right after its end");
    assert(entry.epoch >= last_epoch());
    if (epoch_starts_.empty() || epoch_starts_.back().first != entry.epoch) {
      epoch_starts_.emplace_back(entry.epoch, entry.offset);
    }
    entries_.push_back(entry);
  }
  assert(entries_.empty() || entries_.back().batch_end);
}

std::vector<RaftEntry> RaftLog::read(Offset offset, std::uint64_t max_bytes) const {
  assert(offset >= 0 && offset <= end_offset());
  assert((offset == 0 || at(offset - 1).batch_end) && "fetches start at a batch boundary");
  std::vector<RaftEntry> out;
  std::uint64_t bytes = 0;
  for (Offset o = offset; o < end_offset(); ++o) {
    const RaftEntry& entry = at(o);
    out.push_back(entry);
    bytes += entry.record->size_bytes();
    if (entry.batch_end && bytes >= max_bytes) break;
  }
  return out;
}

// MockLog.lastOffsetAndEpochFiltered(epochStartOffset.epoch <= epoch).
EpochEndOffset RaftLog::end_offset_for_epoch(Epoch epoch) const {
  Epoch lower_bound = 0;
  for (const auto& [start_epoch, start_offset] : epoch_starts_) {
    if (start_epoch > epoch) return {lower_bound, start_offset};
    lower_bound = start_epoch;
  }
  return {last_epoch(), end_offset()};
}

std::optional<EpochEndOffset> RaftLog::diverging_epoch(Offset fetch_offset, Epoch last_fetched_epoch) const {
  if (fetch_offset == 0) return std::nullopt;  // an empty log matches any
  const EpochEndOffset end = end_offset_for_epoch(last_fetched_epoch);
  if (end.epoch != last_fetched_epoch || end.end_offset < fetch_offset) return end;
  return std::nullopt;
}

Offset RaftLog::truncate_to_end_offset(EpochEndOffset leader_end) {
  Offset truncation = 0;
  if (leader_end.epoch == 0) {
    truncation = std::min(leader_end.end_offset, end_offset());
  } else {
    const EpochEndOffset local = end_offset_for_epoch(leader_end.epoch);
    truncation = local.epoch == leader_end.epoch ? std::min(local.end_offset, leader_end.end_offset) : local.end_offset;
  }
  truncate_to(truncation);
  return truncation;
}

void RaftLog::truncate_to(Offset offset) {
  assert(offset >= 0);
  if (offset >= end_offset()) return;
  entries_.resize(static_cast<std::size_t>(offset));
  while (!epoch_starts_.empty() && epoch_starts_.back().second >= offset) epoch_starts_.pop_back();
  flushed_end_ = std::min(flushed_end_, offset);
  assert((entries_.empty() || entries_.back().batch_end) && "truncation falls between batches");
}

void RaftLog::flushed(Offset end) { flushed_end_ = std::max(flushed_end_, std::min(end, end_offset())); }

}  // namespace ksim::models
