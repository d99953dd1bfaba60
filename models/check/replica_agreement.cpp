#include "models/check/replica_agreement.hpp"

#include <algorithm>
#include <span>

#include <fmt/format.h>

namespace ksim::models {

namespace {

// What identifies a batch's records: where they are, who wrote them in which
// epoch, and which records of the workload (or which marker) they are.
bool same_records(const RecordBatch& a, const RecordBatch& b) {
  return a.base_offset == b.base_offset && a.record_count == b.record_count && a.leader_epoch == b.leader_epoch &&
         a.producer_id == b.producer_id && a.producer_epoch == b.producer_epoch &&
         a.base_sequence == b.base_sequence && a.transactional == b.transactional && a.control == b.control &&
         a.writer == b.writer && a.first_record == b.first_record;
}

std::string describe(const RecordBatch* b) {
  if (!b) return "nothing";
  return fmt::format("offsets {}-{} of leader epoch {} (producer {} records {}-{}{})", b->base_offset,
                     b->last_offset(), b->leader_epoch, b->writer, b->first_record,
                     b->first_record + static_cast<std::uint64_t>(std::max(b->record_count, 1)) - 1,
                     b->is_control() ? ", a marker" : "");
}

}  // namespace

std::optional<ReplicaDivergence> committed_divergence(const PartitionLog& leader, BrokerId leader_broker,
                                                      const PartitionLog& replica, BrokerId replica_broker) {
  const Offset committed = std::min(leader.high_watermark(), replica.high_watermark());
  // Retention deletes each replica's own segments: compare from the larger log start offset.
  Offset start = std::max(leader.log_start_offset(), replica.log_start_offset());
  // The cleaner compacts each replica's own log, at its own times: compare from the larger first dirty offset.
  if (leader.config().compact_enabled) start = std::max({start, leader.first_dirty_offset(), replica.first_dirty_offset()});
  const auto from = [&start](std::span<const RecordBatch> batches) {
    const auto it = std::lower_bound(batches.begin(), batches.end(), start,
                                     [](const RecordBatch& b, Offset o) { return b.base_offset < o; });
    return batches.subspan(static_cast<std::size_t>(it - batches.begin()));
  };
  std::span<const RecordBatch> l = from(leader.batches());
  std::span<const RecordBatch> r = from(replica.batches());
  while (leader.config().compact_enabled && !l.empty() && !r.empty() && l.front().base_offset != r.front().base_offset) {
    // A batch the map's end split on one replica only: both from the first batch boundary they share.
    start = std::max(l.front().base_offset, r.front().base_offset);
    l = from(l);
    r = from(r);
  }
  std::size_t i = 0;
  // Replicated batches are copied whole, so agreeing logs share their batches'
  // boundaries: the first pair that differs starts where the agreement ends.
  for (; i < l.size() && i < r.size() && l[i].base_offset < committed; ++i) {
    if (!same_records(l[i], r[i])) break;
  }
  if (i == l.size() || i == r.size()) return std::nullopt;  // one holds no more below the high watermarks
  const RecordBatch* lb = &l[i];
  const RecordBatch* rb = &r[i];
  if (lb->base_offset >= committed || rb->base_offset >= committed || same_records(*lb, *rb)) return std::nullopt;
  const Offset at = std::min(lb->base_offset, rb->base_offset);
  return ReplicaDivergence{
      at, fmt::format("below both high watermarks ({} on leader {}, {} on broker {}) they differ from offset {}: "
                      "leader {} has {}, broker {} has {}",
                      leader.high_watermark(), leader_broker, replica.high_watermark(), replica_broker, at,
                      leader_broker, describe(lb), replica_broker, describe(rb))};
}

}  // namespace ksim::models
