// The consume-transform-produce application around the consumer: the
// producer (or, EOS-v1, producers per input partition) it writes its outputs
// with, which pauses, crashes and restarts with it, and how a batch of
// processed records ends: a transaction with the offsets (KIP-447), or a
// flush and then a commit.
#include <memory>

#include "models/client/consumer/consumer.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

// One process: its producer stalls with it.
void Consumer::on_pause() {
  for (Producer* p : all_outputs()) {
    if (p->state() == NodeState::Running) p->pause();
  }
}

void Consumer::on_resume() {
  for (Producer* p : all_outputs()) {
    if (p->state() == NodeState::Paused) p->resume();
  }
}

// The open transaction takes the next poll's records too, unless it is full,
// old enough, or a rebalance is coming (it must end before partitions move).
bool Consumer::transaction_may_go_on() const {
  if (workload_.records_per_transaction == 0 && workload_.commit_interval == 0) return false;
  if (rejoin_needed_ || new_assignment_ || member_ != MemberState::Stable || close_requested_) return false;
  const bool full = workload_.records_per_transaction > 0 && txn_records_ >= workload_.records_per_transaction;
  const bool old = workload_.commit_interval > 0 && now() - txn_started_ >= workload_.commit_interval;
  return !full && !old;
}

void Consumer::forget_transaction() {
  poll_offsets_.clear();
  txn_records_ = 0;
  txn_started_ = kNever;
}

// Consume-transform-produce, after a poll's records: with transactions, the
// consumed positions go into the producer's transaction and it commits
// (KIP-447); if it aborts, the application goes back to the committed
// offsets. Without, it flushes the outputs, then commits the offsets.
void Consumer::end_transform_batch() {
  app_ = AppState::Committing;
  const std::uint32_t process = incarnation();
  if (workload_.commit == CommitStrategy::SyncAfterProcess) {
    output_->flush([this, process] {
      if (incarnation() != process || app_ != AppState::Committing) return;
      app_ = AppState::Polling;
      commit_sync(consumed_offsets(), AfterCommit::Poll);
    });
    return;
  }
  // The positions after the records this transaction's outputs were made from (whatever
  // happened to the partitions meanwhile): the group coordinator fences a stale member on them.
  std::vector<CommittedOffset> offsets;
  for (const auto& [p, o] : poll_offsets_) offsets.push_back(o);
  forget_transaction();
  auto finished = [this, process, offsets, generation = generation_](bool committed) {
    if (incarnation() != process || app_ != AppState::Committing) return;
    for (const CommittedOffset& o : offsets) {
      history_.commits.push_back({index_, o.partition, o.offset, generation, now(),
                                  committed ? Error::None : Error::TransactionAborted});
    }
    if (!committed) rewind_to_committed();
    app_ = AppState::Polling;
    wake_app();
  };
  if (!task_producers_.empty()) return end_task_transactions(offsets, finished);
  if (workload_.send_group_metadata && group_mode_ && generation_ < 0) {
    // The member lost its generation (evicted, or it left): its partitions are
    // lost, so the transaction aborts (Kafka Streams' onPartitionsLost).
    return output_->abort_transaction(finished);
  }
  output_->send_offsets_to_transaction(config_.group_id, workload_.send_group_metadata ? group_metadata() : MemberIdentity{},
                                       offsets);
  output_->commit_transaction(finished);
}

std::vector<Producer*> Consumer::all_outputs() const {
  std::vector<Producer*> all = task_producers_;
  if (output_) all.push_back(output_);
  return all;
}

// initTransactions() has returned for every producer the owned partitions use.
// A fenced one is closed and made again, as Kafka Streams does (for a task
// producer, the partition has most likely moved: the member rejoins).
bool Consumer::outputs_ready() {
  bool ready = true;
  for (const auto& [p, state] : partitions_) {
    Producer* producer = output_for(p);
    if (producer->fenced()) {
      publish(TaskProducerReplaced{p});
      producer->crash(CrashKind::Shutdown);
      producer->restart();
      rewind_to_committed();
      if (!task_producers_.empty()) request_rejoin("a task producer was fenced");
    }
    ready &= producer->ready_for_transactions();
  }
  return ready;
}

// EOS-v1: each partition's producer commits its outputs with that partition's
// offset (no group metadata: the producer's epoch does the fencing).
void Consumer::end_task_transactions(std::vector<CommittedOffset> offsets, std::function<void(bool)> finished) {
  auto left = std::make_shared<std::size_t>(offsets.size());
  auto all_committed = std::make_shared<bool>(true);
  for (const CommittedOffset& o : offsets) {
    Producer* producer = output_for(o.partition.partition);
    producer->send_offsets_to_transaction(config_.group_id, MemberIdentity{}, {o});
    producer->commit_transaction([left, all_committed, finished](bool committed) {
      *all_committed = *all_committed && committed;
      if (--*left == 0) finished(*all_committed);
    });
  }
  if (offsets.empty()) finished(true);
}

// After an aborted transaction: read again from the group's committed offsets.
void Consumer::rewind_to_committed() {
  forget_transaction();
  for (auto& [p, state] : partitions_) {
    set_position_state(state, PositionState::Unknown);
    state.buffer.clear();
    buffered_bytes_ -= state.buffered_bytes;
    state.buffered_bytes = 0;
    buffered_.reset(static_cast<std::size_t>(p));
    state.request_correlation = -1;  // a fetch in flight is answered for the old position: ignored
  }
}

}  // namespace ksim::models
