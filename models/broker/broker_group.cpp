// The broker as the host of its group coordinator: it answers FindCoordinator
// from the metadata of __consumer_offsets, hands group requests to the
// coordinator, loads and unloads groups as it gains and loses leadership of
// __consumer_offsets partitions, and appends the coordinator's records with
// acks=all semantics (offsets.commit.required.acks = -1), answering once the
// high watermark passes them or offsets.commit.timeout.ms expires.
#include <algorithm>
#include <cassert>

#include "models/broker/broker.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

void Broker::observe_groups(ConsumptionHistory* history) {
  if (directory_->offsets_topic < 0) return;
  coordinator_ = std::make_unique<GroupCoordinator>(static_cast<CoordinatorHost&>(*this), config_.group_coordinator, *directory_->coordinator_records,
                                                    history);
}

// Group requests go to the coordinator; clients send them only when the cluster has __consumer_offsets.
GroupCoordinator& Broker::group_coordinator() {
  assert(coordinator_ && "a group request at a broker without a group coordinator");
  return *coordinator_;
}

// The coordinator is the leader of the group's partition, as this broker's metadata knows it.
void Broker::handle_find_coordinator(ConnectionId connection, const FindCoordinatorRequest& request) {
  auto response = std::make_unique<FindCoordinatorResponse>();
  response->correlation_id = request.correlation_id;
  const std::int32_t internal = request.transaction ? directory_->transaction_topic : directory_->offsets_topic;
  if (internal < 0) {
    response->error = Error::CoordinatorNotAvailable;
  } else {
    const std::int32_t p = group_partition(request.group, topic({internal, 0}).partitions);
    response->coordinator = leader_of({internal, p});
    if (response->coordinator == kNoBroker) response->error = Error::CoordinatorNotAvailable;
  }
  send(connection, std::move(response));
}

// Every partition's leader and epoch, as the controller's metadata says: for FindCoordinator, transaction
// markers and Metadata requests.
void Broker::record_leaders(const std::vector<PartitionState>& states) {
  if (leaders_.size() != replica_index_.size()) leaders_.assign(replica_index_.size(), {kNoBroker, 0});
  if (known_topics_.empty()) known_topics_.assign(directory_->topics.size(), false);
  for (const PartitionState& state : states) {
    known_topics_[static_cast<std::size_t>(state.partition.topic)] = true;
    leaders_[static_cast<std::size_t>(topic_base_[static_cast<std::size_t>(state.partition.topic)] +
                                      state.partition.partition)] = {state.leader, state.leader_epoch};
  }
}

// The partitions KIP-848's and KIP-932's assignors see: none for a topic its metadata does not have yet.
std::int32_t Broker::coordinator_partition_count(std::int32_t topic) const {
  const auto t = static_cast<std::size_t>(topic);
  return t < known_topics_.size() && known_topics_[t] ? directory_->topics[t].partitions : 0;
}

BrokerId Broker::leader_of(TopicPartition tp) const {
  const auto index = static_cast<std::size_t>(topic_base_[static_cast<std::size_t>(tp.topic)] + tp.partition);
  return index < leaders_.size() ? leaders_[index].first : kNoBroker;
}

// KIP-320: where the consumer's last epoch ends in this leader's log.
void Broker::handle_offsets_for_leader_epoch(ConnectionId connection, const OffsetsForLeaderEpochRequest& request) {
  auto response = std::make_unique<OffsetsForLeaderEpochResponse>();
  response->correlation_id = request.correlation_id;
  for (const auto& p : request.partitions) {
    OffsetsForLeaderEpochResponse::PartitionData answer{p.partition};
    const Replica* r = replica(p.partition);
    if (!r || !r->is_leader() || !replica_online(*r)) {
      answer.error = Error::NotLeaderOrFollower;
    } else if (p.current_leader_epoch < r->state().leader_epoch) {
      answer.error = Error::FencedLeaderEpoch;
    } else if (p.current_leader_epoch > r->state().leader_epoch) {
      answer.error = Error::UnknownLeaderEpoch;
    } else if (const auto end = r->log().end_offset_for_epoch(p.leader_epoch)) {
      answer.leader_epoch = end->epoch;
      answer.end_offset = end->end_offset;
    }
    response->partitions.push_back(answer);
  }
  send(connection, std::move(response));
}

// Leading a __consumer_offsets partition makes this broker the coordinator of its groups.
void Broker::coordinator_leadership(const Replica& r) {
  const bool leads = r.is_leader() && replica_online(r);
  if (coordinator_ && r.tp().topic == directory_->offsets_topic) {
    if (leads) {
      coordinator_->load(r.tp().partition, r.log());
    } else {
      coordinator_->unload(r.tp().partition);
    }
  }
  if (txn_coordinator_ && r.tp().topic == directory_->transaction_topic) {
    if (leads) {
      txn_coordinator_->load(r.tp().partition, r.log());
    } else {
      txn_coordinator_->unload(r.tp().partition);
    }
  }
}

TimerId Broker::coordinator_timer(SimTime delay, std::function<void()> callback) {
  return set_timer(delay, [callback = std::move(callback)] { callback(); });
}

void Broker::coordinator_append(std::int32_t partition, std::uint64_t record_id, std::function<void(Error)> done) {
  internal_append({directory_->offsets_topic, partition}, coordinator_batch(record_id),
                  config_.group_coordinator.offsets_commit_timeout, std::move(done));
}

RecordBatch Broker::coordinator_batch(std::uint64_t record_id) const {
  const CoordinatorRecord& record = directory_->coordinator_records->at(record_id);
  RecordBatch batch;
  batch.record_count = record.record_count();
  batch.bytes = record.bytes();
  batch.writer = kCoordinatorWriter;
  batch.first_record = record_id;
  batch.create_time = now();
  if (record.producer_id != kNoProducerId) {  // a transactional offset commit
    batch.producer_id = record.producer_id;
    batch.producer_epoch = record.producer_epoch;
    batch.transactional = true;
  }
  return batch;
}

// A write of the broker's own (coordinator records, transaction markers) to a
// partition it leads, answered once the high watermark passes it (acks=-1)
// or `timeout` passes.
void Broker::internal_append(TopicPartition tp, RecordBatch batch, SimTime timeout, std::function<void(Error)> done) {
  const std::uint64_t id = next_pending_id_++;
  coordinator_appends_[id] = CoordinatorAppend{tp, 0, std::move(done), TimerId{}};
  Replica* r = replica(tp);
  if (!r || !r->is_leader() || !replica_online(*r)) return finish_coordinator_append(id, Error::NotLeaderOrFollower);
  if (!r->enough_replicas_to_append(topic(tp).min_insync_replicas, strict_min_isr())) {
    return finish_coordinator_append(id, Error::NotEnoughReplicas);
  }
  SimTime returns_at = now();
  if (!write_to_disk(*r, batch.bytes, batch.record_count, returns_at)) {
    return finish_coordinator_append(id, Error::KafkaStorageError);
  }
  const RecordBatch& stored = r->append_as_leader(batch);
  changed(*r);
  r->producers.record(stored);  // a marker ends its producer's transaction here
  maybe_flush(*r, returns_at);
  CoordinatorAppend& pending = coordinator_appends_.at(id);
  pending.required = stored.next_offset();
  pending.timeout = set_timer(std::max(timeout, returns_at - now()),
                              [this, id] { finish_coordinator_append(id, Error::RequestTimedOut); });
  wake_fetches_at(returns_at, {tp});
  maybe_advance_high_watermark(*r);
  complete_coordinator_appends(tp);
}

void Broker::complete_coordinator_appends(TopicPartition tp) {
  const Replica* r = replica(tp);
  if (!r) return;
  std::vector<std::uint64_t> done;
  for (const auto& [id, pending] : coordinator_appends_) {
    if (pending.tp == tp && pending.required > 0 && r->log().high_watermark() >= pending.required) done.push_back(id);
  }
  for (const std::uint64_t id : done) finish_coordinator_append(id, Error::None);
}

void Broker::fail_coordinator_appends(TopicPartition tp, Error error) {
  std::vector<std::uint64_t> failed;
  for (const auto& [id, pending] : coordinator_appends_) {
    if (pending.tp == tp) failed.push_back(id);
  }
  for (const std::uint64_t id : failed) finish_coordinator_append(id, error);
}

// The coordinator hears of the outcome in an event of its own, never inside its own call.
void Broker::finish_coordinator_append(std::uint64_t id, Error error) {
  const auto it = coordinator_appends_.find(id);
  if (it == coordinator_appends_.end()) return;
  cancel_timer(it->second.timeout);
  std::function<void(Error)> done = std::move(it->second.done);
  coordinator_appends_.erase(it);
  coordinator_timer(0, [done = std::move(done), error] { done(error); });
}

}  // namespace ksim::models
