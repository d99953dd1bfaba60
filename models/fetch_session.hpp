#pragma once
// A KIP-227 fetch session, as a partition leader keeps one for each replica
// fetcher (one per connection). Every request of a session lists the same
// partitions, and at any one time most of them have nothing new. A partition
// found quiet (no new data, the follower's high watermark current, the
// follower caught up and in the ISR, nothing to fix) is not read again until
// the broker counts a change to it or the follower asks for something else.
// The fetches that skip it would only have refreshed the follower's
// caught-up time; that is applied later, from last_fetch(), as if each
// fetch had read it (Broker::catch_up).
//
// Kafka's leader reads every partition of the session on each fetch
// (FetchSession, IncrementalFetchContext); the CPU model still charges that.
// Skipping quiet partitions is the simulator's own economy: the outcome is the same.
#include <cstdint>
#include <vector>

#include "models/kafka_types.hpp"
#include "sim/time.hpp"

namespace ksim::models {

class FetchSession {
 public:
  // Starts the session again with a request's partitions, as global partition numbers.
  void reset(BrokerId follower, std::vector<std::int32_t> partitions, std::size_t total_partitions);
  BrokerId follower() const { return follower_; }
  std::size_t size() const { return partitions_.size(); }
  std::int32_t partition(std::size_t slot) const { return partitions_[slot]; }
  bool contains(std::int32_t partition) const { return member_[static_cast<std::size_t>(partition)]; }

  // The follower asks for something else at this position (FetchRequest::changed).
  void follower_changed(std::size_t slot) { dirty_[slot] = 1; }
  // Quiet at the last read, unchanged since by either side: nothing to read.
  bool skips(std::size_t slot, const std::vector<std::uint32_t>& changes) const {
    return quiet_[slot] && !dirty_[slot] && seen_[slot] == changes[static_cast<std::size_t>(partitions_[slot])];
  }
  // Fetches since the last read skipped it: their caught-up times are owed.
  bool owes_catch_up(std::size_t slot) const { return quiet_[slot] != 0; }
  // A fetch that records the follower's position read this slot.
  void settle(std::size_t slot, bool quiet, std::uint32_t change);
  // Such a fetch is over; every slot it skipped was caught up then.
  void fetched(SimTime at) { last_fetch_ = at; }
  SimTime last_fetch() const { return last_fetch_; }

 private:
  BrokerId follower_ = kNoBroker;
  std::vector<std::int32_t> partitions_;  // global partition numbers, in request order
  std::vector<std::uint32_t> seen_;       // the partition's change count when last read
  std::vector<std::uint8_t> quiet_;
  std::vector<std::uint8_t> dirty_;
  std::vector<bool> member_;  // by global partition number
  SimTime last_fetch_ = 0;
};

}  // namespace ksim::models
