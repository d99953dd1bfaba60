#include "models/check/committed_logs.hpp"

#include <algorithm>
#include <map>

namespace ksim::models {

std::uint64_t zombie_writes(const ClusterView& cluster) {
  std::uint64_t zombies = 0;
  for (const auto& [tp, state] : cluster.controller.partitions()) {
    if (cluster.internal_topics.contains(tp.topic) || state.leader == kNoBroker) continue;
    const Broker* leader = cluster.brokers[static_cast<std::size_t>(state.leader)];
    if (!leader->is_leader(tp)) continue;
    const PartitionLog& log = *leader->log(tp);
    std::vector<const RecordBatch*> batches;
    for (const auto& b : log.batches()) {
      if (b.next_offset() > log.high_watermark()) break;
      batches.push_back(&b);
    }
    // The marker that ends each batch's transaction (scanning back), then the epochs seen so far (forward).
    std::vector<ControlType> ends(batches.size(), ControlType::None);
    std::map<ProducerId, ControlType> next;
    for (std::size_t i = batches.size(); i-- > 0;) {
      if (batches[i]->is_control()) {
        next[batches[i]->producer_id] = batches[i]->control;
      } else if (batches[i]->transactional && next.contains(batches[i]->producer_id)) {
        ends[i] = next[batches[i]->producer_id];
      }
    }
    std::map<ProducerId, ProducerEpoch> marker_epoch;
    for (std::size_t i = 0; i < batches.size(); ++i) {
      const RecordBatch& b = *batches[i];
      if (b.is_control()) {
        marker_epoch[b.producer_id] = std::max(marker_epoch[b.producer_id], b.producer_epoch);
      } else if (b.transactional && ends[i] == ControlType::Commit && marker_epoch.contains(b.producer_id) &&
                 b.producer_epoch < marker_epoch[b.producer_id]) {
        zombies += static_cast<std::uint64_t>(b.record_count);
      }
    }
  }
  return zombies;
}

namespace {

// The batches retention deleted below the final leader's log start offset.
// Markers are left out; a deleted transactional batch counts as committed (ksim
// does not split what retention deleted by transaction).
void add_expired(const ClusterView& cluster, TopicPartition tp, Offset log_start, FinalLogs& logs) {
  if (!cluster.retention || log_start == 0) return;
  std::vector<RecordBatch> expired = cluster.retention->expired_below(tp, log_start);
  if (!expired.empty()) logs.expired[tp] = std::move(expired);
}

// The records some replica's cleaner removed that the final leader's log does
// not hold (nor retention's deleted batches below its log start): compacted.
void add_compacted(const ClusterView& cluster, TopicPartition tp, const PartitionLog& log, FinalLogs& logs) {
  if (!cluster.compaction) return;
  const auto it = cluster.compaction->removed.find(tp);
  if (it == cluster.compaction->removed.end()) return;
  const auto& expired = logs.expired[tp];
  std::size_t e = 0;
  for (const auto& [offset, record] : it->second) {
    if (offset >= log.high_watermark()) break;
    if (offset >= log.log_start_offset() && log.batch_at(offset)) continue;  // the final leader still holds it
    while (e < expired.size() && expired[e].next_offset() <= offset) ++e;
    if (e < expired.size() && expired[e].base_offset <= offset) continue;  // retention deleted it: expired
    RecordBatch one;
    one.base_offset = offset;
    one.record_count = 1;
    one.writer = record.writer;
    one.first_record = record.record;
    logs.compacted[tp].push_back(one);
  }
  if (logs.expired[tp].empty()) logs.expired.erase(tp);
}

}  // namespace

FinalLogs committed_logs(const ClusterView& cluster) {
  FinalLogs logs;
  logs.keys = cluster.keys;
  for (const auto& [tp, state] : cluster.controller.partitions()) {
    if (cluster.internal_topics.contains(tp.topic)) continue;
    const Broker* leader = state.leader == kNoBroker ? nullptr : cluster.brokers[static_cast<std::size_t>(state.leader)];
    if (!leader || !leader->is_leader(tp)) {
      logs.offline.push_back(tp);
      continue;
    }
    const PartitionLog& log = *leader->log(tp);
    // Tiered storage (KIP-405): the log starts at the remote log's start; what
    // the local log no longer holds from there is read from the remote store.
    const RemotePartitionLog* remote = cluster.remote ? cluster.remote->find(tp) : nullptr;
    const bool tiered = log.config().remote_storage_enable && cluster.remote;
    const Offset log_start = tiered && remote ? std::min(remote->log_start_offset(), log.log_start_offset()) : log.log_start_offset();
    add_expired(cluster, tp, log_start, logs);
    add_compacted(cluster, tp, log, logs);
    std::vector<RecordBatch> below_hw;
    if (remote && log_start < log.log_start_offset()) below_hw = remote->batches_between(log_start, log.log_start_offset());
    bool transactions = false;
    for (const auto& batch : below_hw) transactions |= batch.transactional || batch.is_control();
    for (const auto& batch : log.batches()) {
      if (batch.next_offset() > log.high_watermark()) {
        if (!batch.is_control()) logs.uncommitted[tp].push_back(batch);
        continue;
      }
      below_hw.push_back(batch);
      transactions |= batch.transactional || batch.is_control();
    }
    if (!transactions) {
      logs.committed[tp] = std::move(below_hw);
      continue;
    }
    split_by_transaction(below_hw, logs.committed[tp], logs.aborted[tp], logs.open[tp]);
  }
  return logs;
}

}  // namespace ksim::models
