#pragma once
// Liveness: has the cluster converged once faults are over and the
// workload has ended (the liveness phase after a safety phase, as
// TigerBeetle's VOPR has it)? Every partition has a running leader with
// every replica in its ISR (no under-replicated partition), no producer
// holds a record unsent or unacknowledged, no transaction is left open on a
// partition, and every consumer group is stable and has processed every
// partition up to its last stable offset. While it has not, reason() says
// what is still pending.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/check/committed_logs.hpp"
#include "models/client/consumer/consumer.hpp"
#include "models/client/producer/producer.hpp"
#include "models/history/consumption_history.hpp"

namespace ksim::models {

class Convergence {
 public:
  Convergence(ClusterView cluster, const std::vector<Producer*>& producers, const std::vector<Consumer*>& consumers,
              const ConsumptionHistory& history);

  // What is not converged yet, or nullopt when everything is.
  std::optional<std::string> reason();

 private:
  std::optional<std::string> partitions_reason() const;
  std::optional<std::string> producers_reason() const;
  std::optional<std::string> groups_reason();

  ClusterView cluster_;
  const std::vector<Producer*>& producers_;
  const std::vector<Consumer*>& consumers_;
  const ConsumptionHistory& history_;
  std::size_t processed_seen_ = 0;  // history_.processed read so far
  std::map<std::pair<std::string, TopicPartition>, Offset> processed_to_;  // by group: the end of what it processed
};

}  // namespace ksim::models
