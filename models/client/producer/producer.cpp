#include "models/client/producer/producer.hpp"

#include <algorithm>
#include <string>

#include "models/protocol/record_keys.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

Producer::Producer(Simulation& sim, std::string name, HostId host, std::uint32_t index, ProducerConfig config,
                   ProducerWorkload workload, std::shared_ptr<const ClusterDirectory> directory,
                   ModelEventBus& events, DeliveryHistory& history)
    : KafkaClient(sim, std::move(name), host, directory, events, workload.topic,
                  ClientTimeouts{config.request_timeout, config.retry_backoff, config.reconnect_backoff, config.retry_backoff_max,
                                 config.reconnect_backoff_max, config.connection_setup_timeout}),
      index_(index),
      config_(config),
      workload_(workload),
      history_(history),
      arrivals_(workload, directory_->topics[static_cast<std::size_t>(workload.topic)].partitions, config.batch_size,
                directory_->topics[static_cast<std::size_t>(workload.topic)].record_format, config.linger,
                sim.stream(this->name() + "/workload"), sim.stream(this->name() + "/partitioner"), config.partitioner,
                config.partitioner_ignore_keys),
      queues_(static_cast<std::size_t>(directory_->topics[static_cast<std::size_t>(workload.topic)].partitions)),
      in_flight_prefix_(queues_.size(), 0),
      produced_counts_(queues_.size(), nullptr),
      open_batches_(queues_.size()),
      sender_index_(queues_.size(), directory_->broker_nodes.size()),
      sequences_(queues_.size()),
      txn_rng_(sim.stream(this->name() + "/transactions")) {
  if (transactional()) config_.enable_idempotence = true;  // a transactional producer is idempotent
  // ProducerMetadata asks for a topic (and lets the broker create it) only once send() names it.
  main_topic_named_ = false;
  if (config_.partitioner == PartitionerClass::BuiltIn) {
    sticky_.emplace(static_cast<std::int32_t>(queues_.size()), config_.batch_size, sim.stream(this->name() + "/partitioner"),
                    config_.adaptive_partitioning);
  }
}

// ---------------------------------------------------------------- lifecycle

void Producer::on_start() {
  arrivals_.restart(now());
  application_running_ = true;
  refresh_metadata();
  if (transactional()) {
    transition_to(TxnState::Initializing);  // initTransactions()
    txn_step();
  } else if (config_.enable_idempotence) {
    init_producer_id();
  }
}

// The process is gone, and with it every batch not yet acknowledged: the
// checker sees those records as neither acknowledged nor failed.
void Producer::on_crash(CrashKind) {
  application_running_ = false;
  plan_stale_ = true;
  for (auto& queue : queues_) queue.clear();
  std::fill(open_batches_.begin(), open_batches_.end(), OpenBatch{});
  sender_index_.clear();
  std::fill(in_flight_prefix_.begin(), in_flight_prefix_.end(), 0);
  next_expiry_check_ = 0;
  in_flight_.clear();
  unwritten_.clear();
  forget_connections_and_metadata();
  main_topic_named_ = false;
  sequences_.reset_all();
  producer_id_ = kNoProducerId;
  producer_epoch_ = -1;
  awaiting_producer_id_ = false;
  memory_used_ = 0;
  blocked_.reset();
  blocked_sticky_ = false;
  if (sticky_) sticky_->reset();  // a new process's partitioner
  sender_timer_at_ = kNever;
  sender_busy_until_ = 0;
  arrival_timer_at_ = kNever;
  sender_wake_pending_ = false;
  reconnect_pending_ = false;
  txn_state_ = TxnState::Uninitialized;  // a new process: a new TransactionManager, not a transition
  txn_coordinator_ = kNoBroker;
  txn_correlation_ = -1;
  txn_retry_pending_ = false;
  txn_added_.clear();
  txn_to_add_.clear();
  txn_adding_.clear();
  txn_records_ = 0;
  txn_abortable_ = false;
  txn_epoch_bump_required_ = false;
  txn_acks_.clear();  // neither acknowledged nor failed: the transaction is left to the coordinator
  txn_offsets_.reset();
  group_coordinator_ = kNoBroker;
  finding_group_coordinator_ = false;
  txn_done_ = nullptr;
  flush_done_ = nullptr;
}

// Responses to its requests only.
void Producer::on_message(ConnectionId connection, MessagePtr message) {
  const ApiMessage& m = api_message(*message);
  switch (m.api_key()) {
    case ApiKey::Produce: return handle_produce_response(connection, message_as<ProduceResponse>(m));
    case ApiKey::Metadata: return handle_metadata(message_as<MetadataResponse>(m));
    case ApiKey::InitProducerId:
      if (transactional()) return handle_txn_init(message_as<InitProducerIdResponse>(m));
      return handle_init_producer_id(message_as<InitProducerIdResponse>(m));
    case ApiKey::FindCoordinator: return handle_find_coordinator(message_as<FindCoordinatorResponse>(m));
    case ApiKey::AddPartitionsToTxn: return handle_add_partitions(message_as<AddPartitionsToTxnResponse>(m));
    case ApiKey::EndTxn: return handle_end_txn(message_as<EndTxnResponse>(m));
    case ApiKey::AddOffsetsToTxn: return handle_add_offsets(message_as<AddOffsetsToTxnResponse>(m));
    case ApiKey::TxnOffsetCommit: return handle_txn_offset_commit(message_as<TxnOffsetCommitResponse>(m));
    case ApiKey::Fetch:
    case ApiKey::ListOffsets:
    case ApiKey::UpdateMetadata:
    case ApiKey::OffsetCommit:
    case ApiKey::OffsetFetch:
    case ApiKey::JoinGroup:
    case ApiKey::Heartbeat:
    case ApiKey::LeaveGroup:
    case ApiKey::SyncGroup:
    case ApiKey::CreateTopics:
    case ApiKey::ConsumerGroupHeartbeat:
    case ApiKey::ShareGroupHeartbeat:
    case ApiKey::ShareFetch:
    case ApiKey::ShareAcknowledge:
    case ApiKey::OffsetForLeaderEpoch:
    case ApiKey::WriteTxnMarkers:
    case ApiKey::ControlledShutdown:
    case ApiKey::AlterPartition:
    case ApiKey::BrokerHeartbeat:
    case ApiKey::Vote:
    case ApiKey::BeginQuorumEpoch:
    case ApiKey::EndQuorumEpoch:
    case ApiKey::AssignReplicasToDirs:
    case ApiKey::ZooKeeper: break;  // a producer sends none of these
  }
  unexpected_message(name(), m);
}

// Kafka's NetworkClient: a closed connection fails its in-flight requests
// with a retriable NetworkException, and the client reconnects after a backoff.
void Producer::on_connection_closed(ConnectionId connection) {
  for (const BrokerId broker : connection_lost(connection)) {
    fail_in_flight_on(broker);
    if (broker == txn_coordinator_ || txn_correlation_ >= 0) txn_coordinator_lost();
  }
  if (awaiting_producer_id_) {
    awaiting_producer_id_ = false;
    set_timer(config_.retry_backoff, [this] { init_producer_id(); });
  }
  wake_sender();
}

// ---------------------------------------------------------------- application

// The application's records are taken lazily: before every event of this
// node, all records sent up to now join the accumulator, each stamped with
// its own send time. Most of them only add to an open batch, which nothing
// observes until the next event; the node wakes up by itself only for a
// record that opens a new batch or fills one (plan_arrivals). The outcome is
// the same as one event per record, at a fraction of the events.
void Producer::before_event() { take_arrivals(); }
void Producer::after_event() { plan_arrivals(); }

void Producer::take_arrivals() {
  while (application_running_ && !blocked_ && accepting()) {
    const Arrival* next = arrivals_.peek(0);
    if (!next || next->at > now()) return;
    Arrival arrival = arrivals_.pop();
    // The application's first send() names the topic (waitOnMetadata: ProducerMetadata.add).
    if (!main_topic_named_) name_main_topic();
    stats_.app_cpu_ns += workload_.cpu.record_cost(arrival.record.value_bytes);
    plan_stale_ = true;
    if (!main_topic_known()) {
      block(arrival, BlockedOn::Metadata);
    } else if (!append_arrival(arrival)) {
      block(arrival, BlockedOn::Memory);
    }
  }
}

void Producer::plan_arrivals() {
  if (!workload_.external && txn_state_ == TxnState::InTransaction && txn_records_ > 0 && !arrivals_.peek(0)) {
    begin_end_txn();  // the last one
  }
  if (blocked_ || !accepting() || (!plan_stale_ && arrival_timer_at_ != kNever)) return;
  plan_stale_ = false;
  constexpr std::size_t kLookahead = 256;
  std::vector<std::pair<TopicPartition, Taken>> added;  // what the scanned arrivals add per partition
  const Arrival* wake = nullptr;
  // The sticky partition's bytes so far: a keyless record that takes them to
  // twice batch.size switches the partition (StickyPartitioner), so it counts.
  std::uint64_t sticky_produced = sticky_ ? sticky_->produced() : 0;
  for (std::size_t i = 0; i < kLookahead; ++i) {
    const Arrival* a = arrivals_.peek(i);
    if (!a) break;
    wake = a;
    const TopicPartition tp = planned_partition(*a);
    if (tp.partition < 0) break;  // no sticky partition yet: it is chosen at this append
    auto it = std::find_if(added.begin(), added.end(), [&](const auto& e) { return e.first == tp; });
    if (it == added.end()) it = added.insert(added.end(), {tp, Taken{}});
    if (is_significant(tp, *a, it->second)) break;
    const OpenBatch& open = open_batches_[static_cast<std::size_t>(tp.partition)];
    const std::uint64_t bytes = record_bytes_in_batch(format_of(tp), a->record, open.records + it->second.records,
                                                      a->at - open.first_sent);
    if (a->partition.partition == kStickyPartition && (sticky_produced += bytes) >= 2 * sticky_->batch_size()) break;
    it->second.bytes += bytes;
    ++it->second.records;
  }
  const SimTime at = wake ? wake->at : kNever;
  if (at == arrival_timer_at_) return;
  cancel_timer(arrival_timer_);
  arrival_timer_at_ = at;
  if (at != kNever) {
    // (at is in the past for the records that arrived while send() was blocked)
    arrival_timer_ = set_timer(std::max<SimTime>(0, at - now()), [this] { arrival_timer_at_ = kNever; });  // the hooks do the work
  }
}

// Would this record open a new batch or fill its partition's open one
// (given the earlier records not yet taken)?
bool Producer::is_significant(TopicPartition tp, const Arrival& a, Taken before) const {
  const OpenBatch& open = open_batches_[static_cast<std::size_t>(tp.partition)];
  if (open.reserved_bytes == 0) return true;
  const std::uint64_t bytes = open.bytes + before.bytes +
                              record_bytes_in_batch(format_of(tp), a.record, open.records + before.records,
                                                    a.at - open.first_sent);
  return bytes > std::max(config_.batch_size, open.reserved_bytes) || bytes >= config_.batch_size;
}

// As kafka.tools.EndToEndLatency's loop: the consumer's iterator returned
// the record, so the application sends the next. The wake-up is an event of
// this producer, whose hooks take the arrival.
void Producer::record_polled() {
  if (!workload_.paced_by_consumer || !application_running_) return;
  arrivals_.release_one(now());
  plan_stale_ = true;
  set_timer(0, [] {});
}

// send() blocks: the application waits for buffer memory (KafkaProducer.doSend
// -> BufferPool.allocate), or for its topic to appear in the metadata
// (waitOnMetadata: a topic not created yet), up to max.block.ms in all; then
// the record fails with a TimeoutException. The call started when the record
// arrived, or when the application's previous blocked call returned.
void Producer::block(const Arrival& arrival, BlockedOn on) {
  const bool waited_for_metadata = blocked_on_ == BlockedOn::Metadata && blocked_;
  blocked_ = arrival;
  blocked_on_ = on;
  if (on == BlockedOn::Metadata) {
    ++stats_.metadata_waits;
  } else {
    ++stats_.blocked_sends;
    // The pool is exhausted: every batch is sendable now, lingering or not
    // (RecordAccumulator.ready: exhausted = free.queued() > 0).
    sender_index_.forget();
    wake_sender();
  }
  if (waited_for_metadata) return;  // the same send(): its max.block.ms runs on
  blocked_since_ = std::max(arrival.at, app_free_at_);
  block_timeout_ = set_timer(std::max<SimTime>(0, blocked_since_ + config_.max_block - now()), [this] {
    if (!blocked_) return;
    // A keyless record waiting for metadata has no partition yet (Kafka never gives it one): counted under 0.
    TopicPartition tp = blocked_->partition;
    if (tp.partition == kStickyPartition) tp.partition = 0;
    const SimTime sent_at = blocked_->at;
    const Error error = blocked_on_ == BlockedOn::Metadata ? Error::TopicNotInMetadata : Error::BufferExhausted;
    blocked_.reset();
    blocked_sticky_ = false;  // not appended: it counts for no partition
    const std::uint64_t record = produced_count(tp)++;
    history_.sent(index_, tp, record, sent_at);
    history_.failures.push_back({{index_, tp, record, 1}, error, now()});
    ++stats_.records_sent;
    ++stats_.records_failed;
    send_returned();
  });
}

// A blocked send() returned (its record appended, or TimeoutException). A
// closed-loop application calls send() again from now; an open-loop one's
// records kept arriving while it waited, and it sends them now, each timed
// from its arrival: no coordinated omission in the latency.
void Producer::send_returned() {
  const SimTime blocked = now() - blocked_since_;
  stats_.blocked_ns += blocked;
  stats_.longest_block_ns = std::max(stats_.longest_block_ns, blocked);
  app_free_at_ = now();
  plan_stale_ = true;
  if (workload_.closed_loop) arrivals_.restart(now());
}

// The accumulator: the record joins the partition's open batch, or a new
// batch reserving batch.size bytes (or the record's size, if larger) from
// buffer.memory (Kafka's BufferPool). False when memory is short. Sizes are
// in the topic's record format, the batch header included, as
// MemoryRecordsBuilder.hasRoomFor counts them against batch.size.
bool Producer::append(TopicPartition tp, RecordShape record, SimTime sent_at, std::uint64_t* appended) {
  plan_stale_ = true;
  touch(tp);
  auto& queue = queue_of(tp);
  bool created = false;
  const RecordFormat format = format_of(tp);
  Batch* open = queue.empty() || queue.back()->closed || queue.back()->in_flight ? nullptr : queue.back().get();
  const auto size_in = [&](const Batch& b) {
    return record_bytes_in_batch(format, record, b.records.record_count, sent_at - b.record_times.front());
  };
  if (open && open->records.bytes + size_in(*open) > std::max(config_.batch_size, open->reserved_bytes)) {
    open->closed = true;
    open = nullptr;
  }
  if (!open) {
    const std::uint64_t reserve = std::max(config_.batch_size, batch_bytes_upper_bound(format, record));
    if (memory_used_ + reserve > config_.buffer_memory) return false;
    memory_used_ += reserve;
    stats_.memory_peak_bytes = std::max(stats_.memory_peak_bytes, memory_used_);
    auto batch = std::make_shared<Batch>();
    batch->partition = tp;
    batch->created = now();
    batch->reserved_bytes = reserve;
    batch->record_times.reserve(std::min<std::uint64_t>(64, reserve / std::max<std::uint64_t>(1, record.value_bytes) + 1));
    batch->records.bytes = batch_header_bytes(format);
    batch->records.writer = index_;
    batch->records.first_record = produced_count(tp);
    queue.push_back(batch);
    open = batch.get();
    sender_index_.add(static_cast<std::size_t>(tp.partition));
    created = true;
  }
  if (record.key >= 0 && directory_->record_keys && directory_->topics[static_cast<std::size_t>(tp.topic)].log.compact_enabled) {
    directory_->record_keys->set(index_, tp, produced_count(tp), {record.key, record.tombstone});
  }
  history_.sent(index_, tp, produced_count(tp)++, sent_at);
  if (transactional()) txn_counted_record();
  const std::uint64_t grew = open->record_times.empty() ? record_bytes_in_batch(format, record, 0, 0) : size_in(*open);
  open->records.bytes += grew;
  if (appended) *appended = grew + (created ? batch_header_bytes(format) : 0);
  open->value_bytes += record.value_bytes;
  ++open->records.record_count;
  open->record_times.push_back(sent_at);
  ++stats_.records_sent;
  if (open->records.bytes >= config_.batch_size) open->closed = true;
  note_open_batch(tp);
  // As Kafka's KafkaProducer.doSend: the sender wakes for a new or a full batch only.
  if (created || open->closed) wake_sender();
  return true;
}

void Producer::unblock_if_possible() {
  if (!blocked_) return;
  if (blocked_on_ == BlockedOn::Metadata) {
    if (!main_topic_known()) return;
    Arrival arrival = *blocked_;
    if (!append_arrival(arrival)) return block(arrival, BlockedOn::Memory);  // then for memory, the same call
    blocked_.reset();
    cancel_timer(block_timeout_);
    return send_returned();
  }
  std::uint64_t appended = 0;
  if (!append(blocked_->partition, blocked_->record, blocked_->at, &appended)) return;
  if (blocked_sticky_) sticky_->after_append(appended, all_batches_full(blocked_->partition.partition), *this);
  blocked_sticky_ = false;
  blocked_.reset();
  cancel_timer(block_timeout_);
  send_returned();
}

// ---------------------------------------------------------------- metadata

void Producer::handle_metadata(const MetadataResponse& response) {
  apply_metadata(response);
  if (blocked_on_ == BlockedOn::Metadata) unblock_if_possible();
  wake_sender();
}

void Producer::init_producer_id() {
  if (awaiting_producer_id_) return;
  for (auto& [broker, l] : links_) {
    if (!l.connected) continue;
    auto request = std::make_unique<InitProducerIdRequest>();
    const std::int64_t correlation = request->correlation_id = next_correlation_id();
    request->producer_id = producer_id_;
    request->producer_epoch = producer_epoch_;
    send(l.connection, std::move(request));
    awaiting_producer_id_ = true;
    producer_id_correlation_ = correlation;
    set_timer(config_.request_timeout, [this, correlation] {
      if (!awaiting_producer_id_ || producer_id_correlation_ != correlation) return;
      awaiting_producer_id_ = false;
      init_producer_id();
    });
    return;
  }
  set_timer(config_.retry_backoff, [this] { init_producer_id(); });
}

// A new producer id: every partition's sequences start at 0 again
// (TransactionManager.InitProducerIdHandler -> resetSequenceNumbers). From
// KIP-360 (2.5) an idempotent producer asks for one only at its start, and
// bumps its epoch locally after (maybe_bump_idempotent_epoch). Before, it
// reset its id after a gap: a batch already tried may be in the log, and
// sent again under the new id it would not be recognised as a duplicate, so
// those fail; batches never sent are renumbered.
void Producer::handle_init_producer_id(const InitProducerIdResponse& response) {
  if (!awaiting_producer_id_ || response.correlation_id != producer_id_correlation_) return;  // a stale answer
  awaiting_producer_id_ = false;
  if (producer_id_ != kNoProducerId) ++stats_.epoch_bumps;
  producer_id_ = response.producer_id;
  producer_epoch_ = response.producer_epoch;
  sequences_.reset_all();
  sender_index_.forget();
  std::vector<BatchPtr> unresolved;
  for (std::size_t p = 0; p < queues_.size(); ++p) {
    for (const BatchPtr& b : queues_[p]) {
      if (b->in_flight) continue;
      if (b->attempts > 0) {
        unresolved.push_back(b);
      } else {
        b->sequenced = false;
      }
    }
    if (!queues_[p].empty()) sender_index_.add(p);
  }
  for (const BatchPtr& b : unresolved) fail(b, Error::OutOfOrderSequenceNumber);
  wake_sender();
}

}  // namespace ksim::models
