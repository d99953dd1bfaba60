#pragma once
// An idempotent producer's sequence numbers, per partition: Kafka's
// TxnPartitionMap and TxnPartitionEntry, with the part of TransactionManager
// that keeps them (clients/.../producer/internals/). Each partition has the
// producer id and epoch its sequences belong to, the next sequence to give,
// the last one acknowledged and, after a batch that was sent expired, the
// sequence that must be acknowledged before it is resolved. A real gap
// (KIP-360) asks for an epoch bump that renumbers only the partitions that
// asked (requestEpochBumpForPartition); the others move to the new epoch when
// their batches of the old one are answered (maybeUpdateProducerIdAndEpoch).
// The batches themselves are the producer's: it renumbers them.
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "models/protocol/kafka_types.hpp"

namespace ksim::models {

class PartitionSequences {
 public:
  struct Entry {
    ProducerId producer_id = kNoProducerId;  // the id and epoch of the partition's sequences
    ProducerEpoch epoch = -1;
    std::int32_t next = 0;
    std::int32_t last_acked = -1;                 // TxnPartitionEntry.NO_LAST_ACKED_SEQUENCE_NUMBER
    std::optional<std::int32_t> unresolved_next;  // partitionsWithUnresolvedSequences
  };

  explicit PartitionSequences(std::size_t partitions) : entries_(partitions) {}

  Entry& operator[](std::size_t p) { return entries_[p]; }
  const Entry& operator[](std::size_t p) const { return entries_[p]; }

  // resetSequenceNumbers: a new producer id (or a transactional epoch bump) starts every partition afresh.
  void reset_all();
  // The partition's sequences belong to another id or epoch than the producer's (hasStaleProducerIdAndEpoch).
  bool stale(std::size_t p, ProducerId id, ProducerEpoch epoch) const {
    return entries_[p].producer_id != id || entries_[p].epoch != epoch;
  }
  // isNextSequence: the sequence just after the last acknowledged one.
  bool is_next(std::size_t p, std::int32_t sequence) const { return sequence - entries_[p].last_acked == 1; }
  // Gives `records` sequences from the partition's next; returns the first.
  std::int32_t take(std::size_t p, std::int32_t records);
  void acknowledged(std::size_t p, std::int32_t last_sequence);
  // markSequenceUnresolved: a batch that was sent expired; `next_after` is its last sequence + 1.
  void mark_unresolved(std::size_t p, std::int32_t next_after);
  // requestEpochBumpForPartition.
  void request_bump(std::size_t p) { to_rewrite_.insert(p); }
  bool bump_required() const { return !to_rewrite_.empty(); }
  // The partitions to renumber at the bump (partitionsToRewriteSequences), emptied.
  std::set<std::size_t> take_rewrites();
  // startSequencesAtBeginning: from now the partition's sequences are the new
  // id's and epoch's, the next one `next` (the renumbered batches' records).
  void start_at_beginning(std::size_t p, ProducerId id, ProducerEpoch epoch, std::int32_t next);
  // The partitions with an unresolved sequence, in order.
  const std::set<std::size_t>& unresolved() const { return unresolved_; }
  void resolved(std::size_t p);

 private:
  std::vector<Entry> entries_;
  std::set<std::size_t> to_rewrite_;
  std::set<std::size_t> unresolved_;
};

}  // namespace ksim::models
