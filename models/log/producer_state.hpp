#pragma once
// A partition leader's memory of idempotent producers (KIP-98): per producer
// id, its epoch and the metadata of its last five batches, so a retried
// batch is recognised as a duplicate and a gap in sequence numbers is
// rejected; and their transactions (KIP-98): where each open transaction
// starts (the last stable offset is the lowest of these) and which ended in
// an abort (the aborted-transaction index read_committed consumers need). It
// survives leader changes because it is rebuilt from the log.
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include <boost/container/flat_map.hpp>
#include <boost/container/static_vector.hpp>

#include "models/protocol/kafka_types.hpp"
#include "models/log/partition_log.hpp"

namespace ksim::models {

// Producer id -> the first offset of its open transaction, in producer id order. A flat map: a
// replica's table is usually empty, and a std::map costs 48 bytes even then (one per replica).
using OpenTransactions = boost::container::flat_map<ProducerId, Offset>;

class ProducerStateTable {
 public:
  static constexpr std::size_t kBatchesRemembered = 5;  // as Kafka's ProducerStateEntry

  enum class Verdict {
    Append,       // new and in sequence: write it
    Duplicate,    // the same batch is already in the log at `duplicate_base_offset`
    OutOfOrder,   // OUT_OF_ORDER_SEQUENCE_NUMBER: a gap, or a new epoch not starting at 0
    Fenced,       // INVALID_PRODUCER_EPOCH: an older epoch than the producer's current one
  };
  struct Check {
    Verdict verdict;
    Offset duplicate_base_offset = -1;
  };

  // Rules (Kafka's ProducerStateManager / ProducerAppendInfo, for non-transactional batches):
  // - no producer_id (kNoProducerId): always Append;
  // - epoch older than the known one: Fenced;
  // - epoch newer than the known one: Append if base_sequence == 0, else OutOfOrder;
  // - unknown producer id: Append, whatever its sequence (KIP-360, 2.5;
  //   `any_first_sequence` false: before it, Append only at sequence 0);
  // - same epoch: Duplicate if (base_sequence, last sequence) equals one of the last five
  //   batches; else Append if base_sequence == last sequence + 1 (with int32 wrap to 0); else OutOfOrder.
  Check check(const RecordBatch& batch, bool any_first_sequence = true) const;
  // Whether a transaction marker of (producer id, epoch) may be written: not from an older epoch.
  bool marker_allowed(ProducerId producer, ProducerEpoch epoch) const;
  // Records an appended batch (with its base_offset assigned): a transactional
  // batch opens its producer's transaction, a marker ends it.
  void record(const RecordBatch& batch);
  // Forgets everything and replays the log's batches in order (after truncation or on becoming leader).
  void rebuild(const PartitionLog& log);
  std::size_t producers() const { return entries_.size(); }

  // --- transactions ---
  struct AbortedTransaction {
    ProducerId producer_id;
    Offset first_offset;
    Offset last_offset;  // the abort marker's offset
  };
  // Whether the producer has a transaction open here in this epoch (Kafka 4.0's
  // UnifiedLog.hasOngoingTransaction(producerId, epoch): under transactions v2
  // every transaction has a new epoch, so one from an older epoch may be
  // ending, its marker not written yet, while the new one starts).
  bool in_transaction(ProducerId producer, ProducerEpoch epoch) const;
  // The first offset of the oldest transaction still unstable at this high
  // watermark: open, or ended by a marker the high watermark has not passed
  // (Kafka's ProducerStateManager.firstUnstableOffset counts its
  // unreplicatedTxns until onHighWatermarkUpdated); nullopt when none is.
  std::optional<Offset> first_unstable_offset(Offset high_watermark) const;
  // Forgets ended transactions whose marker is below the high watermark
  // (ProducerStateManager.removeUnreplicatedTransactions): memory only, the
  // answers of first_unstable_offset do not change.
  void forget_replicated(Offset high_watermark);
  // Aborted transactions overlapping [from, to): what a read_committed fetch of that range must skip.
  std::vector<AbortedTransaction> aborted_between(Offset from, Offset to) const;
  // The open transactions, by producer id: where each started.
  const OpenTransactions& open_transactions() const { return open_; }

 private:
  struct BatchInfo {
    std::int32_t first_sequence;
    std::int32_t last_sequence;
    Offset base_offset;
  };
  struct Entry {
    ProducerEpoch epoch = -1;
    // Newest at the back; held in the entry itself, as it is read for every batch appended.
    boost::container::static_vector<BatchInfo, kBatchesRemembered> recent;
  };
  // By producer id; flat (a partition has a few producers), as a map node per producer missed the cache on every append.
  boost::container::flat_map<ProducerId, Entry> entries_;
  OpenTransactions open_;  // producer id -> first offset of its open transaction
  struct EndedTransaction {
    Offset first_offset;
    Offset marker_offset;
  };
  std::vector<EndedTransaction> unreplicated_;  // ended, in marker order, the marker maybe not below the HW yet
  std::vector<AbortedTransaction> aborted_;    // in marker order
};

}  // namespace ksim::models
