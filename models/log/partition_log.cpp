#include "models/log/partition_log.hpp"

#include <algorithm>
#include <cassert>
#include <iterator>

namespace ksim::models {

namespace {

using BatchIt = std::vector<RecordBatch>::const_iterator;

// The first batch of [begin, end) that ends after `offset`: the one containing it, or the next one.
// Most reads are of the log's last few batches: those are looked at first.
BatchIt first_ending_after(BatchIt begin, BatchIt end, Offset offset) {
  const auto ends_after = [offset](const RecordBatch& b) { return b.next_offset() > offset; };
  auto it = end;
  for (int step = 0; step < 8 && it != begin && ends_after(*std::prev(it)); ++step) --it;
  if (it == begin || !ends_after(*std::prev(it))) return it;
  return std::upper_bound(begin, it, offset, [](Offset o, const RecordBatch& b) { return o < b.next_offset(); });
}

// Deleted batch slots are compacted away once they are at least this many and as many as the live ones.
constexpr std::size_t kCompactAfter = 64;

}  // namespace

std::string_view to_string(SegmentDeletion reason) {
  switch (reason) {
    case SegmentDeletion::RetentionMs: return "retention.ms";
    case SegmentDeletion::RetentionBytes: return "retention.bytes";
    case SegmentDeletion::LogStartOffset: return "log start offset";
  }
  return "?";
}

const RecordBatch& PartitionLog::append_as_leader(RecordBatch batch, Epoch epoch) {
  assert(epoch >= latest_epoch() && "a leader's epoch never goes back");
  batch.base_offset = log_end_offset();
  batch.leader_epoch = epoch;
  append_as_follower(batch);
  return batches_.back();
}

void PartitionLog::append_as_follower(const RecordBatch& batch) {
  // Contiguous, but for the gaps the leader's cleaner left in a compacted log (Kafka's appendAsFollower takes the offsets as they are).
  assert((batch.base_offset == log_end_offset() || (config().compact_enabled && batch.base_offset > log_end_offset())) &&
         "appends are contiguous");
  assert(batch.record_count > 0);
  if (should_roll(batch)) roll();
  assign_epoch(batch.leader_epoch, batch.base_offset);
  batches_.push_back(batch);
  log_end_offset_ = batch.next_offset();
  last_batch_epoch_ = batch.leader_epoch;
  size_bytes_ += batch.bytes;
  LogSegment& active = segments_.back();
  active.bytes += batch.bytes;
  if (active.first_timestamp < 0) active.first_timestamp = batch.create_time;
  active.largest_timestamp = std::max(active.largest_timestamp, batch.create_time);
}

// LogSegment.shouldRoll: the batch would take the active segment past
// segment.bytes, or the active segment is not empty and the batch's timestamp
// is segment.ms past its first batch's (timeWaitedForRoll; segment.jitter.ms is 0).
bool PartitionLog::should_roll(const RecordBatch& batch) const {
  const LogSegment& active = segments_.back();
  if (active.bytes == 0) return false;
  const LogConfig& c = config();
  const bool full = batch.bytes > c.segment_bytes || active.bytes > c.segment_bytes - batch.bytes;
  const bool old = active.first_timestamp >= 0 && batch.create_time - active.first_timestamp > c.segment_ms;
  return full || old;
}

// UnifiedLog.roll: a new, empty active segment at the log end offset.
void PartitionLog::roll() {
  if (segments_.back().bytes == 0 && segments_.back().base_offset == log_end_offset_) return;
  segments_.push_back({log_end_offset_, 0, -1, -1});
}

// As Kafka's LeaderEpochFileCache.assign: only a newer epoch starts a new entry.
void PartitionLog::assign_epoch(Epoch epoch, Offset start_offset) {
  assert(epoch >= 0 && start_offset >= 0);
  if (epoch <= latest_epoch_) return;
  epochs_.emplace_back(epoch, start_offset);
  latest_epoch_ = epoch;
}

std::span<const RecordBatch> PartitionLog::read(Offset offset, std::uint64_t max_bytes, Offset upper_bound) const {
  assert(offset >= log_start_offset() && offset <= log_end_offset());
  const BatchIt begin = batches_.begin() + static_cast<std::ptrdiff_t>(first_);
  // Like Kafka's log read, an offset inside a batch returns that whole batch.
  const BatchIt first = first_ending_after(begin, batches_.end(), offset);
  auto last = first;
  std::uint64_t total = 0;
  for (; last != batches_.end() && last->next_offset() <= upper_bound; ++last) {
    if (last != first && total + last->bytes > max_bytes) break;  // the first batch always goes
    total += last->bytes;
  }
  return {first, last};
}

const RecordBatch* PartitionLog::batch_at(Offset offset) const {
  const BatchIt begin = batches_.begin() + static_cast<std::ptrdiff_t>(first_);
  const BatchIt it = first_ending_after(begin, batches_.end(), offset);
  if (it == batches_.end() || it->base_offset > offset) return nullptr;
  return &*it;
}

// UnifiedLog.updateHighWatermark: never below the log start offset.
void PartitionLog::set_high_watermark(Offset hw) {
  assert(hw >= 0 && hw <= log_end_offset() && "HW <= LEO");
  high_watermark_ = std::max(hw, log_start_offset_);
}

void PartitionLog::truncate_to(Offset offset) {
  assert(offset >= 0);
  ++rewrites_;
  if (offset < log_start_offset_) {
    truncate_fully_and_start_at(offset);
    return;
  }
  // Keep only whole batches that end at or before `offset` (rounds down inside a batch).
  const BatchIt begin = batches_.begin() + static_cast<std::ptrdiff_t>(first_);
  const auto first_removed = batches_.begin() + (first_ending_after(begin, batches_.end(), offset) - batches_.cbegin());
  for (auto it = first_removed; it != batches_.end(); ++it) size_bytes_ -= it->bytes;
  batches_.erase(first_removed, batches_.end());
  log_end_offset_ = empty() ? log_start_offset_ : batches_.back().next_offset();
  last_batch_epoch_ = empty() ? -1 : batches_.back().leader_epoch;

  const Offset leo = log_end_offset_;
  // LocalLog.truncateTo: segments starting past the new end go, the last one left is cut.
  while (segments_.size() > 1 && segments_.back().base_offset >= leo) segments_.pop_back();
  recompute_last_segment();
  // As LeaderEpochFileCache.truncateFromEnd: entries starting at or after the new LEO go.
  std::erase_if(epochs_, [leo](const auto& entry) { return entry.second >= leo; });
  latest_epoch_ = epochs_.empty() ? -1 : epochs_.back().first;
  high_watermark_ = std::min(high_watermark_, leo);
  flushed_offset_ = std::min(flushed_offset_, leo);
  first_dirty_offset_ = std::min(first_dirty_offset_, leo);  // LogCleanerManager.maybeTruncateCheckpoint
}

// The last segment's size and timestamps from its batches (after a truncation).
void PartitionLog::recompute_last_segment() {
  LogSegment& last = segments_.back();
  if (last.base_offset > log_end_offset_) last.base_offset = log_end_offset_;
  last.bytes = 0;
  last.first_timestamp = last.largest_timestamp = -1;
  const BatchIt begin = batches_.begin() + static_cast<std::ptrdiff_t>(first_);
  for (auto it = first_ending_after(begin, batches_.end(), last.base_offset); it != batches_.end(); ++it) {
    last.bytes += it->bytes;
    if (last.first_timestamp < 0) last.first_timestamp = it->create_time;
    last.largest_timestamp = std::max(last.largest_timestamp, it->create_time);
  }
}

std::uint64_t PartitionLog::truncate_fully_and_start_at(Offset offset) {
  assert(offset >= 0);
  const std::uint64_t removed = size_bytes_;
  ++rewrites_;
  batches_.clear();
  batches_.shrink_to_fit();
  first_ = 0;
  segments_.assign(1, LogSegment{offset, 0, -1, -1});
  epochs_.clear();  // LeaderEpochFileCache.clearAndFlush
  latest_epoch_ = last_batch_epoch_ = -1;
  log_start_offset_ = log_end_offset_ = high_watermark_ = flushed_offset_ = first_dirty_offset_ = offset;
  size_bytes_ = 0;
  return removed;
}

// UnifiedLog.deleteOldSegments (cleanup.policy=delete): the log start offset
// breaches first, then retention.bytes, then retention.ms. With
// cleanup.policy=compact only the first (the cleaner compacts: log_cleaner.cpp).
std::vector<DeletedSegments> PartitionLog::delete_old_segments(SimTime now, Offset highest_remote_offset) {
  std::vector<DeletedSegments> passes;
  const auto keep = [&passes](DeletedSegments d) {
    if (d.segments > 0) passes.push_back(std::move(d));
  };
  // deleteLogStartOffsetBreachedSegments: the next segment starts at or below the log start offset.
  keep(delete_segments([this](const LogSegment&, const LogSegment* next) {
    return next && next->base_offset <= log_start_offset_;
  }, SegmentDeletion::LogStartOffset));
  const LogConfig& c = config();
  if (!c.delete_enabled) return passes;
  const bool tiered = c.remote_storage_enable;
  const Offset copied = tiered ? highest_remote_offset : INT64_MAX;
  const std::int64_t retention_bytes = c.effective_local_retention_bytes();
  const SimTime retention_ms = c.effective_local_retention_ms();
  if (retention_bytes >= 0 && size_bytes_ >= static_cast<std::uint64_t>(retention_bytes)) {
    // deleteRetentionSizeBreachedSegments: oldest first while the log stays at or over retention.bytes without it.
    std::uint64_t diff = size_bytes_ - static_cast<std::uint64_t>(retention_bytes);
    keep(delete_segments([&diff](const LogSegment& s, const LogSegment*) {
      if (s.bytes > diff) return false;
      diff -= s.bytes;
      return true;
    }, SegmentDeletion::RetentionBytes, copied));
  }
  if (retention_ms != kNever) {
    // deleteRetentionMsBreachedSegments: startMs - segment.largestTimestamp > retentionMs.
    const auto expired = [&](const LogSegment& s) { return s.largest_timestamp >= 0 && now - s.largest_timestamp > retention_ms; };
    keep(delete_segments([&](const LogSegment& s, const LogSegment*) { return expired(s); }, SegmentDeletion::RetentionMs, copied));
    // UnifiedLog.deletableSegments' shouldRoll: under tiered storage an active
    // segment past retention is rolled, so that it can be copied, then deleted.
    const LogSegment& active = segments_.back();
    if (tiered && active.bytes > 0 && high_watermark_ >= log_end_offset_ && expired(active)) {
      roll();
    }
  }
  return passes;
}

// UnifiedLog.deletableSegments and deleteSegments: from the oldest segment
// while the predicate holds and the segment ends at or below the HW (so the
// log start offset never passes it); an empty last segment never goes. When
// every segment goes, an empty one is rolled at the LEO first.
template <typename Predicate>
DeletedSegments PartitionLog::delete_segments(Predicate deletable, SegmentDeletion reason, Offset highest_remote_offset) {
  DeletedSegments result;
  result.reason = reason;
  result.log_start_before = result.log_start_after = log_start_offset_;
  std::size_t count = 0;
  for (; count < segments_.size(); ++count) {
    const LogSegment& s = segments_[count];
    const LogSegment* next = count + 1 < segments_.size() ? &segments_[count + 1] : nullptr;
    const Offset upper = next ? next->base_offset : log_end_offset_;
    if (!next && s.bytes == 0) break;  // isLastSegmentAndEmpty
    if (high_watermark_ < upper || !deletable(s, next)) break;
    // Tiered storage: only a segment remote storage holds to its end.
    if (highest_remote_offset != INT64_MAX && upper - 1 > highest_remote_offset) break;
  }
  if (count == 0) return result;
  ++rewrites_;
  if (count == segments_.size()) roll();  // the active segment goes too: a new one first
  for (std::size_t i = 0; i < count; ++i) result.bytes += segments_[i].bytes;
  segments_.erase(segments_.begin(), segments_.begin() + static_cast<std::ptrdiff_t>(count));
  result.segments = static_cast<int>(count);
  size_bytes_ -= result.bytes;
  log_start_offset_ = std::max(log_start_offset_, segments_.front().base_offset);
  drop_batches_below(log_start_offset_, &result.batches);
  result.log_start_after = log_start_offset_;
  // LeaderEpochFileCache.truncateFromStart: the epoch in force at the new start now starts there.
  const Offset start = log_start_offset_;
  auto in_force = std::upper_bound(epochs_.begin(), epochs_.end(), start,
                                   [](Offset o, const auto& entry) { return o < entry.second; });
  if (in_force != epochs_.begin()) {
    std::prev(in_force)->second = start;
    epochs_.erase(epochs_.begin(), std::prev(in_force));
  }
  flushed_offset_ = std::max(flushed_offset_, std::min(start, log_end_offset_));
  return result;
}

// The batches wholly below `offset` leave the log; their slots are freed once they are many.
void PartitionLog::drop_batches_below(Offset offset, std::vector<RecordBatch>* deleted) {
  while (first_ < batches_.size() && batches_[first_].next_offset() <= offset) {
    if (deleted) deleted->push_back(batches_[first_]);
    ++first_;
  }
  const std::size_t live = batches_.size() - first_;
  if (first_ >= kCompactAfter && first_ >= live) {
    std::vector<RecordBatch> kept;
    kept.reserve(std::max(live * 2, kCompactAfter));
    kept.insert(kept.end(), batches_.begin() + static_cast<std::ptrdiff_t>(first_), batches_.end());
    batches_ = std::move(kept);
    first_ = 0;
  }
}

bool PartitionLog::maybe_increment_log_start_offset(Offset offset) {
  const Offset capped = std::min(offset, high_watermark_);
  if (capped <= log_start_offset_) return false;
  ++rewrites_;
  log_start_offset_ = capped;
  return true;
}

// KIP-101 / KIP-279, after Kafka's LeaderEpochFileCache.endOffsetFor, with two differences:
// - an epoch older than the first cached one gives nullopt (Kafka 0.11's UNDEFINED_EPOCH_OFFSET;
//   Kafka >= 2.0 answers (requested epoch, start of the first epoch) instead);
// - an epoch newer than the latest gives (latest, LEO), which is what Kafka answers once the
//   leader has assigned its own epoch at the LEO on election; ksim assigns epochs only on append.
std::optional<EpochEndOffset> PartitionLog::end_offset_for_epoch(Epoch epoch) const {
  if (epochs_.empty()) return std::nullopt;
  if (epoch == latest_epoch()) return EpochEndOffset{epoch, log_end_offset()};
  auto higher = std::upper_bound(epochs_.begin(), epochs_.end(), epoch,
                                 [](Epoch e, const auto& entry) { return e < entry.first; });
  if (higher == epochs_.begin()) return std::nullopt;
  const Offset end = higher == epochs_.end() ? log_end_offset() : higher->second;
  return EpochEndOffset{std::prev(higher)->first, end};
}

void PartitionLog::restore_epochs(std::vector<std::pair<Epoch, Offset>> epochs) {
  assert(empty() && std::is_sorted(epochs.begin(), epochs.end()));
  epochs_ = std::move(epochs);
  latest_epoch_ = epochs_.empty() ? -1 : epochs_.back().first;
}

std::int64_t PartitionLog::unflushed_records() const {
  return log_end_offset() - flushed_offset_;
}

void PartitionLog::mark_flushed(Offset offset) {
  assert(offset >= 0);
  flushed_offset_ = std::max(flushed_offset_, std::min(offset, log_end_offset()));
}

void PartitionLog::lose_unflushed() {
  truncate_to(flushed_offset_);
}

}  // namespace ksim::models
