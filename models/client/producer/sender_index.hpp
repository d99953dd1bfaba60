#pragma once
// Where a producer's sender must look in a pass over its accumulator.
// Kafka's RecordAccumulator.ready() visits every partition on every wakeup;
// with thousands of partitions and a wakeup per new batch the simulator
// cannot afford that, so it remembers what it found and looks again only
// where something may have changed. A partition is
//  - pending: it may have a batch to send;
//  - lingering: its first unsent batch cannot go before a known time
//    (linger.ms or a retry backoff);
//  - ready: its first unsent batch could go, to a known leader, and only
//    waits for room on that connection (max.in.flight.requests.per.connection).
// Any change to a partition's queue (touch) makes it pending and unknown again.
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include <boost/dynamic_bitset.hpp>

#include "models/protocol/kafka_types.hpp"
#include "sim/events/time.hpp"

namespace ksim::models {

class SenderIndex {
 public:
  using Partitions = boost::dynamic_bitset<>;
  static constexpr std::size_t kEnd = Partitions::npos;

  SenderIndex(std::size_t partitions, std::size_t brokers);

  void add(std::size_t p) { pending_.set(p); }
  void drop(std::size_t p) { pending_.reset(p); }  // nothing left to send
  void touch(std::size_t p);                        // its queue changed: look again
  void forget();                                    // every partition: look again
  void clear();                                     // nothing pending at all (a crash)
  void linger(std::size_t p, SimTime until);
  void ready(std::size_t p, BrokerId leader) { ready_[static_cast<std::size_t>(leader)].set(p); }
  void forget_leaders();  // the metadata changed: leaders may have moved
  const Partitions& lingering() const { return lingering_; }  // known to wait for linger.ms or a backoff

  // The partitions to visit at `now`, in order: pending ones, but those
  // lingering past `now` and those ready for a connection that is `full`.
  // `skipped[b]`: some partition ready for broker b was left out.
  // `next_check`: lowered to the end of the earliest lingering.
  const Partitions& to_visit(SimTime now, const std::vector<bool>& full, std::vector<bool>& skipped, SimTime& next_check);

 private:
  bool still_lingering(std::size_t p, SimTime until) const { return lingering_[p] && lingering_until_[p] == until; }

  Partitions pending_;
  Partitions lingering_;
  std::vector<SimTime> lingering_until_;
  std::priority_queue<std::pair<SimTime, std::size_t>, std::vector<std::pair<SimTime, std::size_t>>, std::greater<>>
      lingering_ends_;  // may hold stale entries: checked with still_lingering
  std::vector<Partitions> ready_;  // by leader
  Partitions visit_;               // to_visit's result
};

}  // namespace ksim::models
