#pragma once
// A KIP-227 fetch session, as a leader keeps one for each connection that
// fetches from it: a replica fetcher's or a consumer's. At any one time most
// partitions of a fetch have nothing new. A partition found quiet (for a
// follower: no new data, its high watermark current, the follower caught up
// and in the ISR, nothing to fix; for a consumer: nothing new below the high
// watermark or last stable offset) is not read again while the request asks
// the same of it (offset and epochs) and the broker counts no change to it.
//
// A follower's fetches that skip a partition would only have refreshed the
// follower's caught-up time: that is applied later, from last_fetch(), as if
// each fetch had read it (Broker::catch_up). So a follower session only
// skips while the fetcher lists the same partitions (FetchRequest::same_partitions).
// A fetch that moves a follower's position back (a delayed request of its
// earlier connection) counts as a change of the partition (Broker::update_follower).
//
// Kafka's leader reads every partition of the session on each fetch
// (FetchSession, IncrementalFetchContext), and the CPU model charges that.
// Skipping quiet partitions is the simulator's own economy: the outcome is the same.
#include <cstdint>
#include <vector>

#include "models/protocol/kafka_messages.hpp"
#include "sim/events/time.hpp"

namespace ksim::models {

class FetchSession {
 public:
  FetchSession(BrokerId fetcher, std::size_t total_partitions) : fetcher_(fetcher), entries_(total_partitions) {}
  BrokerId fetcher() const { return fetcher_; }  // kNoBroker: a consumer

  // `partition` is a global partition number; `change` the broker's change count of it.
  bool skips(std::int32_t partition, const FetchRequest::PartitionData& p, std::uint32_t change) const {
    const Entry& e = entries_[static_cast<std::size_t>(partition)];
    return e.quiet && e.seen == change && e.fetch_offset == p.fetch_offset &&
           e.current_leader_epoch == p.current_leader_epoch && e.last_fetched_epoch == p.last_fetched_epoch;
  }
  void prefetch(std::int32_t partition) const { __builtin_prefetch(&entries_[static_cast<std::size_t>(partition)]); }
  // A read that records the fetcher's position looked at the partition.
  void settle(std::int32_t partition, const FetchRequest::PartitionData& p, bool quiet, std::uint32_t change);
  // Nothing is known to be quiet any more (a follower's new list of partitions).
  void forget();

  // Follower sessions: reads skipped this partition since it was found quiet.
  bool owes_catch_up(std::int32_t partition) const { return entries_[static_cast<std::size_t>(partition)].quiet; }
  std::int32_t partition_count() const { return static_cast<std::int32_t>(entries_.size()); }
  // A read that records positions is over; every partition it skipped was caught up then.
  void fetched(SimTime at) { last_fetch_ = at; }
  SimTime last_fetch() const { return last_fetch_; }

 private:
  struct Entry {
    Offset fetch_offset = -1;
    Epoch current_leader_epoch = -1;
    Epoch last_fetched_epoch = -1;
    std::uint32_t seen = 0;  // the partition's change count when last read
    bool quiet = false;
  };
  BrokerId fetcher_;
  std::vector<Entry> entries_;  // by global partition number
  SimTime last_fetch_ = 0;
};

}  // namespace ksim::models
