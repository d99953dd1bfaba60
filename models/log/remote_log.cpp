#include "models/log/remote_log.hpp"

#include <algorithm>
#include <cassert>

namespace ksim::models {

void RemotePartitionLog::add(RemoteLogSegment segment) {
  // A new leader copies from the segment holding the offset after the highest
  // copied: its segments need not end where the old leader's did, so remote
  // segments may overlap (RLMCopyTask.candidateLogSegments); they end in order.
  assert(segment.end_offset > highest_offset_ && segment.base_offset <= segment.end_offset);
  highest_offset_ = segment.end_offset;
  size_bytes_ += segment.bytes;
  segments_.push_back(std::move(segment));
}

const RemoteLogSegment* RemotePartitionLog::segment_containing(Offset offset) const {
  const auto it = std::partition_point(segments_.begin(), segments_.end(),
                                       [&](const RemoteLogSegment& s) { return s.end_offset < offset; });
  if (it == segments_.end() || it->base_offset > offset || offset < log_start_offset_) return nullptr;
  return &*it;
}

std::span<const RecordBatch> RemotePartitionLog::read(Offset offset, std::uint64_t max_bytes) const {
  const RemoteLogSegment* segment = segment_containing(offset);
  if (!segment) return {};
  const auto& batches = segment->batches;
  const auto first = std::partition_point(batches.begin(), batches.end(),
                                          [&](const RecordBatch& b) { return b.next_offset() <= offset; });
  auto last = first;
  std::uint64_t total = 0;
  for (; last != batches.end(); ++last) {
    if (last != first && total + last->bytes > max_bytes) break;  // the first batch always goes (minOneMessage)
    total += last->bytes;
  }
  return {first, last};
}

std::vector<RecordBatch> RemotePartitionLog::batches_between(Offset from, Offset to) const {
  std::vector<RecordBatch> out;
  Offset covered = from;  // overlapping segments hold some batches twice: each goes once
  for (const RemoteLogSegment& s : segments_) {
    if (s.end_offset < covered || s.base_offset >= to) continue;
    for (const RecordBatch& b : s.batches) {
      if (b.base_offset < to && b.next_offset() > covered && (out.empty() || b.base_offset >= out.back().next_offset())) {
        out.push_back(b);
        covered = b.next_offset();
      }
    }
  }
  return out;
}

// RemoteLogRetentionHandler: a segment breaches retention.ms by its largest
// timestamp, retention.bytes while the breached size left covers it; deletion
// stops at the first segment that breaches neither.
std::vector<RemoteLogSegment> RemotePartitionLog::expire(SimTime now, SimTime retention_ms, std::int64_t retention_bytes,
                                                         std::uint64_t local_only_bytes) {
  const std::uint64_t total = size_bytes_ + local_only_bytes;
  std::uint64_t breached =
      retention_bytes >= 0 && total > static_cast<std::uint64_t>(retention_bytes) ? total - static_cast<std::uint64_t>(retention_bytes) : 0;
  std::size_t n = 0;
  for (; n < segments_.size(); ++n) {
    const RemoteLogSegment& s = segments_[n];
    if (retention_ms >= 0 && retention_ms != kNever && s.largest_timestamp <= now - retention_ms) {
      breached = breached > s.bytes ? breached - s.bytes : 0;
    } else if (breached >= s.bytes && breached > 0) {
      breached -= s.bytes;
    } else {
      break;
    }
  }
  std::vector<RemoteLogSegment> deleted(std::make_move_iterator(segments_.begin()),
                                        std::make_move_iterator(segments_.begin() + static_cast<std::ptrdiff_t>(n)));
  segments_.erase(segments_.begin(), segments_.begin() + static_cast<std::ptrdiff_t>(n));
  for (const RemoteLogSegment& s : deleted) {
    size_bytes_ -= s.bytes;
    log_start_offset_ = std::max(log_start_offset_, s.end_offset + 1);
  }
  return deleted;
}

const RemotePartitionLog* RemoteStorage::find(TopicPartition tp) const {
  const auto it = logs_.find(tp);
  return it == logs_.end() ? nullptr : &it->second;
}

Offset RemoteStorage::log_start_offset(TopicPartition tp) const {
  const RemotePartitionLog* log = find(tp);
  return log ? log->log_start_offset() : 0;
}

Offset RemoteStorage::highest_offset(TopicPartition tp) const {
  const RemotePartitionLog* log = find(tp);
  return log ? log->highest_offset() : -1;
}

std::uint64_t RemoteStorage::size_bytes() const {
  std::uint64_t total = 0;
  for (const auto& [tp, log] : logs_) total += log.size_bytes();
  return total;
}

}  // namespace ksim::models
