#pragma once
// One replica's log of a partition: record batches at consecutive offsets,
// the log end offset (LEO), the high watermark (HW), the leader epoch cache
// of KIP-101, and the durable prefix (what survives a power loss).
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "models/protocol/kafka_types.hpp"

namespace ksim::models {

class PartitionLog {
 public:
  Offset log_start_offset() const { return 0; }  // ksim does not model retention yet
  Offset log_end_offset() const { return log_end_offset_; }  // next offset to be written
  Offset high_watermark() const { return high_watermark_; }
  std::uint64_t size_bytes() const { return size_bytes_; }
  const std::vector<RecordBatch>& batches() const { return batches_; }
  bool empty() const { return batches_.empty(); }

  // The leader appends: assigns base_offset = LEO, stamps leader_epoch = epoch,
  // and starts a new epoch in the cache if `epoch` is newer than the latest.
  // Returns the batch as stored.
  const RecordBatch& append_as_leader(RecordBatch batch, Epoch epoch);
  // A follower appends a batch fetched from the leader, offsets and epoch as they are.
  // Precondition: batch.base_offset == log_end_offset().
  void append_as_follower(const RecordBatch& batch);

  // Batches from the one containing `offset` (or from the LEO) onwards,
  // up to `max_bytes` in total but always at least one batch if there is any
  // (as Kafka does, so a large batch cannot stall replication).
  // Optionally only batches ending at or before `upper_bound` (exclusive).
  // The view is valid until the log next changes.
  std::span<const RecordBatch> read(Offset offset, std::uint64_t max_bytes, Offset upper_bound = INT64_MAX) const;
  // The batch containing `offset`, if any.
  const RecordBatch* batch_at(Offset offset) const;

  // The HW may go down only by truncation; set_high_watermark asserts hw <= LEO.
  void set_high_watermark(Offset hw);

  // Removes every batch with base_offset >= offset, and epoch cache entries starting
  // at or after it; LEO becomes `offset` (rounded down to a batch boundary), and the
  // HW and the flushed offset are capped at the new LEO.
  void truncate_to(Offset offset);

  // --- leader epoch cache (KIP-101) ---
  Epoch latest_epoch() const { return latest_epoch_; }  // -1 when the cache is empty
  Epoch last_batch_epoch() const { return last_batch_epoch_; }  // the last batch's leader epoch; -1 when empty
  // The largest cached epoch <= `epoch` and where it ends; nullopt when no cached epoch is <= `epoch`.
  std::optional<EpochEndOffset> end_offset_for_epoch(Epoch epoch) const;
  // The cache, as (epoch, start offset) pairs in increasing order.
  const std::vector<std::pair<Epoch, Offset>>& epoch_cache() const { return epochs_; }

  // --- durability ---
  Offset flushed_offset() const { return flushed_offset_; }  // offsets below are on stable storage
  std::int64_t unflushed_records() const;
  void mark_flushed(Offset offset);  // monotonic; capped at LEO
  // A power loss: everything not flushed is gone (truncate_to(flushed_offset)).
  void lose_unflushed();

 private:
  void assign_epoch(Epoch epoch, Offset start_offset);

  std::vector<RecordBatch> batches_;
  std::vector<std::pair<Epoch, Offset>> epochs_;
  // The LEO and the epochs are read on every fetch and append: kept here
  // rather than read from the vectors' last elements, which are rarely in cache.
  Offset log_end_offset_ = 0;
  Epoch latest_epoch_ = -1;
  Epoch last_batch_epoch_ = -1;
  Offset high_watermark_ = 0;
  Offset flushed_offset_ = 0;
  std::uint64_t size_bytes_ = 0;
};

}  // namespace ksim::models
