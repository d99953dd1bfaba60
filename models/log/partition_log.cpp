#include "models/log/partition_log.hpp"

#include <algorithm>
#include <cassert>
#include <iterator>

namespace ksim::models {

namespace {

// The first batch that ends after `offset`: the one containing it, or the next one.
// Most reads are of the log's last few batches: those are looked at first.
auto first_ending_after(const std::vector<RecordBatch>& batches, Offset offset) {
  const auto ends_after = [offset](const RecordBatch& b) { return b.next_offset() > offset; };
  auto it = batches.end();
  for (int step = 0; step < 8 && it != batches.begin() && ends_after(*std::prev(it)); ++step) --it;
  if (it == batches.begin() || !ends_after(*std::prev(it))) return it;
  return std::upper_bound(batches.begin(), it, offset, [](Offset o, const RecordBatch& b) { return o < b.next_offset(); });
}

}  // namespace

const RecordBatch& PartitionLog::append_as_leader(RecordBatch batch, Epoch epoch) {
  assert(epoch >= latest_epoch() && "a leader's epoch never goes back");
  batch.base_offset = log_end_offset();
  batch.leader_epoch = epoch;
  append_as_follower(batch);
  return batches_.back();
}

void PartitionLog::append_as_follower(const RecordBatch& batch) {
  assert(batch.base_offset == log_end_offset() && "appends are contiguous");
  assert(batch.record_count > 0);
  assign_epoch(batch.leader_epoch, batch.base_offset);
  batches_.push_back(batch);
  log_end_offset_ = batch.next_offset();
  last_batch_epoch_ = batch.leader_epoch;
  size_bytes_ += batch.bytes;
}

// As Kafka's LeaderEpochFileCache.assign: only a newer epoch starts a new entry.
void PartitionLog::assign_epoch(Epoch epoch, Offset start_offset) {
  assert(epoch >= 0 && start_offset >= 0);
  if (epoch <= latest_epoch_) return;
  epochs_.emplace_back(epoch, start_offset);
  latest_epoch_ = epoch;
}

std::span<const RecordBatch> PartitionLog::read(Offset offset, std::uint64_t max_bytes, Offset upper_bound) const {
  assert(offset >= 0 && offset <= log_end_offset());
  // Like Kafka's log read, an offset inside a batch returns that whole batch.
  const auto first = first_ending_after(batches_, offset);
  auto last = first;
  std::uint64_t total = 0;
  for (; last != batches_.end() && last->next_offset() <= upper_bound; ++last) {
    if (last != first && total + last->bytes > max_bytes) break;  // the first batch always goes
    total += last->bytes;
  }
  return {first, last};
}

const RecordBatch* PartitionLog::batch_at(Offset offset) const {
  auto it = first_ending_after(batches_, offset);
  if (it == batches_.end() || it->base_offset > offset) return nullptr;
  return &*it;
}

void PartitionLog::set_high_watermark(Offset hw) {
  assert(hw >= 0 && hw <= log_end_offset() && "HW <= LEO");
  high_watermark_ = hw;
}

void PartitionLog::truncate_to(Offset offset) {
  assert(offset >= 0);
  // Keep only whole batches that end at or before `offset` (rounds down inside a batch).
  const auto first_removed = first_ending_after(batches_, offset);
  for (auto it = first_removed; it != batches_.end(); ++it) size_bytes_ -= it->bytes;
  batches_.erase(first_removed, batches_.end());
  log_end_offset_ = batches_.empty() ? 0 : batches_.back().next_offset();
  last_batch_epoch_ = batches_.empty() ? -1 : batches_.back().leader_epoch;

  const Offset leo = log_end_offset_;
  // As LeaderEpochFileCache.truncateFromEnd: entries starting at or after the new LEO go.
  std::erase_if(epochs_, [leo](const auto& entry) { return entry.second >= leo; });
  latest_epoch_ = epochs_.empty() ? -1 : epochs_.back().first;
  high_watermark_ = std::min(high_watermark_, leo);
  flushed_offset_ = std::min(flushed_offset_, leo);
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
