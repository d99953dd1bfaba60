#include "models/log/producer_state.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <limits>

namespace ksim::models {

namespace {

constexpr std::int64_t kSequenceSpace = std::int64_t{std::numeric_limits<std::int32_t>::max()} + 1;

// Sequences wrap from INT32_MAX to 0 (Kafka's DefaultRecordBatch.incrementSequence).
std::int32_t add_to_sequence(std::int32_t sequence, std::int64_t increment) {
  return static_cast<std::int32_t>((sequence + increment) % kSequenceSpace);
}

std::int32_t last_sequence(const RecordBatch& batch) {
  assert(batch.base_sequence >= 0 && batch.record_count > 0);
  return add_to_sequence(batch.base_sequence, batch.record_count - 1);
}

ProducerStateTable::Verdict first_batch_verdict(const RecordBatch& batch) {
  return batch.base_sequence == 0 ? ProducerStateTable::Verdict::Append
                                  : ProducerStateTable::Verdict::OutOfOrder;
}

}  // namespace

// Kafka's ProducerStateEntry.findDuplicateBatch, then ProducerAppendInfo.checkProducerEpoch
// and checkSequence (non-transactional, client-origin batches only).
ProducerStateTable::Check ProducerStateTable::check(const RecordBatch& batch, bool any_first_sequence) const {
  if (batch.producer_id == kNoProducerId) return {Verdict::Append};
  const auto found = entries_.find(batch.producer_id);
  // ProducerAppendInfo.checkSequence: a producer the partition has no state
  // of (a new leader without its batches, or none yet) may start at any
  // sequence; a new epoch of a known one starts at 0.
  if (found == entries_.end()) return {any_first_sequence ? Verdict::Append : first_batch_verdict(batch)};
  const Entry& entry = found->second;
  if (batch.producer_epoch < entry.epoch) return {Verdict::Fenced};
  if (batch.producer_epoch > entry.epoch || entry.recent.empty()) return {first_batch_verdict(batch)};

  const std::int32_t last = last_sequence(batch);
  for (const BatchInfo& info : entry.recent) {
    if (info.first_sequence == batch.base_sequence && info.last_sequence == last) {
      return {Verdict::Duplicate, info.base_offset};
    }
  }
  const bool in_sequence = batch.base_sequence == add_to_sequence(entry.recent.back().last_sequence, 1);
  return {in_sequence ? Verdict::Append : Verdict::OutOfOrder};
}

bool ProducerStateTable::in_transaction(ProducerId producer, ProducerEpoch epoch) const {
  const auto found = entries_.find(producer);
  return open_.contains(producer) && found != entries_.end() && found->second.epoch == epoch;
}

bool ProducerStateTable::marker_allowed(ProducerId producer, ProducerEpoch epoch) const {
  const auto found = entries_.find(producer);
  return found == entries_.end() || epoch >= found->second.epoch;
}

// Kafka's ProducerStateEntry.addBatch: a new epoch forgets the old epoch's batches.
void ProducerStateTable::record(const RecordBatch& batch) {
  if (batch.producer_id == kNoProducerId) return;
  if (batch.is_control()) {
    // A marker ends the transaction (Kafka's ProducerAppendInfo.appendEndTxnMarker) and may bump the epoch.
    Entry& entry = entries_[batch.producer_id];
    if (batch.producer_epoch > entry.epoch) {
      entry.epoch = batch.producer_epoch;
      entry.recent.clear();
    }
    const auto open = open_.find(batch.producer_id);
    if (open == open_.end()) return;
    if (batch.control == ControlType::Abort) aborted_.push_back({batch.producer_id, open->second, batch.base_offset});
    unreplicated_.push_back({open->second, batch.base_offset});  // ProducerStateManager.completeTxn
    open_.erase(open);
    return;
  }
  if (batch.transactional) open_.try_emplace(batch.producer_id, batch.base_offset);
  if (batch.base_sequence < 0) return;  // a coordinator's transactional offset commit: no sequence
  Entry& entry = entries_[batch.producer_id];
  if (entry.epoch != batch.producer_epoch) {
    entry.recent.clear();
    entry.epoch = batch.producer_epoch;
  }
  if (entry.recent.size() == kBatchesRemembered) entry.recent.erase(entry.recent.begin());
  entry.recent.push_back({batch.base_sequence, last_sequence(batch), batch.base_offset});
}

std::optional<Offset> ProducerStateTable::first_unstable_offset(Offset high_watermark) const {
  std::optional<Offset> first;
  const auto consider = [&](Offset offset) { first = first ? std::min(*first, offset) : offset; };
  for (const auto& [producer, offset] : open_) consider(offset);
  // Markers are in offset order: those the HW has not passed are at the back.
  for (auto it = unreplicated_.rbegin(); it != unreplicated_.rend() && it->marker_offset >= high_watermark; ++it) {
    consider(it->first_offset);
  }
  return first;
}

void ProducerStateTable::forget_replicated(Offset high_watermark) {
  const auto replicated = std::find_if(unreplicated_.begin(), unreplicated_.end(),
                                       [&](const EndedTransaction& t) { return t.marker_offset >= high_watermark; });
  unreplicated_.erase(unreplicated_.begin(), replicated);
}

std::vector<ProducerStateTable::AbortedTransaction> ProducerStateTable::aborted_between(Offset from, Offset to) const {
  std::vector<AbortedTransaction> result;
  for (const AbortedTransaction& a : aborted_) {
    if (a.last_offset >= from && a.first_offset < to) result.push_back(a);
  }
  return result;
}

void ProducerStateTable::rebuild(const PartitionLog& log) {
  entries_.clear();
  open_.clear();
  unreplicated_.clear();
  aborted_.clear();
  for (const RecordBatch& batch : log.batches()) {
    if (batch.producer_id != kNoProducerId) record(batch);
  }
}

}  // namespace ksim::models
