#pragma once
// replicas_agree_on_committed_prefix: every replica of a partition holds, below
// its own high watermark, what the leader holds below its own: the same
// batches at the same offsets, from the same leader epochs and producers.
// (Kafka's RaftEventSimulationTest checks the same of its nodes as
// ConsistentCommittedData.) Each side's high watermark bounds what it counts as
// committed, so a follower's uncommitted tail from an older epoch, not yet
// truncated (KIP-101), is no divergence; committed records that differ are:
// replicas that diverged before KIP-101, or after an unclean election or a
// power loss, which nothing else notices until the diverged replica leads.
#include <optional>
#include <string>

#include "models/broker/partition.hpp"

namespace ksim::models {

struct ReplicaDivergence {
  Offset offset = 0;   // the first offset where the two committed prefixes differ
  std::string detail;  // names both replicas and what each holds there
};

// The first divergence of `replica` (on broker `replica_broker`) from `leader`
// (on `leader_broker`) below both high watermarks, if any.
std::optional<ReplicaDivergence> committed_divergence(const PartitionLog& leader, BrokerId leader_broker,
                                                      const PartitionLog& replica, BrokerId replica_broker);

}  // namespace ksim::models
