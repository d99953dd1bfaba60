// The producer's sequence numbers (KIP-98, KIP-360): which batch may be
// sent while earlier ones of its partition are unanswered, and how an
// idempotent producer without transactions gets past a gap in its
// sequences: TransactionManager's canRetry, handleFailedBatch,
// maybeResolveSequences and bumpIdempotentEpochAndResetIdIfNeeded, and
// RecordAccumulator.shouldStopDrainBatchesForPartition. A transactional
// producer bumps its epoch through the coordinator instead (producer_txn.cpp).
#include <algorithm>
#include <tuple>
#include <vector>

#include "models/client/producer/producer.hpp"

namespace ksim::models {

// A batch with a sequence, not yet acknowledged or failed: in flight or
// waiting for its retry (TxnPartitionEntry.inflightBatchesBySequence).
bool Producer::has_sequenced_batches(std::size_t partition) const {
  return std::any_of(queues_[partition].begin(), queues_[partition].end(),
                     [](const BatchPtr& b) { return b->sequenced && !b->done; });
}

// RecordAccumulator.shouldStopDrainBatchesForPartition: may the partition's
// first unsent batch not go yet, for the sake of its sequences?
bool Producer::sequences_hold(const BatchQueue& queue, BatchQueue::const_iterator first) const {
  if (!config_.enable_idempotence) return false;
  if (producer_id_ == kNoProducerId) return true;  // no producer id yet
  const Batch& b = **first;
  const auto p = static_cast<std::size_t>(b.partition.partition);
  if (!b.sequenced) {
    // A new batch waits while the partition has unanswered batches of an
    // older epoch (sequence 0 of the new one could overtake them), or an
    // expired batch's sequence is unresolved.
    if (sequences_.stale(p, producer_id_, producer_epoch_) && has_sequenced_batches(p)) return true;
    return sequences_[p].unresolved_next.has_value();
  }
  // A retry goes only as the partition's first unanswered batch, so at most
  // one request of the partition is in flight while it is retried.
  return first != queue.begin();
}

// TransactionManager.canRetry for OUT_OF_ORDER_SEQUENCE_NUMBER, an
// idempotent producer without transactions: true when the batch is tried
// again. A batch that is not the next one after the last acknowledged
// (it came out of turn, or was renumbered) is retried as it is. The next
// one marks a real gap: the partition asks for an epoch bump, and the
// batch is retried under the new epoch, renumbered.
bool Producer::retry_sequence_error(const BatchPtr& b) {
  const auto p = static_cast<std::size_t>(b->partition.partition);
  const auto& unresolved = sequences_[p].unresolved_next;
  if (!unresolved && (b->sequence_reset || !sequences_.is_next(p, b->records.base_sequence))) return true;
  if (!unresolved || b->records.base_sequence == *unresolved) sequences_.request_bump(p);
  return true;
}

// Sender.failBatch -> TransactionManager.handleFailedBatch: a batch failed by
// the broker's answer with retries left (`adjust_sequences`), so possibly not
// written, leaves a gap that its partition closes with an epoch bump. One
// failed at delivery.timeout.ms or with its retries spent may be written: its
// sequences stay.
// Before KIP-360 an INVALID_PRODUCER_EPOCH of the current epoch made the
// producer reset its id.
void Producer::fail_sequenced(const BatchPtr& b, Error error, bool adjust_sequences) {
  const bool current = b->records.producer_epoch == producer_epoch_ && b->records.producer_id == producer_id_;
  fail(b, error);
  if (!idempotent_only() || !b->sequenced) return;
  if (!config_.mechanisms.has(Mechanism::ProducerEpochBump)) {
    if (error == Error::InvalidProducerEpoch && current) init_producer_id();
    return;
  }
  if (adjust_sequences || error == Error::OutOfOrderSequenceNumber) {
    sequences_.request_bump(static_cast<std::size_t>(b->partition.partition));
  }
}

// TransactionManager.maybeResolveSequences: a partition whose expired batch
// left its sequence unresolved is settled once nothing of it is unanswered:
// resolved if the batches after it were acknowledged in sequence, else by an
// epoch bump (before KIP-360, a new producer id).
void Producer::resolve_sequences() {
  const std::vector<std::size_t> unresolved(sequences_.unresolved().begin(), sequences_.unresolved().end());
  for (const std::size_t p : unresolved) {
    if (has_sequenced_batches(p)) continue;
    if (!sequences_.is_next(p, sequences_[p].next)) {
      if (config_.mechanisms.has(Mechanism::ProducerEpochBump)) {
        sequences_.request_bump(p);
      } else {
        init_producer_id();
      }
    }
    sequences_.resolved(p);
    sender_index_.touch(p);
  }
}

// bumpIdempotentEpochAndResetIdIfNeeded: the epoch goes up by one on the
// client, with no request, and the partitions that asked renumber their
// unanswered batches from 0 (bumpIdempotentProducerEpoch). The broker takes
// a higher epoch starting at sequence 0. (At epoch 32767 Kafka asks for a
// new producer id instead: not reached here.)
void Producer::maybe_bump_idempotent_epoch() {
  if (!idempotent_only() || producer_id_ == kNoProducerId || awaiting_producer_id_) return;
  resolve_sequences();
  if (!sequences_.bump_required()) return;
  ++producer_epoch_;
  ++stats_.epoch_bumps;
  for (const std::size_t p : sequences_.take_rewrites()) start_sequences_at_beginning(p);
  sender_index_.forget();
}

// TxnPartitionEntry.startSequencesAtBeginning: the partition's unanswered
// batches, in sequence order, get the new epoch and sequences from 0.
void Producer::start_sequences_at_beginning(std::size_t partition) {
  std::vector<Batch*> unanswered;
  for (const BatchPtr& b : queues_[partition]) {
    if (b->sequenced && !b->done) unanswered.push_back(b.get());
  }
  std::sort(unanswered.begin(), unanswered.end(), [](const Batch* x, const Batch* y) {
    return std::tie(x->records.producer_id, x->records.producer_epoch, x->records.base_sequence) <
           std::tie(y->records.producer_id, y->records.producer_epoch, y->records.base_sequence);
  });
  std::int32_t next = 0;
  for (Batch* b : unanswered) {
    b->records.producer_id = producer_id_;
    b->records.producer_epoch = producer_epoch_;
    b->records.base_sequence = next;
    b->sequence_reset = true;
    next += b->records.record_count;
  }
  sequences_.start_at_beginning(partition, producer_id_, producer_epoch_, next);
}

}  // namespace ksim::models
