// The producer's sender thread (Kafka's Sender and RecordAccumulator.ready
// and drain): which batches go to which broker, when, in which request.
#include <algorithm>
#include <cassert>

#include "models/client/producer/producer.hpp"

namespace ksim::models {

// ---------------------------------------------------------------- sender

void Producer::wake_sender() {
  if (sender_wake_pending_) return;
  sender_wake_pending_ = true;
  set_timer(0, [this] {
    sender_wake_pending_ = false;
    run_sender();
  });
}

void Producer::run_sender() {
  if (now() >= next_expiry_check_) {
    expire_batches();
    next_expiry_check_ = now() + kExpiryCheckInterval;
  }
  if (sender_busy_until_ > now()) return run_sender_at(sender_busy_until_);  // the thread is still at work
  maybe_bump_idempotent_epoch();  // Sender.runOnce: before sendProducerData
  abort_undrained_batches();
  SimTime next_check = kNever;
  auto& ready = ready_by_broker_;  // reused: no allocation per pass
  const std::size_t brokers = directory_->broker_nodes.size();
  ready.resize(brokers);
  link_full_.assign(brokers, false);
  link_skipped_.assign(brokers, false);
  for (const auto& [broker, l] : links()) {
    // NetworkClient.ready: a connection still connecting takes nothing yet (on_link_ready wakes the sender).
    link_full_[static_cast<std::size_t>(broker)] = l.connected && (!l.established || !can_send_more(broker));
  }
  if (index_metadata_ != metadata_version()) {
    sender_index_.forget_leaders();
    index_metadata_ = metadata_version();
    note_leaders();
  }
  const auto& visit = sender_index_.to_visit(now(), link_full_, link_skipped_, next_check);
  for (std::size_t p = visit.find_first(); p != SenderIndex::kEnd; p = visit.find_next(p)) {
    const TopicPartition tp{workload_.topic, static_cast<std::int32_t>(p)};
    const auto& queue = queue_of(tp);
    const auto first = first_unsent(p);
    if (first == queue.end()) {
      sender_index_.drop(p);  // nothing left to send here
      continue;
    }
    SimTime not_before = 0;
    if (!batch_ready(queue, first, next_check, not_before)) {
      if (not_before > now()) sender_index_.linger(p, not_before);
      continue;
    }
    const BrokerId leader = leader_of(tp);
    if (leader == kNoBroker) {
      refresh_metadata();
      continue;
    }
    if (!transactional()) sender_index_.ready(p, leader);
    ready[static_cast<std::size_t>(leader)].push_back(*first);
  }
  bool sent = false;
  for (std::size_t broker = 0; broker < ready.size(); ++broker) {
    if (link_skipped_[broker] && ready[broker].empty()) plan_stale_ = true;  // what send_to() does before finding no room
    if (ready[broker].empty()) continue;
    const auto b = static_cast<BrokerId>(broker);
    if (!link_full_[broker]) drain_for(b, ready[broker]);
    sent |= send_to(b, ready[broker]);
    ready[broker].clear();
  }
  if (sent) wake_sender();  // one request per broker per pass: drain the rest next
  run_sender_at(next_check);
}

void Producer::run_sender_at(SimTime at) {
  if (at >= sender_timer_at_) return;
  cancel_timer(sender_timer_);
  sender_timer_at_ = at;
  sender_timer_ = set_timer(std::max<SimTime>(0, at - now()), [this] {
    sender_timer_at_ = kNever;
    run_sender();
  });
}

// A broker with a ready batch gets the first unsent batch of every
// partition it leads, lingering or not (RecordAccumulator.drainBatchesForOneNode
// checks neither linger.ms nor fullness), unless it is backing off or
// idempotence or the transaction holds it (shouldStopDrainBatchesForPartition).
// The request takes them from the broker's drain index on, which stays on the
// partition that did not fit, or steps back one when all did (Kafka's
// updateDrainIndex is called for each partition visited, before the size check).
void Producer::drain_for(BrokerId broker, std::vector<BatchPtr>& batches) {
  const auto& led = led_by_[static_cast<std::size_t>(broker)];
  const SenderIndex::Partitions& lingering = sender_index_.lingering();
  for (std::size_t p = led.find_first(); p != SenderIndex::kEnd; p = led.find_next(p)) {
    if (!lingering.test(p)) continue;
    const auto& queue = queues_[p];
    const auto first = first_unsent(p);
    if (first == queue.end()) continue;
    Batch& b = **first;
    if (b.attempts > 0 && retry_not_before(b) > now()) continue;  // backing off
    if (sequences_hold(queue, first)) continue;
    if (transactional() && !partition_in_txn(b.partition)) continue;
    batches.push_back(*first);
  }
  std::sort(batches.begin(), batches.end(),
            [](const BatchPtr& x, const BatchPtr& y) { return x->partition.partition < y->partition.partition; });
  const std::int32_t start = drain_start_[static_cast<std::size_t>(broker)];
  const auto from = std::find_if(batches.begin(), batches.end(), [&](const BatchPtr& x) { return x->partition.partition >= start; });
  std::rotate(batches.begin(), from, batches.end());
}

// Where the broker's next drain starts, once `sent` of `batches` (in drain order) went.
void Producer::advance_drain_index(BrokerId broker, const std::vector<BatchPtr>& batches, std::size_t sent) {
  std::int32_t& start = drain_start_[static_cast<std::size_t>(broker)];
  if (sent < batches.size()) {
    start = batches[sent]->partition.partition;  // the one that did not fit
    return;
  }
  // All fitted: the last partition visited is the one before the start, among those the broker leads.
  const auto& led = led_by_[static_cast<std::size_t>(broker)];
  std::int32_t before = -1, last = -1;
  for (std::size_t p = led.find_first(); p != SenderIndex::kEnd; p = led.find_next(p)) {
    if (static_cast<std::int32_t>(p) < start) before = static_cast<std::int32_t>(p);
    last = static_cast<std::int32_t>(p);
  }
  start = before >= 0 ? before : last;
}

// The partitions each broker leads, from the metadata.
void Producer::note_leaders() {
  const std::size_t brokers = directory_->broker_nodes.size();
  led_by_.assign(brokers, SenderIndex::Partitions(queues_.size()));
  drain_start_.resize(brokers, 0);
  for (std::size_t p = 0; p < queues_.size(); ++p) {
    const BrokerId leader = leader_of({workload_.topic, static_cast<std::int32_t>(p)});
    if (leader != kNoBroker && static_cast<std::size_t>(leader) < brokers) led_by_[static_cast<std::size_t>(leader)].set(p);
  }
}

// The single sender thread builds each request and completes each response:
// with client CPU costs it is busy that long, and sends nothing meanwhile.
void Producer::charge_sender(std::size_t batches) {
  const ClientCpuCosts& c = workload_.cpu;
  if (!c.enabled()) return;
  const SimTime cost = c.request + static_cast<SimTime>(batches) * c.batch;
  sender_busy_until_ = std::max(sender_busy_until_, now()) + cost;
  stats_.sender_cpu_ns += cost;
}

// The partition's first unsent batch may go if it is full, has lingered or
// a send() waits for buffer memory (RecordAccumulator.ready's `exhausted`),
// its backoff is over, and (with idempotence) order cannot break.
// RecordAccumulator.shouldBackoff: a retry waits out its backoff, unless the
// partition's leader epoch rose since it was last tried (KIP-951:
// ProducerBatch.hasLeaderChangedForTheOngoingRetry).
SimTime Producer::retry_not_before(Batch& b) const {
  if (!config_.mechanisms.has(Mechanism::LeaderDiscovery)) return b.retry_at;
  const Epoch epoch = leader_epoch_of(b.partition);
  if (epoch > b.leader_epoch) {  // maybeUpdateLeaderEpoch
    b.leader_epoch = epoch;
    b.attempts_when_leader_changed = b.attempts;
  }
  const bool leader_changed = b.attempts >= 1 && b.attempts == b.attempts_when_leader_changed;
  return leader_changed ? 0 : b.retry_at;
}

bool Producer::batch_ready(const BatchQueue& queue, BatchQueue::const_iterator first,
                           SimTime& next_check, SimTime& not_before) {
  Batch& b = **first;
  if (sequences_hold(queue, first)) return false;
  if (transactional() && !partition_in_txn(b.partition)) return false;  // AddPartitionsToTxn first
  const bool exhausted = blocked_.has_value() && blocked_on_ == BlockedOn::Memory;
  const bool full = b.closed || std::next(first) != queue.end();
  const SimTime sendable_at =
      std::max(retry_not_before(b), full || exhausted || b.attempts > 0 ? b.created : b.created + config_.linger);
  if (sendable_at > now()) {
    next_check = std::min(next_check, sendable_at);
    not_before = sendable_at;
    return false;
  }
  return true;
}

// In-flight batches stay at the front of their queue until answered: the
// sender looks past those it already knows of.
Producer::BatchQueue::const_iterator Producer::first_unsent(std::size_t partition) {
  const auto& queue = queues_[partition];
  std::size_t& prefix = in_flight_prefix_[partition];
  prefix = std::min(prefix, queue.size());
  const auto first = std::find_if(queue.begin() + static_cast<std::ptrdiff_t>(prefix), queue.end(),
                                  [](const BatchPtr& b) { return !b->in_flight; });
  prefix = static_cast<std::size_t>(first - queue.begin());
  return first;
}

void Producer::remove_from_queue(const BatchPtr& b) {
  auto& queue = queue_of(b->partition);
  const auto it = std::find(queue.begin(), queue.end(), b);
  if (it == queue.end()) return;
  std::size_t& prefix = in_flight_prefix_[static_cast<std::size_t>(b->partition.partition)];
  if (static_cast<std::size_t>(it - queue.begin()) < prefix) --prefix;
  queue.erase(it);
  note_open_batch(b->partition);
}

void Producer::note_open_batch(TopicPartition tp) {
  const auto& queue = queue_of(tp);
  OpenBatch& open = open_batches_[static_cast<std::size_t>(tp.partition)];
  const bool is_open = !queue.empty() && !queue.back()->closed && !queue.back()->in_flight;
  if (!is_open) {
    open = OpenBatch{};
    return;
  }
  const Batch& b = *queue.back();
  open = OpenBatch{b.records.bytes, b.reserved_bytes, b.records.record_count, b.record_times.front()};
}

// The history counts each producer's records per partition in a map: the
// producer keeps where each of its counts is (map nodes stay put).
std::uint64_t& Producer::produced_count(TopicPartition tp) {
  if (tp.topic != workload_.topic) return history_.produced[{index_, tp}];
  std::uint64_t*& count = produced_counts_[static_cast<std::size_t>(tp.partition)];
  if (!count) count = &history_.produced[{index_, tp}];
  return *count;
}

// The partition's queue changed: its sendable time must be worked out again.
void Producer::touch(TopicPartition tp) { sender_index_.touch(static_cast<std::size_t>(tp.partition)); }

bool Producer::send_to(BrokerId broker, const std::vector<BatchPtr>& batches) {
  plan_stale_ = true;  // batches close as they are sent
  // Sender.sendProducerData: batches go only to a node whose connection is
  // ready (NetworkClient.ready, which starts a connect when there is none);
  // the others stay in the accumulator.
  if (!ensure_connected(broker)) {
    // Backing off: look again when the backoff ends, with fresh metadata (the leader may have moved).
    if (!reconnect_pending_) {
      reconnect_pending_ = true;
      set_timer(std::max<SimTime>(0, link(broker).retry_at - now()), [this] {
        reconnect_pending_ = false;
        refresh_metadata();
        wake_sender();
      });
    }
    return false;
  }
  BrokerLink& l = link(broker);
  if (!l.established) return false;  // connecting: on_link_ready wakes the sender
  if (!can_send_more(broker)) return false;
  auto request = std::make_unique<ProduceRequest>();
  request->correlation_id = next_correlation_id();
  request->acks = config_.acks;
  request->timeout = config_.request_timeout;
  request->transactional_id = config_.transactional_id;
  request->transaction_v2 = config_.transaction_v2;  // Produce v12+
  request->partitions.reserve(batches.size());
  std::uint64_t size = kRequestHeaderBytes;
  std::vector<BatchPtr> sent;
  sent.reserve(batches.size());
  for (const BatchPtr& b : batches) {
    if (!sent.empty() && size + b->records.bytes > config_.max_request_size) break;
    b->closed = true;
    note_open_batch(b->partition);
    touch(b->partition);
    if (config_.enable_idempotence && !b->sequenced) {
      // RecordAccumulator.drainBatchesForOneNode: a partition whose sequences
      // are of an older id or epoch, none of them unanswered, starts again at
      // 0 (maybeUpdateProducerIdAndEpoch); sequences_hold kept it back until then.
      const auto p = static_cast<std::size_t>(b->partition.partition);
      if (sequences_.stale(p, producer_id_, producer_epoch_)) {
        assert(!has_sequenced_batches(p));
        sequences_.start_at_beginning(p, producer_id_, producer_epoch_, 0);
      }
      b->records.producer_id = producer_id_;
      b->records.producer_epoch = producer_epoch_;
      b->records.base_sequence = sequences_.take(p, b->records.record_count);
      b->sequenced = true;
    }
    b->records.create_time = b->created;
    b->records.transactional = transactional();
    b->in_flight = true;
    if (b->attempts++ > 0) ++stats_.retries;
    ++history_.produce_attempts;
    size += b->records.bytes;
    request->partitions.push_back({b->partition, b->records});
    sent.push_back(b);
  }
  advance_drain_index(broker, batches, sent.size());
  ++stats_.requests;
  stats_.batches += sent.size();
  charge_sender(sent.size());
  const std::int64_t correlation = request->correlation_id;
  const auto tracked = send_tracked(l.connection, std::move(request), config_.send_buffer_bytes);
  ++l.in_flight;
  const TimerId timeout = set_timer(config_.request_timeout, [this, correlation] { request_timed_out(correlation); });
  in_flight_.emplace(correlation, InFlight{broker, std::move(sent), timeout, tracked ? tracked->position : 0, false});
  if (!tracked) return true;  // the connection closed under it: failed with it (on_connection_closed)
  if (static_cast<std::size_t>(broker) >= unwritten_.size()) unwritten_.resize(static_cast<std::size_t>(broker) + 1, 0);
  ++unwritten_[static_cast<std::size_t>(broker)];
  if (tracked->written) written(correlation);
  return true;
}

bool Producer::can_send_more(BrokerId broker) const {
  const auto b = static_cast<std::size_t>(broker);
  const auto l = links().find(broker);
  const int in_flight = l == links().end() ? 0 : l->second.in_flight;
  return in_flight < config_.max_in_flight_requests_per_connection && (b >= unwritten_.size() || unwritten_[b] == 0);
}

// NetworkClient.handleCompletedSends: the socket took the whole request. An
// acks=0 request is complete then (Sender.handleProduceResponse, no
// response): its batches are done and their memory freed.
void Producer::written(std::int64_t correlation) {
  const auto it = in_flight_.find(correlation);
  if (it == in_flight_.end() || it->second.written) return;
  it->second.written = true;
  --unwritten_[static_cast<std::size_t>(it->second.broker)];
  if (config_.acks == Acks::None) {
    InFlight request = std::move(it->second);
    in_flight_.erase(it);
    cancel_timer(request.timeout);
    --link(request.broker).in_flight;
    for (const BatchPtr& b : request.batches) {
      b->in_flight = false;
      in_flight_prefix_[static_cast<std::size_t>(b->partition.partition)] = 0;
      if (!b->done) acknowledge(b, -1);  // nothing comes back
    }
  }
  wake_sender();
}

void Producer::on_written(ConnectionId connection, std::uint64_t position) {
  for (const auto& [correlation, request] : in_flight_) {
    if (request.position == position && !request.written && link(request.broker).connection == connection) {
      return written(correlation);
    }
  }
}

}  // namespace ksim::models
