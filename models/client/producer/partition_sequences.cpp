#include "models/client/producer/partition_sequences.hpp"

#include <algorithm>
#include <cassert>
#include <limits>

namespace ksim::models {

void PartitionSequences::reset_all() {
  std::fill(entries_.begin(), entries_.end(), Entry{});
  to_rewrite_.clear();
  unresolved_.clear();
}

// DefaultRecordBatch.incrementSequence: sequences wrap from INT32_MAX to 0.
std::int32_t PartitionSequences::take(std::size_t p, std::int32_t records) {
  assert(records > 0);
  Entry& e = entries_[p];
  const std::int32_t first = e.next;
  constexpr std::int64_t space = std::int64_t{std::numeric_limits<std::int32_t>::max()} + 1;
  e.next = static_cast<std::int32_t>((std::int64_t{e.next} + records) % space);
  return first;
}

// TxnPartitionEntry.maybeUpdateLastAckedSequence.
void PartitionSequences::acknowledged(std::size_t p, std::int32_t last_sequence) {
  entries_[p].last_acked = std::max(entries_[p].last_acked, last_sequence);
}

void PartitionSequences::mark_unresolved(std::size_t p, std::int32_t next_after) {
  auto& unresolved = entries_[p].unresolved_next;
  unresolved = unresolved ? std::max(*unresolved, next_after) : next_after;
  unresolved_.insert(p);
}

void PartitionSequences::resolved(std::size_t p) {
  entries_[p].unresolved_next.reset();
  unresolved_.erase(p);
}

std::set<std::size_t> PartitionSequences::take_rewrites() {
  std::set<std::size_t> taken;
  taken.swap(to_rewrite_);
  return taken;
}

void PartitionSequences::start_at_beginning(std::size_t p, ProducerId id, ProducerEpoch epoch, std::int32_t next) {
  Entry& e = entries_[p];
  e.producer_id = id;
  e.epoch = epoch;
  e.next = next;
  e.last_acked = -1;
  resolved(p);  // bumpIdempotentProducerEpoch: partitionsWithUnresolvedSequences.remove
}

}  // namespace ksim::models
