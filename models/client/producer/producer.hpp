#pragma once
// A Kafka producer (the Java client's KafkaProducer): an application thread
// that sends records at a rate, the partitioner, the record accumulator
// (batch.size, linger.ms, buffer.memory with send() blocking up to
// max.block.ms), and the sender (max.in.flight.requests.per.connection,
// request.timeout.ms, retries with backoff, delivery.timeout.ms, acks),
// with idempotence (KIP-98, KIP-360), and transactions (transactional.id:
// the client's TransactionManager; producer_txn.cpp). The outcome of each
// batch (acknowledged, retried or failed) is decided in producer_results.cpp.
// Every record, acknowledgement and failure goes to the delivery history for
// the checker; a transaction's records count as acknowledged when it commits.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include <boost/container/deque.hpp>

#include "models/protocol/cluster_directory.hpp"
#include "models/history/delivery_history.hpp"
#include "models/client/kafka_client.hpp"
#include "models/protocol/kafka_config.hpp"
#include "models/protocol/kafka_messages.hpp"
#include "models/client/producer/arrival_stream.hpp"
#include "models/client/producer/partition_sequences.hpp"
#include "models/client/producer/sender_index.hpp"
#include "models/client/producer/sticky_partitioner.hpp"
#include "models/client/producer/transaction_manager_state.hpp"
#include "models/protocol/group_messages.hpp"
#include "models/protocol/txn_messages.hpp"
#include "sim/observe/histogram.hpp"
#include "sim/core/node.hpp"

namespace ksim::models {

struct ProducerStats {
  std::uint64_t records_sent = 0;       // handed to send()
  std::uint64_t records_acked = 0;
  std::uint64_t records_failed = 0;
  std::uint64_t bytes_acked = 0;
  std::uint64_t requests = 0;
  std::uint64_t batches = 0;            // sent in produce requests (retries included)
  std::uint64_t retries = 0;
  std::uint64_t blocked_sends = 0;       // send() had to wait for buffer memory
  SimTime blocked_ns = 0;                // summed time send() waited for it (max.block.ms at most each)
  SimTime longest_block_ns = 0;
  std::uint64_t metadata_waits = 0;     // send() waited for its topic to appear in the metadata
  std::uint64_t memory_peak_bytes = 0;   // buffer.memory in use, at its highest
  std::uint64_t epoch_bumps = 0;
  std::uint64_t transactions_committed = 0;
  std::uint64_t transactions_aborted = 0;
  std::uint64_t fenced = 0;              // PRODUCER_FENCED: a newer instance took the transactional.id
  std::uint64_t mappings_lost = 0;       // INVALID_PRODUCER_ID_MAPPING: the coordinator no longer knew the id
  std::uint64_t producer_ids_renewed = 0;  // transactions v2: the epoch was exhausted, EndTxn gave a new producer id
  SimTime app_cpu_ns = 0;                // the application thread in send() (with client CPU costs)
  SimTime sender_cpu_ns = 0;             // the sender thread
  Histogram latency;                     // send() to acknowledgement, per record: from when the application
                                         // meant to call send(), so time blocked on buffer.memory counts
  Histogram warmup_latency;              // the same, of records sent before the workload's warmup_end
};

class Producer final : public KafkaClient, private PartitionLoad {
 public:
  Producer(Simulation& sim, std::string name, HostId host, std::uint32_t index, ProducerConfig config,
           ProducerWorkload workload, std::shared_ptr<const ClusterDirectory> directory, ModelEventBus& events,
           DeliveryHistory& history);

  const ProducerStats& stats() const { return stats_; }
  const ProducerConfig& config() const { return config_; }
  const ProducerWorkload& workload() const { return workload_; }
  std::uint64_t memory_in_use() const { return memory_used_; }

  std::uint32_t index() const { return index_; }  // the writer its records carry
  // workload.paced_by_consumer: a consumer has polled one of this producer's
  // records; the application sends its next one now.
  void record_polled();

  // --- driven by a consume-transform-produce application (workload.external) ---
  bool ready_for_transactions() const { return txn_state_ == TxnState::Ready || txn_state_ == TxnState::InTransaction; }
  bool fenced() const { return txn_state_ == TxnState::FatalError; }
  void send_output(TopicPartition tp, std::uint64_t bytes, const DeliveryHistory::InputRecord& input);
  // sendOffsetsToTransaction(): the consumer's positions, committed with the transaction (KIP-447).
  void send_offsets_to_transaction(std::string group, MemberIdentity member, std::vector<CommittedOffset> offsets);
  // commitTransaction(): `done(true)` once committed, `done(false)` if it aborted or the producer is fenced.
  void commit_transaction(std::function<void(bool)> done);
  // abortTransaction(): `done(false)` once aborted.
  void abort_transaction(std::function<void(bool)> done);
  // flush(): `done` once every record sent so far is answered.
  void flush(std::function<void()> done);

 private:
  enum class TxnOffsetsStage { ToAdd, ToCommit, Done };
  struct TxnOffsets {
    std::string group;
    MemberIdentity member;
    std::vector<CommittedOffset> offsets;
    TxnOffsetsStage stage = TxnOffsetsStage::ToAdd;
  };
  struct Batch {
    RecordBatch records;
    TopicPartition partition;
    SimTime created = 0;
    std::uint64_t reserved_bytes = 0;  // from buffer.memory
    std::uint64_t value_bytes = 0;     // the application's: records.bytes adds the record format's
    bool closed = false;               // full: no more records go in
    bool in_flight = false;
    bool done = false;                 // acknowledged or failed: a later answer changes nothing
    bool sequenced = false;
    bool sequence_reset = false;       // renumbered under a new epoch (ProducerBatch.sequenceHasBeenReset)
    bool in_retry = false;             // re-enqueued after a failed attempt (ProducerBatch.inRetry)
    int attempts = 0;
    SimTime retry_at = 0;
    // ProducerBatch.maybeUpdateLeaderEpoch: the partition's leader epoch last
    // seen, and the attempts then; a retry to a newer leader skips its backoff (KIP-951).
    Epoch leader_epoch = -1;
    int attempts_when_leader_changed = 0;
    std::vector<SimTime> record_times;  // send() time of each record, for latency
  };
  using BatchPtr = std::shared_ptr<Batch>;
  // A partition's queue in the accumulator (RecordAccumulator's Deque<ProducerBatch>):
  // Boost's deque holds no memory while empty (std::deque holds 0.5 KiB from its
  // construction: 1 GiB for a producer of 2,000,000 partitions).
  using BatchQueue = boost::container::deque<BatchPtr>;
  struct InFlight {
    BrokerId broker;
    std::vector<BatchPtr> batches;
    TimerId timeout;
    std::uint64_t position = 0;  // its place in the connection's bytes (Network::send_tracked)
    bool written = false;        // all of it in the socket (Kafka's Send.completed())
  };

  void on_start() override;
  void on_crash(CrashKind kind) override;
  void on_message(ConnectionId connection, MessagePtr message) override;
  void on_connection_closed(ConnectionId connection) override;
  void on_link_ready(BrokerId /*broker*/) override { wake_sender(); }
  void on_written(ConnectionId connection, std::uint64_t position) override;
  // InFlightRequests.canSendMore: room under max.in.flight, and the last request written.
  bool can_send_more(BrokerId broker) const override;
  void written(std::int64_t correlation);

  // application and accumulator
  void before_event() override;
  void after_event() override;
  void take_arrivals();
  void plan_arrivals();
  struct Taken {  // records of a partition taken in a look-ahead, not yet appended
    std::uint64_t bytes = 0;
    std::int32_t records = 0;
  };
  bool is_significant(TopicPartition tp, const Arrival& arrival, Taken before) const;
  // `appended`: the bytes the batch grew by (a new batch's header included).
  bool append(TopicPartition tp, RecordShape record, SimTime sent_at, std::uint64_t* appended = nullptr);
  // The built-in partitioner's keyless records (producer_partitioning.cpp):
  // the arrival's partition chosen now, and appended (false: blocked on memory).
  bool append_arrival(Arrival& arrival);
  bool all_batches_full(std::int32_t partition) const;  // RecordAccumulator.allBatchesFull
  // The partition an arrival goes to as planned now: the sticky one for keyless records.
  TopicPartition planned_partition(const Arrival& arrival) const;
  const std::vector<std::int32_t>& available_partitions() override;
  std::size_t queued_batches(std::int32_t partition) override;
  // What a blocked send() waits for: buffer memory (BufferPool.allocate) or
  // its topic's metadata (KafkaProducer.waitOnMetadata).
  enum class BlockedOn : std::uint8_t { Memory, Metadata };
  void block(const Arrival& arrival, BlockedOn on);
  void send_returned();
  void unblock_if_possible();

  // sender
  void wake_sender();
  void run_sender();
  void run_sender_at(SimTime at);
  void charge_sender(std::size_t batches);
  // `first`: the partition's first batch not in flight.
  bool batch_ready(const BatchQueue& queue, BatchQueue::const_iterator first, SimTime& next_check,
                   SimTime& not_before);
  void touch(TopicPartition tp);
  bool send_to(BrokerId broker, const std::vector<BatchPtr>& batches);
  void drain_for(BrokerId broker, std::vector<BatchPtr>& batches);
  void advance_drain_index(BrokerId broker, const std::vector<BatchPtr>& batches, std::size_t sent);
  void note_leaders();
  // the outcome of each batch (producer_results.cpp)
  void handle_produce_response(ConnectionId connection, const ProduceResponse& response);
  void handle_result(const BatchPtr& batch, Error error, Offset base_offset);
  void retry_or_fail(const BatchPtr& batch, Error error);
  bool earlier_batch_unresolved(const Batch& batch) const;
  bool retry_sequence_error(const BatchPtr& batch);
  void fail_sequenced(const BatchPtr& batch, Error error, bool adjust_sequences);
  void acknowledge(const BatchPtr& batch, Offset base_offset);
  void fail(const BatchPtr& batch, Error error);
  void finish(const BatchPtr& batch);
  void expire_batches();
  SimTime expiry_of(const Batch& b) const;
  void request_timed_out(std::int64_t correlation_id);
  void fail_in_flight_on(BrokerId broker);

  // transactions (producer_txn.cpp): Kafka's TransactionManager
  using TxnState = TransactionManagerState;
  void transition_to(TxnState next);  // TransactionManager.transitionTo: asserts that `next` may follow
  bool transactional() const { return !config_.transactional_id.empty(); }
  bool accepting() const;  // may the application send now?
  bool partition_in_txn(TopicPartition tp);
  void txn_step();
  void txn_retry(SimTime delay);
  void txn_coordinator_lost();
  void handle_find_coordinator(const FindCoordinatorResponse& response);
  void handle_txn_init(const InitProducerIdResponse& response);
  void handle_add_partitions(const AddPartitionsToTxnResponse& response);
  void handle_end_txn(const EndTxnResponse& response);
  bool producer_id_lost(Error error);  // recoverable with an epoch bump (KIP-360): marks it so
  void handle_add_offsets(const AddOffsetsToTxnResponse& response);
  void handle_txn_offset_commit(const TxnOffsetCommitResponse& response);
  void maybe_flushed();
  void txn_counted_record();
  void begin_end_txn();
  void abort_undrained_batches();
  void txn_completed(bool committed);
  void txn_fatal(Error error);
  void stash_ack(const BatchPtr& batch, Offset base_offset);

  // metadata and producer id
  void handle_metadata(const MetadataResponse& response);
  void init_producer_id();
  void handle_init_producer_id(const InitProducerIdResponse& response);
  SimTime backoff(int attempts);
  // An idempotent producer without transactions (KIP-360's client side):
  // sequences resolved, epochs bumped locally, batches renumbered.
  bool idempotent_only() const { return config_.enable_idempotence && !transactional(); }
  void resolve_sequences();
  void maybe_bump_idempotent_epoch();
  void start_sequences_at_beginning(std::size_t partition);
  bool has_sequenced_batches(std::size_t partition) const;
  bool sequences_hold(const BatchQueue& queue, BatchQueue::const_iterator first) const;
  SimTime retry_not_before(Batch& b) const;

  std::uint32_t index_;
  ProducerConfig config_;
  ProducerWorkload workload_;
  DeliveryHistory& history_;
  ArrivalStream arrivals_;
  ProducerStats stats_;

  // process state
  static constexpr SimTime kExpiryCheckInterval = milliseconds(10);
  SimTime next_expiry_ = 0;  // no batch in the queues expires before (expire_batches)
  std::vector<BatchQueue> queues_;  // the accumulator, by partition of the workload's topic
  RecordFormat format_of(TopicPartition tp) const {
    return directory_->topics[static_cast<std::size_t>(tp.topic)].record_format;
  }
  BatchQueue& queue_of(TopicPartition tp) { return queues_[static_cast<std::size_t>(tp.partition)]; }
  const BatchQueue& queue_of(TopicPartition tp) const { return queues_[static_cast<std::size_t>(tp.partition)]; }
  // By partition: that many batches at the front of the queue are known to be in flight.
  std::vector<std::size_t> in_flight_prefix_;
  std::vector<std::uint64_t*> produced_counts_;  // by partition: into history_.produced
  std::uint64_t& produced_count(TopicPartition tp);
  // By partition: the open batch at the back of the queue, if any (plan_arrivals looks at thousands).
  struct OpenBatch {
    std::uint64_t bytes = 0;
    std::uint64_t reserved_bytes = 0;  // 0: no open batch
    std::int32_t records = 0;
    SimTime first_sent = 0;            // its first record's timestamp (v2 codes the others' as deltas)
  };
  std::vector<OpenBatch> open_batches_;
  void note_open_batch(TopicPartition tp);
  BatchQueue::const_iterator first_unsent(std::size_t partition);
  void remove_from_queue(const BatchPtr& batch);
  SenderIndex sender_index_;              // where run_sender looks (not at ready partitions with transactions)
  std::uint64_t index_metadata_ = ~0ULL;  // the metadata the index's leaders are from
  std::vector<bool> link_full_, link_skipped_;  // run_sender's scratch space, by broker
  std::vector<std::vector<BatchPtr>> ready_by_broker_;  // run_sender's scratch space
  std::vector<SenderIndex::Partitions> led_by_;         // by broker: the partitions it leads
  std::vector<std::int32_t> drain_start_;               // by broker: where its next drain starts (Kafka's drainIndex)
  SimTime next_expiry_check_ = 0;
  std::map<std::int64_t, InFlight> in_flight_;
  std::vector<int> unwritten_;  // by broker: produce requests its socket has not taken yet
  PartitionSequences sequences_;  // by partition of the workload's topic
  ProducerId producer_id_ = kNoProducerId;
  ProducerEpoch producer_epoch_ = -1;
  bool awaiting_producer_id_ = false;
  std::int64_t producer_id_correlation_ = -1;
  std::uint64_t memory_used_ = 0;
  std::optional<Arrival> blocked_;  // a send() waiting for memory
  bool blocked_sticky_ = false;     // its partition is the sticky one: it counts when appended
  BlockedOn blocked_on_ = BlockedOn::Memory;
  std::optional<StickyPartitioner> sticky_;  // partitioner.class unset (KIP-794): keyless records
  std::vector<std::int32_t> available_;      // partitions with a leader, as of available_metadata_
  std::uint64_t available_metadata_ = ~0ULL;
  SimTime blocked_since_ = 0;       // when that send() was called
  SimTime app_free_at_ = 0;         // when the application thread's last blocked send() returned
  TimerId block_timeout_;
  TimerId arrival_timer_;
  SimTime arrival_timer_at_ = kNever;
  bool plan_stale_ = true;  // batches changed since the arrivals were last planned
  // The application calls send() from its process's start (where its arrivals
  // restart) until a crash: none of its records arrive while it is down.
  bool application_running_ = false;
  TimerId sender_timer_;
  SimTime sender_timer_at_ = kNever;
  bool sender_wake_pending_ = false;
  SimTime sender_busy_until_ = 0;  // the sender thread's CPU work (client CPU costs)
  bool reconnect_pending_ = false;  // the sender looks again after reconnect.backoff.ms
  // transactions
  TxnState txn_state_ = TxnState::Uninitialized;
  BrokerId txn_coordinator_ = kNoBroker;
  std::int64_t txn_correlation_ = -1;   // the one transaction request in flight
  bool txn_retry_pending_ = false;
  std::set<TopicPartition> txn_added_;  // partitions in the current transaction
  std::set<TopicPartition> txn_to_add_; // waiting for AddPartitionsToTxn
  std::set<TopicPartition> txn_adding_; // in the AddPartitionsToTxn in flight
  std::uint64_t txn_records_ = 0;       // records sent in the current transaction
  bool txn_abortable_ = false;          // a record of the transaction failed: it can only abort
  // TransactionManager.epochBumpRequired (KIP-360): a batch failed, so its partition's
  // sequences may have a gap; the abort ends with InitProducerId bumping the epoch.
  bool txn_epoch_bump_required_ = false;
  bool txn_mapping_lost_ = false;  // INVALID_PRODUCER_ID_MAPPING: the abort sends no EndTxn
  bool aborting_undrained_ = false;     // abort_undrained_batches is at work
  std::vector<DeliveryHistory::Ack> txn_acks_;  // acknowledged, waiting for the outcome
  RandomStream txn_rng_;
  std::optional<TxnOffsets> txn_offsets_;  // sendOffsetsToTransaction() in progress
  BrokerId group_coordinator_ = kNoBroker;
  bool finding_group_coordinator_ = false;
  std::function<void(bool)> txn_done_;
  std::function<void()> flush_done_;
};

}  // namespace ksim::models
