#pragma once
// Watches the trace for how long partitions go without a leader after a
// broker dies: from the crash (or power loss) of a partition's leader until
// some broker becomes its leader again (broker.become_leader, once the
// controller's election and metadata reached it). A clean shutdown moves
// leaderships first (controlled shutdown) and is not counted.
#include <map>
#include <set>
#include <string>

#include "models/kafka_types.hpp"
#include "sim/trace.hpp"

namespace ksim::app {

struct FailoverFigures {
  std::uint64_t partitions_failed_over = 0;
  SimTime max_unavailability = 0;     // the longest any partition waited for a new leader
  double unavailable_partition_s = 0; // summed over partitions: partition-seconds without a leader
  std::uint64_t still_unavailable = 0;  // at the end of the run
};

class FailoverTracker {
 public:
  // Internal topics (__consumer_offsets, __transaction_state) are not counted.
  void ignore_topic(std::int32_t topic) { ignored_.insert(topic); }
  void observe(SimTime time, std::string_view node, std::string_view kind, std::initializer_list<TraceField> fields);
  FailoverFigures figures(SimTime end) const;

 private:
  std::map<models::TopicPartition, std::string> leaders_;   // the broker (node name) that last became leader
  std::map<models::TopicPartition, SimTime> leaderless_since_;
  FailoverFigures done_;
  std::set<std::int32_t> ignored_;
};

}  // namespace ksim::app
