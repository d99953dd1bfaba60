#pragma once
// What the cluster committed, read from each partition's leader at the end
// of a run: its log up to the high watermark (split by transaction where it
// has any), and the partitions without a live leader. Internal topics are
// left out: the checkers read user topics. Also the committed records a
// fenced producer epoch wrote after a newer epoch's marker (zombie writes).
#include <cstdint>
#include <set>
#include <vector>

#include "models/broker/broker.hpp"
#include "models/check/delivery_checker.hpp"
#include "models/controller/controller_quorum.hpp"
#include "models/history/compaction_history.hpp"
#include "models/history/retention_history.hpp"
#include "models/log/remote_log.hpp"
#include "models/protocol/record_keys.hpp"

namespace ksim::models {

struct ClusterView {
  const ControllerQuorum& controller;  // the committed metadata
  const std::vector<Broker*>& brokers;  // by broker id
  std::set<std::int32_t> internal_topics;  // __consumer_offsets, __transaction_state
  const RetentionHistory* retention = nullptr;  // what retention deleted (null: nothing)
  const CompactionHistory* compaction = nullptr;  // what the log cleaner removed (null: nothing)
  const RecordKeyStore* keys = nullptr;  // the keys of compacted topics' records (null: none compacts)
  // Tiered storage's remote store (null: none): a tiered partition's log
  // starts there, below the final leader's local log.
  const RemoteStorage* remote = nullptr;
};

FinalLogs committed_logs(const ClusterView& cluster);
std::uint64_t zombie_writes(const ClusterView& cluster);

}  // namespace ksim::models
