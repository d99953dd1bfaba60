#pragma once
// How long partitions go without a leader after failures: from the crash (or
// power loss) of a partition's leader until some broker becomes its leader
// again (BecameLeader, once the controller's election and metadata reached
// it). Crashes at the same instant form one incident (a broker with the
// controller: a controller failover). A clean shutdown moves leaderships
// first (controlled shutdown) and is not counted.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "models/events/model_event.hpp"
#include "sim/core/node.hpp"

namespace ksim::models {

struct FailoverIncident {
  SimTime at = 0;
  std::vector<std::string> nodes;       // what crashed
  std::uint64_t partitions = 0;         // partitions whose leader went down
  SimTime max_unavailability = 0;       // the longest any of them waited for a new leader
  double unavailable_partition_s = 0;   // summed over them
  std::uint64_t still_unavailable = 0;  // at the end of the run
};

struct FailoverFigures {
  std::vector<FailoverIncident> incidents;
  SimTime max_unavailability = 0;      // over all incidents
  double unavailable_partition_s = 0;  // over all incidents
};

class FailoverTracker {
 public:
  // Internal topics (__consumer_offsets, __transaction_state) are not counted.
  void ignore_topic(std::int32_t topic) { ignored_.insert(topic); }
  void on_event(SimTime time, const Node& from, const ModelEvent& event);
  void on_node(SimTime time, const Node& node, NodeChange change);
  FailoverFigures figures(SimTime end) const;

 private:
  void became_leader(SimTime time, TopicPartition tp, const std::string& node);
  void crashed(SimTime time, const std::string& node);

  std::map<TopicPartition, std::string> leaders_;  // the broker (node name) that last became leader
  std::map<TopicPartition, std::pair<SimTime, std::size_t>> leaderless_;  // since, incident
  std::vector<FailoverIncident> incidents_;
  std::set<std::int32_t> ignored_;
};

}  // namespace ksim::models
