#pragma once
// KIP-858's AssignmentsManager (Kafka 3.7+, KRaft): the broker's queue of
// replica-to-log-dir assignments for the controller. An assignment waits in
// `ready` (a newer one for the same partition replaces it); one request at a
// time carries up to 2,250 of them (AssignReplicasToDirsRequest.
// MAX_ASSIGNMENTS_PER_REQUEST); a send is due 100 ms after the first queued
// assignment, to batch (at once when more than a request's worth wait and none
// is in flight), or after an exponential backoff (100 ms doubling to 10 s)
// once requests failed as a whole (AssignmentsManagerDeadlineFunction). A
// partition the controller refused is queued again (putIfAbsent).
//
// Simplified: the backoff has no jitter (Kafka's ExponentialBackoff has 2%).
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "models/protocol/kafka_types.hpp"
#include "sim/events/time.hpp"

namespace ksim::models {

class DirAssignments {
 public:
  using Assignment = std::pair<TopicPartition, std::int32_t>;  // a replica and its log dir (by index)
  static constexpr std::size_t kMaxPerRequest = 2250;

  void queue(TopicPartition tp, std::int32_t dir) { ready_[tp] = dir; }
  bool has_ready() const { return !ready_.empty(); }
  bool in_flight() const { return !in_flight_.empty(); }
  // How long after now the next send is due (AssignmentsManagerDeadlineFunction).
  SimTime send_delay() const;
  // Up to a request's worth of ready assignments, now in flight; `hosts(tp)`
  // drops those of partitions the broker no longer hosts (Assignment.valid).
  template <class Hosts>
  std::vector<Assignment> take_batch(Hosts hosts) {
    std::vector<Assignment> batch;
    for (auto it = ready_.begin(); it != ready_.end() && batch.size() < kMaxPerRequest;) {
      if (hosts(it->first)) batch.push_back(*it), in_flight_.insert(*it);
      it = ready_.erase(it);
    }
    return batch;
  }
  // The answer to the request in flight: the assignments the controller
  // accepted; the others wait again (a global error: all of them, and the
  // next send backs off).
  std::vector<Assignment> answered(Error global, const std::vector<std::pair<TopicPartition, Error>>& results);
  // The request was lost (its connection closed, or it timed out): a global failure.
  void lost() { answered(Error::RequestTimedOut, {}); }
  void clear() { ready_.clear(), in_flight_.clear(), global_failures_ = 0; }

 private:
  std::map<TopicPartition, std::int32_t> ready_;
  std::map<TopicPartition, std::int32_t> in_flight_;
  int global_failures_ = 0;  // previousGlobalFailures
};

}  // namespace ksim::models
