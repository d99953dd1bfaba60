// The produce path of a partition leader: append, then answer at once
// (acks=0 or 1) or from the purgatory once the high watermark passes the
// batch (acks=all), as Kafka's ReplicaManager.appendRecords and DelayedProduce.
#include <algorithm>
#include <cassert>

#include "models/broker/broker.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

void Broker::handle_produce(ConnectionId connection, std::unique_ptr<ProduceRequest> request,
                            const Verdicts* verdicts) {
  if (!verdicts && verify_transactional_writes(connection, request)) return;  // KIP-890: back once verified
  auto response = std::make_unique<ProduceResponse>();
  response->correlation_id = request->correlation_id;
  response->partitions.reserve(request->partitions.size());
  SimTime returns_at = now();  // when the appends have returned (page cache pressure, fsync)
  std::vector<std::pair<std::size_t, Offset>> waiting;
  bool any_error = false;
  for (const auto& data : request->partitions) {
    response->partitions.push_back(append_produce(*request, data, returns_at, verdicts));
    const auto& result = response->partitions.back();
    any_error |= result.error != Error::None;
    if (request->acks == Acks::All && result.error == Error::None) {
      const PartitionLog& log = replica(data.partition)->log();
      waiting.emplace_back(response->partitions.size() - 1, log.batch_at(result.base_offset)->next_offset());
    }
  }
  // As ReplicaManager.appendRecords: parked follower fetches are completed
  // once, after the whole request is appended, not after each partition,
  // and after the appends return (KafkaApis.handle's tryCompleteActions runs
  // when the request handler is done, a blocked write or fsync included).
  std::vector<TopicPartition> appended;
  for (const auto& result : response->partitions) {
    if (result.error == Error::None) appended.push_back(result.partition);
  }
  wake_fetches_at(returns_at, std::move(appended));
  if (request->acks == Acks::None) {
    // No response with acks=0; on an error Kafka closes the connection so the
    // producer notices and refreshes its metadata.
    if (any_error) close(connection);
    return;
  }
  const std::uint64_t id = next_pending_id_++;
  PendingProduce pending{connection, std::move(response), std::move(waiting), TimerId{}, returns_at};
  for (const auto& [index, required] : pending.waiting) {
    replica(pending.response->partitions[index].partition)->waiting_produces.push_back(id);
  }
  const bool wait_for_replicas = !pending.waiting.empty();
  produce_purgatory_.emplace(id, std::move(pending));
  if (wait_for_replicas) {
    produce_purgatory_.at(id).timeout = set_timer(request->timeout, [this, id] { expire_produce(id); });
    for (const auto& p : request->partitions) complete_produces(p.partition);  // the HW may already be there
  } else {
    finish_produce(id);
  }
}

ProduceResponse::PartitionResponse Broker::append_produce(const ProduceRequest& request,
                                                          const ProduceRequest::PartitionData& data,
                                                          SimTime& returns_at, const Verdicts* verdicts) {
  ProduceResponse::PartitionResponse result{data.partition, Error::None, -1};
  Replica* r = replica(data.partition);
  if (!r) {  // a replica deleted here is still in the metadata: NOT_LEADER_OR_FOLLOWER (getPartitionOrError)
    result.error = departed_state(data.partition) ? Error::NotLeaderOrFollower : Error::UnknownTopicOrPartition;
    return result;
  }
  if (!replica_online(*r)) return result.error = Error::KafkaStorageError, result;
  if (!r->is_leader()) return result.error = Error::NotLeaderOrFollower, result;
  if (verdicts && verdicts->contains(data.partition)) return result.error = verdicts->at(data.partition), result;
  if (request.acks == Acks::All &&
      !r->enough_replicas_to_append(topic(r->tp()).min_insync_replicas, strict_min_isr())) {
    return result.error = Error::NotEnoughReplicas, result;  // min.insync.replicas, before the append
  }
  const ProducerStateTable::Check check =
      r->producers.check(data.batch, config_.mechanisms.has(Mechanism::ProducerEpochBump));
  switch (check.verdict) {
    case ProducerStateTable::Verdict::Append: break;
    case ProducerStateTable::Verdict::Duplicate:
      // KIP-98: a retry of a batch already written is answered with its original offset.
      result.base_offset = check.duplicate_base_offset;
      publish(DuplicateBatch{id_, r->tp(), result.base_offset});
      return result;
    case ProducerStateTable::Verdict::OutOfOrder: return result.error = Error::OutOfOrderSequenceNumber, result;
    case ProducerStateTable::Verdict::Fenced: return result.error = Error::InvalidProducerEpoch, result;
  }
  if (!write_to_disk(*r, data.batch.bytes, data.batch.record_count, returns_at)) {
    return result.error = Error::KafkaStorageError, result;
  }
  const RecordBatch& stored = r->append_as_leader(data.batch);
  changed(*r);
  r->producers.record(stored);
  maybe_flush(*r, returns_at);
  result.base_offset = stored.base_offset;
  publish(BatchAppended{id_, r->tp(), stored.base_offset, stored.record_count, stored.leader_epoch});
  maybe_advance_high_watermark(*r);
  return result;
}

// Completes the waiting produces of a partition whose high watermark (or ISR, or role) changed.
void Broker::complete_produces(TopicPartition tp) {
  if (!coordinator_appends_.empty()) complete_coordinator_appends(tp);
  Replica* r = replica(tp);
  if (!r || r->waiting_produces.empty()) return;
  std::vector<std::uint64_t> finished;
  std::erase_if(r->waiting_produces, [&](std::uint64_t id) {
    const auto it = produce_purgatory_.find(id);
    if (it == produce_purgatory_.end()) return true;
    const bool settled = settle_produce(it->second, *r);
    if (it->second.waiting.empty()) finished.push_back(id);
    return settled;
  });
  for (const std::uint64_t id : finished) finish_produce(id);
}

// Settles this partition's part of a waiting produce, if it can be: true when settled.
bool Broker::settle_produce(PendingProduce& pending, const Replica& r) {
  const auto entry = std::find_if(pending.waiting.begin(), pending.waiting.end(), [&](const auto& w) {
    return pending.response->partitions[w.first].partition == r.tp();
  });
  if (entry == pending.waiting.end()) return true;
  auto& result = pending.response->partitions[entry->first];
  if (!r.is_leader()) {
    result.error = Error::NotLeaderOrFollower;
  } else if (r.log().high_watermark() < entry->second) {
    return false;
  } else if (!r.enough_replicas(topic(r.tp()).min_insync_replicas, strict_min_isr())) {
    result.error = Error::NotEnoughReplicasAfterAppend;  // Kafka's Partition.checkEnoughReplicasReachOffset
  }
  pending.waiting.erase(entry);
  return true;
}

void Broker::expire_produce(std::uint64_t id) {
  const auto it = produce_purgatory_.find(id);
  if (it == produce_purgatory_.end()) return;
  for (const auto& w : it->second.waiting) it->second.response->partitions[w.first].error = Error::RequestTimedOut;
  it->second.waiting.clear();
  finish_produce(id);
}

void Broker::fail_produces_of(TopicPartition tp, Error error) {
  if (!coordinator_appends_.empty()) fail_coordinator_appends(tp, error);
  Replica* r = replica(tp);
  if (!r) return;
  const std::vector<std::uint64_t> ids = std::move(r->waiting_produces);
  r->waiting_produces.clear();
  for (const std::uint64_t id : ids) {
    const auto it = produce_purgatory_.find(id);
    if (it == produce_purgatory_.end()) continue;
    PendingProduce& pending = it->second;
    std::erase_if(pending.waiting, [&](const std::pair<std::size_t, Offset>& w) {
      if (pending.response->partitions[w.first].partition != tp) return false;
      pending.response->partitions[w.first].error = error;
      return true;
    });
    if (pending.waiting.empty()) finish_produce(id);
  }
}

void Broker::finish_produce(std::uint64_t id) {
  const auto it = produce_purgatory_.find(id);
  if (it == produce_purgatory_.end()) return;
  cancel_timer(it->second.timeout);
  if (it->second.not_before > now()) {
    // The request handler is still blocked in the append: answer when it returns.
    it->second.timeout = set_timer(it->second.not_before - now(), [this, id] { finish_produce(id); });
    it->second.not_before = 0;
    return;
  }
  // KIP-951 (KafkaApis.handleProduceRequest): a partition answered
  // NOT_LEADER_OR_FOLLOWER carries the leader this broker knows now.
  const bool fill_leader = config_.mechanisms.has(Mechanism::LeaderDiscovery);
  for (auto& p : it->second.response->partitions) {
    if (!fill_leader || p.error != Error::NotLeaderOrFollower) continue;
    if (const auto hint = leader_hint(p.partition)) {
      p.current_leader = hint->first;
      p.current_leader_epoch = hint->second;
    }
  }
  send(it->second.connection, std::move(it->second.response));
  produce_purgatory_.erase(it);
}

}  // namespace ksim::models
