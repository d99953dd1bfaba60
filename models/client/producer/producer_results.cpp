// The outcome of each batch the producer sent, as the Java client's Sender
// (handleProduceResponse, completeBatch, failBatch) and RecordAccumulator
// (expiredBatches) decide it: acknowledged, retried after a backoff, or
// failed (delivery.timeout.ms, a fatal error, retries exhausted); a request
// timed out or lost with its connection fails its batches retriably.
#include <algorithm>

#include "models/client/exponential_backoff.hpp"
#include "models/client/producer/producer.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

void Producer::handle_produce_response(ConnectionId, const ProduceResponse& response) {
  const auto it = in_flight_.find(response.correlation_id);
  if (it == in_flight_.end()) return;
  InFlight request = std::move(it->second);
  in_flight_.erase(it);
  cancel_timer(request.timeout);
  --link(request.broker).in_flight;
  if (!request.written) --unwritten_[static_cast<std::size_t>(request.broker)];  // the answer came first
  charge_sender(request.batches.size());
  for (const auto& result : response.partitions) {
    if (config_.mechanisms.has(Mechanism::LeaderDiscovery) && result.error == Error::NotLeaderOrFollower &&
        result.current_leader != kNoBroker && result.current_leader_epoch >= 0) {
      update_partition_leadership(result.partition, result.current_leader, result.current_leader_epoch);
    }
    for (const BatchPtr& b : request.batches) {
      if (b->partition == result.partition) handle_result(b, result.error, result.base_offset);
    }
  }
  wake_sender();
}

void Producer::handle_result(const BatchPtr& b, Error error, Offset base_offset) {
  b->in_flight = false;
  // Failed at delivery.timeout.ms while in flight: Kafka's ProducerBatch.done
  // ignores the answer (its records may be written: "failed but written").
  if (b->done) return;
  in_flight_prefix_[static_cast<std::size_t>(b->partition.partition)] = 0;  // it may be anywhere in the prefix
  if (error == Error::None || error == Error::DuplicateSequenceNumber) {
    acknowledge(b, base_offset);
    return;
  }
  if (transactional() && (error == Error::InvalidProducerEpoch || error == Error::ProducerFenced)) {
    fail(b, Error::ProducerFenced);
    return txn_fatal(Error::ProducerFenced);  // a newer instance has this transactional.id
  }
  if (error == Error::OutOfOrderSequenceNumber && idempotent_only() &&
      config_.mechanisms.has(Mechanism::ProducerEpochBump)) {
    if (retry_sequence_error(b)) return retry_or_fail(b, error);
  }
  if (error == Error::OutOfOrderSequenceNumber && b->records.producer_epoch == producer_epoch_ &&
      b->records.producer_id == producer_id_ && earlier_batch_unresolved(*b)) {
    // It only arrived out of turn: retried after the earlier one (the first
    // branch of TransactionManager.canRetry).
    retry_or_fail(b, Error::NetworkException);
    return;
  }
  if (transactional() && (error == Error::OutOfOrderSequenceNumber || error == Error::InvalidTxnState)) {
    fail(b, error);  // an abortable error: the transaction will abort
    return;
  }
  if (error == Error::NotLeaderOrFollower || error == Error::UnknownTopicOrPartition ||
      error == Error::KafkaStorageError) {
    refresh_metadata();
  }
  if (error == Error::OutOfOrderSequenceNumber && !transactional()) {
    // Before KIP-360 (2.0-2.4's TransactionManager.handleFailedBatch): a gap
    // fails the batch, and the producer resets its id and sequences.
    const bool current = b->records.producer_epoch == producer_epoch_ && b->records.producer_id == producer_id_;
    fail(b, error);
    if (current) init_producer_id();
    return;
  }
  if (is_retriable(error)) {
    retry_or_fail(b, error);
  } else {
    // INVALID_PRODUCER_EPOCH (an attempt of an epoch the broker has left) among them.
    fail_sequenced(b, error, b->attempts <= config_.retries);
  }
}

// Is a batch with a lower sequence of the same partition and epoch still
// waiting for its outcome (in flight, or queued for a retry)?
bool Producer::earlier_batch_unresolved(const Batch& batch) const {
  for (const BatchPtr& other : queue_of(batch.partition)) {
    if (other.get() != &batch && other->sequenced && other->records.producer_epoch == batch.records.producer_epoch &&
        other->records.base_sequence < batch.records.base_sequence) {
      return true;
    }
  }
  return false;
}

// retries and delivery.timeout.ms decide whether a failed attempt is tried again.
void Producer::retry_or_fail(const BatchPtr& b, Error error) {
  const bool attempts_left = b->attempts <= config_.retries;
  const bool in_time = !config_.mechanisms.has(Mechanism::DeliveryTimeout) || now() < expiry_of(*b);
  if (!attempts_left || !in_time) {
    fail_sequenced(b, in_time ? error : Error::DeliveryTimeout, attempts_left);
    return;
  }
  b->retry_at = now() + backoff(b->attempts);
  b->in_retry = true;
  sender_index_.add(static_cast<std::size_t>(b->partition.partition));
  touch(b->partition);
  plan_stale_ = true;
  if (!config_.enable_idempotence) {
    // Kafka's RecordAccumulator.reenqueue: without idempotence a retried batch
    // goes back to the front of its queue (addFirst). When several in-flight
    // batches of a partition fail together, they end up in reverse order.
    remove_from_queue(b);
    queue_of(b->partition).push_front(b);
    note_open_batch(b->partition);
    in_flight_prefix_[static_cast<std::size_t>(b->partition.partition)] = 0;
  }
}

// KIP-580: RecordAccumulator asks Kafka's ExponentialBackoff for backoff(attempts - 1).
SimTime Producer::backoff(int attempts) {
  return exponential_backoff(config_.retry_backoff, config_.retry_backoff_max, attempts - 1, rng());
}

void Producer::acknowledge(const BatchPtr& b, Offset base_offset) {
  const RecordRange range{index_, b->partition, b->records.first_record, b->records.record_count};
  if (transactional() && txn_state_ == TxnState::FatalError) {
    history_.failures.push_back({range, Error::ProducerFenced, now()});  // its transaction will never commit
  } else if (transactional()) {
    txn_acks_.push_back({range, base_offset, now()});  // final when the transaction commits
  } else {
    history_.acks.push_back({range, base_offset, now()});
  }
  if (b->sequenced) {  // TransactionManager.handleCompletedBatch
    sequences_.acknowledged(static_cast<std::size_t>(b->partition.partition),
                            b->records.base_sequence + b->records.record_count - 1);
  }
  stats_.records_acked += static_cast<std::uint64_t>(b->records.record_count);
  stats_.bytes_acked += b->value_bytes;
  for (const SimTime t : b->record_times) {
    (t < workload_.warmup_end ? stats_.warmup_latency : stats_.latency).record(now() - t);
  }
  finish(b);
}

void Producer::fail(const BatchPtr& b, Error error) {
  const RecordRange range{index_, b->partition, b->records.first_record, b->records.record_count};
  history_.failures.push_back({range, error, now()});
  stats_.records_failed += static_cast<std::uint64_t>(b->records.record_count);
  if (transactional()) {
    txn_abortable_ = true;
    // The client's own abort of undrained batches never touched their sequences.
    // Transactions v2 bumps the epoch with every EndTxn, so the client never
    // asks for a bump itself (TransactionManager.needToTriggerEpochBumpFromClient).
    if (error != Error::TransactionAborted && !config_.transaction_v2) txn_epoch_bump_required_ = true;
  }
  publish(BatchFailed{b->partition, b->records.record_count, error});
  finish(b);
}

void Producer::finish(const BatchPtr& b) {
  b->done = true;
  plan_stale_ = true;
  touch(b->partition);
  remove_from_queue(b);
  memory_used_ -= b->reserved_bytes;
  unblock_if_possible();
  if (transactional()) txn_step();  // a commit or abort waits for the last batch
  maybe_flushed();
}

// When a batch expires. delivery.timeout.ms bounds its whole life (KIP-91,
// 2.1): waiting in the accumulator (RecordAccumulator.expiredBatches) and in
// flight (Sender.getExpiredInflightBatches: failed with a TimeoutException,
// its memory freed, its request left to answer). Before, only a batch
// waiting in the accumulator expired, request.timeout.ms after its linger or
// its retry's backoff (ProducerBatch.maybeExpire, 2.0).
SimTime Producer::expiry_of(const Batch& b) const {
  if (config_.mechanisms.has(Mechanism::DeliveryTimeout)) return saturating_add(b.created, config_.delivery_timeout);
  if (b.in_flight) return kNever;
  return saturating_add(b.in_retry ? b.retry_at : b.created + config_.linger, config_.request_timeout);
}

// Checked every kExpiryCheckInterval, so a batch may expire up to that late.
void Producer::expire_batches() {
  if (now() < next_expiry_) return;
  // A batch created, or failed back into the accumulator, from now on expires no sooner than this.
  next_expiry_ = saturating_add(now(), config_.mechanisms.has(Mechanism::DeliveryTimeout) ? config_.delivery_timeout
                                                                                           : config_.request_timeout);
  std::vector<BatchPtr> expired;
  for (auto& queue : queues_) {
    for (const BatchPtr& b : queue) {
      const SimTime expiry = expiry_of(*b);
      if (now() >= expiry) {
        expired.push_back(b);
      } else {
        next_expiry_ = std::min(next_expiry_, expiry);
      }
    }
  }
  for (const BatchPtr& b : expired) {
    const auto p = static_cast<std::size_t>(b->partition.partition);
    if (b->in_flight) in_flight_prefix_[p] = 0;
    // Sender.sendProducerData: a retried batch may be written or not; no new
    // batch of its partition goes until that is resolved (markSequenceUnresolved).
    if (idempotent_only() && b->sequenced && b->in_retry) {
      sequences_.mark_unresolved(p, b->records.base_sequence + b->records.record_count);
    }
    fail(b, Error::DeliveryTimeout);
  }
}

// request.timeout.ms: the client gives up on the connection, failing all in flight on it.
void Producer::request_timed_out(std::int64_t correlation_id) {
  const auto it = in_flight_.find(correlation_id);
  if (it == in_flight_.end()) return;
  const BrokerId broker = it->second.broker;
  BrokerLink& l = link(broker);
  publish(ProduceRequestTimedOut{broker});
  if (l.connected) {
    close(l.connection);
    link_closed(l);
  }
  fail_in_flight_on(broker);
  refresh_metadata();
  wake_sender();
}

void Producer::fail_in_flight_on(BrokerId broker) {
  std::vector<std::int64_t> failed;
  for (const auto& [correlation, request] : in_flight_) {
    if (request.broker == broker) failed.push_back(correlation);
  }
  for (const std::int64_t correlation : failed) {
    InFlight request = std::move(in_flight_.at(correlation));
    in_flight_.erase(correlation);
    cancel_timer(request.timeout);
    for (const BatchPtr& b : request.batches) handle_result(b, Error::NetworkException, -1);
  }
  link(broker).in_flight = 0;
  if (static_cast<std::size_t>(broker) < unwritten_.size()) unwritten_[static_cast<std::size_t>(broker)] = 0;
}

}  // namespace ksim::models
