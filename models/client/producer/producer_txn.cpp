// The transactional producer (KIP-98), as the Java client's
// TransactionManager: initTransactions() finds the transaction coordinator
// and gets the producer id and epoch (fencing any older instance with the
// same transactional.id); the first record of a transaction begins it; a
// partition joins it through AddPartitionsToTxn before any batch of it is
// sent; after records_per_transaction records the application commits (or,
// with abort_probability, aborts): no more records until the batches are
// all answered and EndTxn returns. A failed record makes the transaction
// abortable (it aborts); PRODUCER_FENCED is fatal.
#include <algorithm>

#include "models/client/producer/producer.hpp"
#include "sim/core/simulation.hpp"
#include "sim/core/state_machine.hpp"

namespace ksim::models {

// Errors every transaction request shares: false when the caller is done with the response.
namespace {
enum class TxnErrorAction { Proceed, Retry, Rediscover, Fatal, Other };
TxnErrorAction txn_error_action(Error error) {
  switch (error) {
    case Error::None: return TxnErrorAction::Proceed;
    case Error::ConcurrentTransactions:
    case Error::CoordinatorLoadInProgress:
    case Error::RequestTimedOut:
      return TxnErrorAction::Retry;
    case Error::NotCoordinator:
    case Error::CoordinatorNotAvailable:
      return TxnErrorAction::Rediscover;
    case Error::ProducerFenced:
    case Error::InvalidProducerEpoch:
    case Error::InvalidProducerIdMapping:
    case Error::InvalidTxnState:
      return TxnErrorAction::Fatal;
    default: return TxnErrorAction::Other;
  }
}
}  // namespace

void Producer::transition_to(TxnState next) {
  if (next == TxnState::InTransaction && txn_state_ != TxnState::InTransaction) {
    history_.transactions.push_back({index_, TxnOp::Begin, Error::None, now()});  // beginTransaction()
  }
  transition(txn_state_, next, "producer", name());
}

bool Producer::accepting() const {
  if (!transactional()) return true;
  return txn_state_ == TxnState::Ready || txn_state_ == TxnState::InTransaction;
}

// A batch may go once its partition is in the transaction; asking for it is
// queued here. With transactions v2 the partition's leader adds it on the
// first write (TransactionManager.maybeAddPartition: no AddPartitionsToTxn).
bool Producer::partition_in_txn(TopicPartition tp) {
  if (txn_added_.contains(tp)) return true;
  if (config_.transaction_v2) return txn_added_.insert(tp), true;
  if (!txn_adding_.contains(tp) && txn_to_add_.insert(tp).second) txn_step();
  return false;
}

void Producer::txn_counted_record() {
  if (txn_state_ == TxnState::Ready) transition_to(TxnState::InTransaction);  // beginTransaction()
  ++txn_records_;
  if (!workload_.external && txn_records_ >= workload_.records_per_transaction) begin_end_txn();
}

// ---- the application's calls (consume-transform-produce) ----

void Producer::send_output(TopicPartition tp, std::uint64_t bytes, const DeliveryHistory::InputRecord& input) {
  // Its first send() names the topic (ProducerMetadata.add). Simplified: the record is appended at once,
  // where Kafka's send() would wait for the topic's metadata (waitOnMetadata); the sender waits for leaders.
  if (!main_topic_named_) name_main_topic();
  auto& made_from = history_.made_from[{index_, tp}];
  const std::uint64_t number = produced_count(tp);
  if (!append(tp, RecordShape{-1, bytes}, now())) return;  // buffer.memory exhausted: the record is not sent
  if (made_from.size() <= number) made_from.resize(number + 1);
  made_from[number] = input;
}

void Producer::send_offsets_to_transaction(std::string group, MemberIdentity member, std::vector<CommittedOffset> offsets) {
  if (!transactional() || offsets.empty()) return;
  if (txn_state_ == TxnState::Ready) transition_to(TxnState::InTransaction);
  // Transactions v2 sends TxnOffsetCommit without AddOffsetsToTxn: the group coordinator's broker adds the partition.
  const TxnOffsetsStage first = config_.transaction_v2 ? TxnOffsetsStage::ToCommit : TxnOffsetsStage::ToAdd;
  txn_offsets_ = TxnOffsets{std::move(group), std::move(member), std::move(offsets), first};
  txn_step();
}

void Producer::commit_transaction(std::function<void(bool)> done) {
  if (txn_state_ == TxnState::FatalError) return done(false);
  txn_done_ = std::move(done);
  if (txn_state_ == TxnState::Ready) {  // nothing was sent in it
    auto finished = std::move(txn_done_);
    txn_done_ = nullptr;
    return finished(true);
  }
  begin_end_txn();
}

void Producer::abort_transaction(std::function<void(bool)> done) {
  txn_abortable_ = true;  // the outcome can only be an abort now
  commit_transaction(std::move(done));
}

void Producer::flush(std::function<void()> done) {
  flush_done_ = std::move(done);
  wake_sender();
  for (auto& queue : queues_) {
    for (const BatchPtr& b : queue) b->closed = true;
  }
  sender_index_.forget();
  maybe_flushed();
}

void Producer::maybe_flushed() {
  if (!flush_done_ || !in_flight_.empty() ||
      !std::all_of(queues_.begin(), queues_.end(), [](const auto& q) { return q.empty(); })) {
    return;
  }
  auto done = std::move(flush_done_);
  flush_done_ = nullptr;
  done();
}

// commitTransaction() or abortTransaction(): the application sends nothing more until it returns.
void Producer::begin_end_txn() {
  if (txn_state_ != TxnState::InTransaction) return;
  const bool abort = workload_.abort_probability > 0 && txn_rng_.bernoulli(workload_.abort_probability);
  transition_to(abort || txn_abortable_ ? TxnState::AbortingTransaction : TxnState::CommittingTransaction);
  // TransactionManager.beginAbort: partitions not yet sent in AddPartitionsToTxn are no longer added.
  if (txn_state_ == TxnState::AbortingTransaction) txn_to_add_.clear();
  wake_sender();  // flush: linger.ms no longer applies
  for (auto& queue : queues_) {
    for (const BatchPtr& b : queue) b->closed = true;
  }
  sender_index_.forget();
  txn_step();
}

// Aborting, or after an abortable error, the batches never drained fail in
// the client without being sent (Sender.maybeSendAndPollTransactionalRequest
// -> RecordAccumulator.abortUndrainedBatches: those without a sequence).
void Producer::abort_undrained_batches() {
  if (!transactional() || aborting_undrained_ || !(txn_abortable_ || txn_state_ == TxnState::AbortingTransaction)) return;
  std::vector<BatchPtr> undrained;
  for (const auto& queue : queues_) {
    for (const BatchPtr& b : queue) {
      if (!b->sequenced && !b->in_flight) undrained.push_back(b);
    }
  }
  aborting_undrained_ = true;  // fail() comes back here through finish() and txn_step()
  for (const BatchPtr& b : undrained) fail(b, Error::TransactionAborted);
  aborting_undrained_ = false;
}

// The one transaction request to send next, if any: at most one is in flight.
void Producer::txn_step() {
  if (txn_correlation_ >= 0 || txn_retry_pending_ || txn_state_ == TxnState::FatalError ||
      txn_state_ == TxnState::Uninitialized) {
    return;
  }
  const bool offsets_to_commit = txn_offsets_ && txn_offsets_->stage == TxnOffsetsStage::ToCommit;
  if (txn_coordinator_ == kNoBroker || (offsets_to_commit && group_coordinator_ == kNoBroker)) {
    finding_group_coordinator_ = txn_coordinator_ != kNoBroker;
    // Sender.maybeSendAndPollTransactionalRequest: a FindCoordinator goes to NetworkClient.leastLoadedNode.
    const auto sent = send_find_coordinator(finding_group_coordinator_ ? txn_offsets_->group : config_.transactional_id,
                                            !finding_group_coordinator_);
    if (!sent) return txn_retry(config_.retry_backoff);
    const std::int64_t correlation = txn_correlation_ = sent->first;
    set_timer(config_.request_timeout, [this, correlation] {
      if (txn_correlation_ == correlation) txn_coordinator_lost();  // no answer: ask again
    });
    return;
  }
  if (!ensure_connected(txn_coordinator_)) return txn_retry(config_.retry_backoff);
  MessagePtr request;
  const std::int64_t correlation = next_correlation_id();
  const bool ending = txn_state_ == TxnState::CommittingTransaction || txn_state_ == TxnState::AbortingTransaction;
  if (txn_state_ == TxnState::Initializing) {
    auto init = std::make_unique<InitProducerIdRequest>();
    init->correlation_id = correlation;
    init->producer_id = producer_id_;  // after an abort that needs an epoch bump (KIP-360); none at the start
    init->producer_epoch = producer_epoch_;
    init->transactional_id = config_.transactional_id;
    init->transaction_timeout = config_.transaction_timeout;
    request = std::move(init);
  } else if (!txn_to_add_.empty() && (txn_state_ == TxnState::InTransaction || ending)) {
    auto add = std::make_unique<AddPartitionsToTxnRequest>();
    add->correlation_id = correlation;
    add->transactional_id = config_.transactional_id;
    add->producer_id = producer_id_;
    add->producer_epoch = producer_epoch_;
    add->partitions.assign(txn_to_add_.begin(), txn_to_add_.end());
    txn_adding_ = std::move(txn_to_add_);
    txn_to_add_.clear();
    request = std::move(add);
  } else if (txn_offsets_ && txn_offsets_->stage == TxnOffsetsStage::ToAdd) {
    auto add = std::make_unique<AddOffsetsToTxnRequest>();
    add->correlation_id = correlation;
    add->transactional_id = config_.transactional_id;
    add->producer_id = producer_id_;
    add->producer_epoch = producer_epoch_;
    add->group = txn_offsets_->group;
    request = std::move(add);
  } else if (offsets_to_commit) {
    if (!ensure_connected(group_coordinator_)) return txn_retry(config_.retry_backoff);
    auto commit = std::make_unique<TxnOffsetCommitRequest>();
    commit->correlation_id = correlation;
    commit->group = txn_offsets_->group;
    commit->transactional_id = config_.transactional_id;
    commit->producer_id = producer_id_;
    commit->producer_epoch = producer_epoch_;
    commit->member = txn_offsets_->member;
    commit->offsets = txn_offsets_->offsets;
    commit->transaction_v2 = config_.transaction_v2;
    txn_correlation_ = correlation;
    send(link(group_coordinator_).connection, std::move(commit));
    set_timer(config_.request_timeout, [this, correlation] {
      if (txn_correlation_ == correlation) txn_coordinator_lost();
    });
    return;
  } else if (ending && (!txn_offsets_ || txn_offsets_->stage == TxnOffsetsStage::Done) && in_flight_.empty() &&
             std::all_of(queues_.begin(), queues_.end(), [](const auto& q) { return q.empty(); })) {
    if ((txn_added_.empty() && !txn_offsets_) || txn_mapping_lost_) {  // nothing was written (transactionStarted)
      txn_mapping_lost_ = false;  // or the coordinator does not know the producer id: no EndTxn
      return txn_completed(txn_state_ == TxnState::CommittingTransaction && !txn_abortable_);
    }
    auto end = std::make_unique<EndTxnRequest>();
    end->correlation_id = correlation;
    end->transactional_id = config_.transactional_id;
    end->producer_id = producer_id_;
    end->producer_epoch = producer_epoch_;
    end->commit = txn_state_ == TxnState::CommittingTransaction && !txn_abortable_;
    end->transaction_v2 = config_.transaction_v2;
    request = std::move(end);
  } else {
    return;
  }
  txn_correlation_ = correlation;
  send(link(txn_coordinator_).connection, std::move(request));
  set_timer(config_.request_timeout, [this, correlation] {
    if (txn_correlation_ == correlation) txn_coordinator_lost();
  });
}

void Producer::txn_retry(SimTime delay) {
  if (txn_retry_pending_) return;
  txn_retry_pending_ = true;
  set_timer(delay, [this] {
    txn_retry_pending_ = false;
    txn_step();
  });
}

// The request in flight is lost with the coordinator; find it again.
void Producer::txn_coordinator_lost() {
  txn_correlation_ = -1;
  txn_coordinator_ = kNoBroker;
  group_coordinator_ = kNoBroker;
  for (const TopicPartition tp : txn_adding_) txn_to_add_.insert(tp);
  txn_adding_.clear();
  txn_retry(config_.retry_backoff);
}

void Producer::handle_find_coordinator(const FindCoordinatorResponse& response) {
  if (response.correlation_id != txn_correlation_) return;
  txn_correlation_ = -1;
  if (response.error != Error::None) return txn_retry(config_.retry_backoff);
  (finding_group_coordinator_ ? group_coordinator_ : txn_coordinator_) = response.coordinator;
  txn_step();
}

void Producer::handle_add_offsets(const AddOffsetsToTxnResponse& response) {
  if (response.correlation_id != txn_correlation_) return;
  txn_correlation_ = -1;
  switch (txn_error_action(response.error)) {
    case TxnErrorAction::Proceed:
      if (txn_offsets_) txn_offsets_->stage = TxnOffsetsStage::ToCommit;
      return txn_step();
    case TxnErrorAction::Retry: return txn_retry(milliseconds(20));
    case TxnErrorAction::Rediscover: return txn_coordinator_lost();
    case TxnErrorAction::Fatal: return txn_fatal(response.error);
    case TxnErrorAction::Other: return txn_retry(config_.retry_backoff);
  }
}

// KIP-447: a rejected offset commit (the consumer's generation is gone) aborts the transaction.
void Producer::handle_txn_offset_commit(const TxnOffsetCommitResponse& response) {
  if (response.correlation_id != txn_correlation_) return;
  txn_correlation_ = -1;
  const Error error = response.first_error();
  switch (error) {
    case Error::None: break;
    case Error::CoordinatorLoadInProgress:
    case Error::ConcurrentTransactions:  // transactions v2: the previous transaction's markers are being written
      return txn_retry(config_.retry_backoff);
    case Error::NotCoordinator:
    case Error::CoordinatorNotAvailable:
    case Error::RequestTimedOut:  // TxnOffsetCommitHandler: the group coordinator is looked up again
      group_coordinator_ = kNoBroker;
      return txn_retry(config_.retry_backoff);
    default:  // ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, REBALANCE_IN_PROGRESS, FENCED_INSTANCE_ID: abortable
      publish(TxnOffsetsRejected{error});
      txn_abortable_ = true;
      if (txn_state_ == TxnState::CommittingTransaction) {
        // Kafka: the commit fails with the abortable error, and the application's abortTransaction() follows.
        transition_to(TxnState::AbortableError);
        transition_to(TxnState::AbortingTransaction);
      }
      break;
  }
  if (txn_offsets_) txn_offsets_->stage = TxnOffsetsStage::Done;
  txn_step();
}


void Producer::handle_txn_init(const InitProducerIdResponse& response) {
  if (response.correlation_id != txn_correlation_) return;
  txn_correlation_ = -1;
  switch (txn_error_action(response.error)) {
    case TxnErrorAction::Proceed: break;
    case TxnErrorAction::Retry: return txn_retry(milliseconds(20));
    case TxnErrorAction::Rediscover: return txn_coordinator_lost();
    case TxnErrorAction::Fatal: return txn_fatal(response.error);
    case TxnErrorAction::Other: return txn_retry(config_.retry_backoff);
  }
  if (producer_id_ != kNoProducerId) ++stats_.epoch_bumps;
  producer_id_ = response.producer_id;
  producer_epoch_ = response.producer_epoch;
  sequences_.reset_all();
  publish(TransactionsInitialised{producer_id_, producer_epoch_});
  transition_to(TxnState::Ready);
  arrivals_.restart(now());  // initTransactions() (or an abort that bumped the epoch) returned
  plan_stale_ = true;
  wake_sender();
  if (txn_done_) {
    auto done = std::move(txn_done_);
    txn_done_ = nullptr;
    done(false);
  }
}

void Producer::handle_add_partitions(const AddPartitionsToTxnResponse& response) {
  if (response.correlation_id != txn_correlation_) return;
  txn_correlation_ = -1;
  const std::set<TopicPartition> asked = std::move(txn_adding_);
  txn_adding_.clear();
  const bool recover = producer_id_lost(response.error);
  switch (recover ? TxnErrorAction::Other : txn_error_action(response.error)) {
    case TxnErrorAction::Proceed:
      txn_added_.insert(asked.begin(), asked.end());
      for (const TopicPartition tp : asked) touch(tp);
      wake_sender();
      return txn_step();
    case TxnErrorAction::Retry:
      txn_to_add_.insert(asked.begin(), asked.end());
      return txn_retry(milliseconds(20));  // Kafka retries AddPartitionsToTxn quickly
    case TxnErrorAction::Rediscover:
      txn_to_add_.insert(asked.begin(), asked.end());
      return txn_coordinator_lost();
    case TxnErrorAction::Fatal: return txn_fatal(response.error);
    case TxnErrorAction::Other: break;
  }
  // An abortable error: the batches of those partitions cannot be sent; the transaction aborts.
  for (const TopicPartition tp : asked) {
    std::vector<BatchPtr> stuck(queue_of(tp).begin(), queue_of(tp).end());
    for (const BatchPtr& b : stuck) fail(b, response.error);
  }
  begin_end_txn();
  txn_step();
}

// INVALID_PRODUCER_ID_MAPPING (the transactional.id expired at its
// coordinator, transactional.id.expiration.ms): with KIP-360 an
// abortable error that needs an epoch bump (abortableErrorIfPossible); the
// abort skips EndTxn for a lost mapping and InitProducerId gives the id a new
// producer id (TransactionManager.beginCompletingTransaction). Before, fatal.
bool Producer::producer_id_lost(Error error) {
  if (error != Error::InvalidProducerIdMapping) return false;
  ++stats_.mappings_lost;
  if (!config_.mechanisms.has(Mechanism::ProducerEpochBump)) return false;
  txn_abortable_ = true;
  txn_epoch_bump_required_ = true;
  txn_mapping_lost_ = true;
  return true;
}

void Producer::handle_end_txn(const EndTxnResponse& response) {
  if (response.correlation_id != txn_correlation_) return;
  txn_correlation_ = -1;
  // The application's abortTransaction() after the failed end goes straight to InitProducerId.
  if (producer_id_lost(response.error)) return txn_step();
  switch (txn_error_action(response.error)) {
    case TxnErrorAction::Proceed: break;
    case TxnErrorAction::Retry: return txn_retry(milliseconds(20));
    case TxnErrorAction::Rediscover: return txn_coordinator_lost();
    case TxnErrorAction::Fatal: return txn_fatal(response.error);
    case TxnErrorAction::Other: return txn_retry(config_.retry_backoff);
  }
  if (response.producer_id != kNoProducerId) {
    // EndTxn v5 (transactions v2): the epoch was bumped with the transaction's
    // end, so every sequence starts again at 0 (EndTxnHandler.handleResponse);
    // an exhausted epoch comes back as a new producer id at epoch 0 (KIP-890).
    if (response.producer_id != producer_id_) ++stats_.producer_ids_renewed;
    producer_id_ = response.producer_id;
    producer_epoch_ = response.producer_epoch;
    sequences_.reset_all();
  }
  txn_completed(txn_state_ == TxnState::CommittingTransaction && !txn_abortable_);
}

// The outcome is known: the records of a committed transaction are
// acknowledged, those of an aborted one failed; the next one may begin.
void Producer::txn_completed(bool committed) {
  for (const DeliveryHistory::Ack& ack : txn_acks_) {
    if (committed) {
      history_.acks.push_back(ack);
    } else {
      history_.failures.push_back({ack.records, Error::TransactionAborted, now()});
    }
  }
  history_.transactions.push_back({index_, committed ? TxnOp::Commit : TxnOp::Abort, Error::None, now()});
  publish(TransactionEnded{committed, static_cast<std::int64_t>(txn_records_), txn_added_.size()});
  ++(committed ? stats_.transactions_committed : stats_.transactions_aborted);
  txn_acks_.clear();
  txn_added_.clear();
  txn_to_add_.clear();
  txn_records_ = 0;
  txn_abortable_ = false;
  txn_offsets_.reset();
  if (!committed && txn_epoch_bump_required_) {
    // TransactionManager.beginCompletingTransaction: the abort's result is
    // InitProducerId's, which bumps the epoch and starts every sequence at 0
    // again; abortTransaction() returns then (handle_txn_init).
    txn_epoch_bump_required_ = false;
    if (txn_state_ == TxnState::CommittingTransaction) {  // the commit failed; the application aborts
      transition_to(TxnState::AbortableError);
      transition_to(TxnState::AbortingTransaction);
    }
    transition_to(TxnState::Initializing);
    return txn_step();
  }
  transition_to(TxnState::Ready);
  arrivals_.restart(now());  // the application was blocked in commitTransaction() until now
  plan_stale_ = true;
  if (txn_done_) {
    auto done = std::move(txn_done_);
    txn_done_ = nullptr;
    done(committed);
  }
}

// PRODUCER_FENCED and the like: the producer is unusable; what it had not
// committed fails, and it sends nothing more.
void Producer::txn_fatal(Error error) {
  if (txn_state_ == TxnState::FatalError) return;
  publish(ProducerFenced{error});
  history_.transactions.push_back({index_, TxnOp::Commit, error, now()});  // the transaction cannot commit
  ++stats_.fenced;
  transition_to(TxnState::FatalError);
  for (const DeliveryHistory::Ack& ack : txn_acks_) history_.failures.push_back({ack.records, error, now()});
  txn_acks_.clear();
  std::vector<BatchPtr> left;
  for (const auto& queue : queues_) left.insert(left.end(), queue.begin(), queue.end());
  for (const BatchPtr& b : left) {
    if (!b->in_flight) fail(b, error);
  }
  if (txn_done_) {
    auto done = std::move(txn_done_);
    txn_done_ = nullptr;
    done(false);
  }
}

}  // namespace ksim::models
