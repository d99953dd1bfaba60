#include "models/coordinator/txn_coordinator.hpp"

#include <algorithm>
#include <utility>

#include "sim/core/state_machine.hpp"

namespace ksim::models {

TxnCoordinator::TxnCoordinator(TxnCoordinatorHost& host, TxnCoordinatorConfig config, CoordinatorRecordStore& records)
    : host_(host), config_(config), records_(records) {}

void TxnCoordinator::start() {
  schedule_abort_check();
  schedule_expiration_check();
}

void TxnCoordinator::schedule_abort_check() {
  host_.coordinator_timer(config_.abort_check_interval, [this] {
    abort_timed_out();
    schedule_abort_check();
  });
}

// TransactionStateManager.enableTransactionalIdExpiration: from the broker's start.
void TxnCoordinator::schedule_expiration_check() {
  host_.coordinator_timer(config_.expiration_check_interval, [this] {
    expire_transactional_ids();
    schedule_expiration_check();
  });
}

template <class Response>
void TxnCoordinator::reply(ConnectionId c, std::int64_t correlation, Error error) {
  auto response = std::make_unique<Response>();
  response->correlation_id = correlation;
  response->error = error;
  host_.coordinator_send(c, std::move(response));
}

Error TxnCoordinator::check_coordinator(const std::string& id) const {
  const auto it = partitions_.find(group_partition(id, config_.partitions));
  if (it == partitions_.end()) return Error::NotCoordinator;
  return it->second.first == LoadState::Loaded ? Error::None : Error::CoordinatorLoadInProgress;
}

TxnCoordinator::Txn* TxnCoordinator::find(const std::string& id) {
  const auto it = txns_.find(id);
  return it == txns_.end() ? nullptr : &it->second;
}

// Kafka answers an older or newer epoch with INVALID_PRODUCER_EPOCH, which the client treats as fenced.
Error TxnCoordinator::check_producer(const Txn& txn, ProducerId producer, ProducerEpoch epoch) const {
  if (producer != txn.state.producer_id) return Error::InvalidProducerIdMapping;
  if (epoch != txn.state.producer_epoch) return Error::ProducerFenced;
  return Error::None;
}

void TxnCoordinator::write(Txn& txn, TransactionRecord next, std::function<void(Error)> done) {
  // Kafka's prepareTransitionTo: `next` must be a legal successor of the
  // current state; it becomes the state once replicated (completeTransitionTo).
  check_transition(txn.state.state, next.state, "transactional.id", txn.id);
  txn.writing = true;
  next.updated = host_.coordinator_now();
  CoordinatorRecord record;
  record.group = txn.id;
  record.transaction = next;
  const std::uint64_t id = records_.add(std::move(record));
  const std::string name = txn.id;
  host_.txn_append(txn.partition, id, [this, name, next, done = std::move(done)](Error error) {
    Txn* t = find(name);
    if (t) {
      t->writing = false;
      if (error == Error::None) t->state = next;
    }
    done(t ? error : Error::NotCoordinator);
  });
}

// ---- InitProducerId: a producer (re)starts with this transactional.id ----

void TxnCoordinator::handle(ConnectionId c, const InitProducerIdRequest& request) {
  auto answer = [this, c, correlation = request.correlation_id](Error error, ProducerId producer, ProducerEpoch epoch) {
    auto response = std::make_unique<InitProducerIdResponse>();
    response->correlation_id = correlation;
    response->error = error;
    response->producer_id = producer;
    response->producer_epoch = epoch;
    host_.coordinator_send(c, std::move(response));
  };
  if (const Error e = check_coordinator(request.transactional_id); e != Error::None) return answer(e, -1, -1);
  Txn* txn = find(request.transactional_id);
  if (!txn) {
    txn = &txns_[request.transactional_id];
    txn->id = request.transactional_id;
    txn->partition = group_partition(txn->id, config_.partitions);
    txn->state.producer_id = host_.allocate_producer_id();
    txn->state.producer_epoch = -1;  // the write below makes it 0
  }
  if (txn->writing) return answer(Error::ConcurrentTransactions, -1, -1);
  // KIP-360: a producer that names its id and epoch gets a bump only if they
  // are still the current ones, or a new producer id when the transactional.id
  // is new here (it expired: epoch -1) (TransactionCoordinator.isValidProducerId).
  if (request.producer_id != kNoProducerId && txn->state.producer_epoch != -1 &&
      (request.producer_id != txn->state.producer_id || request.producer_epoch != txn->state.producer_epoch)) {
    return answer(Error::ProducerFenced, -1, -1);
  }
  switch (txn->state.state) {
    case TxnState::Ongoing: {
      // A new instance of the producer: fence the old one and abort its transaction; the client retries.
      host_.coordinator_publish(TxnFenced{txn->id, txn->state.producer_epoch + 1});
      const std::string id = txn->id;
      prepare_end(*txn, /*commit=*/false, /*fence=*/true, config_.transaction_v2, [](Error) {});
      return answer(Error::ConcurrentTransactions, -1, -1);
    }
    case TxnState::PrepareCommit:
    case TxnState::PrepareAbort: return answer(Error::ConcurrentTransactions, -1, -1);
    case TxnState::Empty:
    case TxnState::CompleteCommit:
    case TxnState::CompleteAbort: break;
    case TxnState::Dead: return answer(Error::ConcurrentTransactions, -1, -1);  // never a loaded state
  }
  TransactionRecord next = txn->state;
  next.producer_epoch = static_cast<ProducerEpoch>(next.producer_epoch + 1);
  next.timeout = std::min(request.transaction_timeout, config_.max_timeout);  // more is refused when the scenario is read
  next.state = TxnState::Empty;
  next.partitions.clear();
  write(*txn, next, [answer, next](Error error) {
    if (error != Error::None) return answer(coordinator_error(error), -1, -1);
    answer(Error::None, next.producer_id, next.producer_epoch);
  });
}

// ---- AddPartitionsToTxn: the producer is about to write to these partitions ----

AddPartitionsToTxnResponse TxnCoordinator::verify(const AddPartitionsToTxnRequest& request) {
  AddPartitionsToTxnResponse response;
  response.correlation_id = request.correlation_id;
  response.error = check_coordinator(request.transactional_id);
  Txn* txn = response.error == Error::None ? find(request.transactional_id) : nullptr;
  if (response.error == Error::None) {
    response.error = txn ? check_producer(*txn, request.producer_id, request.producer_epoch) : Error::InvalidProducerIdMapping;
  }
  for (const TopicPartition tp : request.partitions) {
    Error verdict = response.error;  // the coordinator's own errors (loading, moved) are retriable for the leader
    if (verdict == Error::None) {
      const bool in_txn = txn->state.state == TxnState::Ongoing &&
                          std::find(txn->state.partitions.begin(), txn->state.partitions.end(), tp) !=
                              txn->state.partitions.end();
      verdict = in_txn ? Error::None : Error::InvalidTxnState;
    }
    response.partitions.emplace_back(tp, verdict);
  }
  return response;
}

void TxnCoordinator::add_for_leader(const AddPartitionsToTxnRequest& request, std::function<void(Error)> done) {
  add_partitions(request, std::move(done));
}

void TxnCoordinator::handle(ConnectionId c, const AddPartitionsToTxnRequest& request) {
  if (request.verify_only) return host_.coordinator_send(c, std::make_unique<AddPartitionsToTxnResponse>(verify(request)));
  add_partitions(request, [this, c, correlation = request.correlation_id](Error error) {
    reply<AddPartitionsToTxnResponse>(c, correlation, error);
  });
}

// The partitions join the transaction (which becomes Ongoing), once written.
void TxnCoordinator::add_partitions(const AddPartitionsToTxnRequest& request, std::function<void(Error)> done) {
  Error error = check_coordinator(request.transactional_id);
  Txn* txn = error == Error::None ? find(request.transactional_id) : nullptr;
  if (error == Error::None) {
    error = txn ? check_producer(*txn, request.producer_id, request.producer_epoch) : Error::InvalidProducerIdMapping;
  }
  if (error == Error::None && txn->writing) error = Error::ConcurrentTransactions;
  if (error == Error::None &&
      (txn->state.state == TxnState::PrepareCommit || txn->state.state == TxnState::PrepareAbort)) {
    error = Error::ConcurrentTransactions;
  }
  if (error != Error::None) return done(error);
  TransactionRecord next = txn->state;
  if (next.state != TxnState::Ongoing) {
    next.partitions.clear();
    next.started = host_.coordinator_now();
  }
  next.state = TxnState::Ongoing;
  for (const TopicPartition tp : request.partitions) {
    if (std::find(next.partitions.begin(), next.partitions.end(), tp) == next.partitions.end()) {
      next.partitions.push_back(tp);
    }
  }
  std::sort(next.partitions.begin(), next.partitions.end());
  write(*txn, next, [done = std::move(done)](Error e) { done(coordinator_error(e)); });
}

// AddOffsetsToTxn: the group's __consumer_offsets partition joins the transaction, as AddPartitionsToTxn would add it.
void TxnCoordinator::handle(ConnectionId c, const AddOffsetsToTxnRequest& request) {
  AddPartitionsToTxnRequest add;
  static_cast<TxnRequestBase&>(add) = request;
  add.partitions = {host_.offsets_partition_of(request.group)};
  auto relay = [this, c, correlation = request.correlation_id](Error error) {
    reply<AddOffsetsToTxnResponse>(c, correlation, error);
  };
  add_partitions(add, relay);
}

// ---- EndTxn: commit or abort ----

// TransactionCoordinator.endTransaction (4.0) for an EndTxn of transactions
// v2, whose epoch the ending transaction bumped: a retry of that EndTxn
// carries the epoch one lower ("retry"), the next transaction's the current
// one. Ongoing and Empty take only the current epoch, a prepared transaction
// only a retry, a complete one either.
Error TxnCoordinator::check_end_txn_v2(const Txn& txn, const EndTxnRequest& request) const {
  if (request.producer_id != txn.state.producer_id) return Error::InvalidProducerIdMapping;
  const bool retry = txn.state.producer_epoch == request.producer_epoch + 1;
  const bool current = txn.state.producer_epoch == request.producer_epoch;
  switch (txn.state.state) {
    case TxnState::Ongoing:
    case TxnState::Empty: return current ? Error::None : Error::ProducerFenced;
    case TxnState::PrepareCommit:
    case TxnState::PrepareAbort: return retry ? Error::None : Error::ProducerFenced;
    case TxnState::CompleteCommit:
    case TxnState::CompleteAbort: return retry || current ? Error::None : Error::ProducerFenced;
    case TxnState::Dead: return Error::InvalidProducerIdMapping;  // never a loaded state
  }
  return Error::ProducerFenced;
}

// EndTxn v5+ answers with the producer id and epoch the next transaction uses.
void TxnCoordinator::reply_end_txn(ConnectionId c, std::int64_t correlation, Error error, const Txn* txn, bool v2) {
  auto response = std::make_unique<EndTxnResponse>();
  response->correlation_id = correlation;
  response->error = error;
  if (v2 && error == Error::None && txn) {
    const bool renewed = txn->state.next_producer_id != kNoProducerId;
    response->producer_id = renewed ? txn->state.next_producer_id : txn->state.producer_id;
    response->producer_epoch = renewed ? ProducerEpoch{0} : txn->state.producer_epoch;
  }
  host_.coordinator_send(c, std::move(response));
}

void TxnCoordinator::handle(ConnectionId c, const EndTxnRequest& request) {
  const bool v2 = request.transaction_v2;
  const std::int64_t correlation = request.correlation_id;
  Error error = check_coordinator(request.transactional_id);
  Txn* txn = error == Error::None ? find(request.transactional_id) : nullptr;
  if (error == Error::None && !txn) error = Error::InvalidProducerIdMapping;
  if (error == Error::None) {
    error = v2 ? check_end_txn_v2(*txn, request) : check_producer(*txn, request.producer_id, request.producer_epoch);
  }
  if (error == Error::None && txn->writing) error = Error::ConcurrentTransactions;
  if (error != Error::None) return reply_end_txn(c, correlation, error, txn, v2);
  const bool commit = request.commit;
  const bool retry = txn->state.producer_epoch == request.producer_epoch + 1;  // v2 only
  // The table of TransactionCoordinator.endTransaction (4.0): v1 answers a
  // complete transaction's retry as done; v2 tells a retry (done) from the
  // next transaction's abort, which ends it with nothing added (an epoch bump).
  Error answer = Error::InvalidTxnState;
  bool end = false;
  switch (txn->state.state) {
    case TxnState::Ongoing: end = true; break;
    case TxnState::PrepareCommit: answer = commit ? Error::ConcurrentTransactions : Error::InvalidTxnState; break;
    case TxnState::PrepareAbort: answer = commit ? Error::InvalidTxnState : Error::ConcurrentTransactions; break;
    case TxnState::CompleteCommit:
      if (!v2) answer = commit ? Error::None : Error::InvalidTxnState;
      else if (commit) answer = retry ? Error::None : Error::InvalidTxnState;
      else end = !retry;
      break;
    case TxnState::CompleteAbort:
      if (!v2 || retry) answer = commit ? Error::InvalidTxnState : Error::None;
      else end = !commit;
      break;
    case TxnState::Empty: end = v2 && !commit; break;
    case TxnState::Dead: answer = Error::InvalidProducerIdMapping; break;  // never a loaded state
  }
  if (!end) return reply_end_txn(c, correlation, answer, txn, v2);
  const std::string id = txn->id;
  prepare_end(*txn, commit, /*fence=*/false, v2, [this, c, correlation, id, v2](Error e) {
    reply_end_txn(c, correlation, coordinator_error(e), find(id), v2);
  });
}

// TransactionMetadata.prepareFenceProducerEpoch (`fence`) and
// prepareAbortOrCommit, which bumps the epoch again with transactions v2: the
// markers carry the new epoch, so a late write of the ended transaction is
// fenced on the partition itself.
void TxnCoordinator::prepare_end(Txn& txn, bool commit, bool fence, bool v2, std::function<void(Error)> done) {
  TransactionRecord next = txn.state;
  if (next.state != TxnState::Ongoing) next.partitions.clear();  // an abort with nothing added (noPartitionAdded)
  next.state = commit ? TxnState::PrepareCommit : TxnState::PrepareAbort;
  next.producer_epoch = static_cast<ProducerEpoch>(next.producer_epoch + (fence ? 1 : 0) + (v2 ? 1 : 0));
  next.transaction_v2 = v2;
  // TransactionMetadata.isEpochExhausted: Short.MaxValue - 1 and up.
  if (v2 && !fence && next.producer_epoch >= kMaxProducerEpoch - 1) next.next_producer_id = host_.allocate_producer_id();
  const std::string id = txn.id;
  write(txn, next, [this, id, fence, v2, done = std::move(done)](Error error) {
    done(error);
    if (error != Error::None) return;
    Txn* t = find(id);
    if (!t) return;
    const ProducerEpoch epoch = t->state.producer_epoch;
    if (fence) host_.coordinator_publish(TxnEpochBumped{id, epoch, EpochBump::Fence});
    if (v2 && !fence) host_.coordinator_publish(TxnEpochBumped{id, epoch, EpochBump::EndTxn});
    if (t->state.next_producer_id != kNoProducerId) host_.coordinator_publish(TxnEpochBumped{id, epoch, EpochBump::Exhausted});
    t->markers_left = {t->state.partitions.begin(), t->state.partitions.end()};
    host_.coordinator_publish(TxnPrepared{id, to_string(t->state.state), t->state.partitions.size()});
    send_markers(id);
  });
}

void TxnCoordinator::send_markers(const std::string& id) {
  Txn* txn = find(id);
  if (!txn || (txn->state.state != TxnState::PrepareCommit && txn->state.state != TxnState::PrepareAbort)) return;
  if (txn->markers_left.empty()) return complete(id);
  const std::vector<TopicPartition> partitions(txn->markers_left.begin(), txn->markers_left.end());
  host_.write_markers(txn->state.producer_id, txn->state.producer_epoch, txn->state.state == TxnState::PrepareCommit,
                      partitions, [this, id](const std::vector<std::pair<TopicPartition, Error>>& results) {
                        Txn* t = find(id);
                        if (!t) return;
                        for (const auto& [tp, error] : results) {
                          if (error == Error::None) t->markers_left.erase(tp);
                        }
                        if (t->markers_left.empty()) return complete(id);
                        host_.coordinator_timer(milliseconds(100), [this, id] { send_markers(id); });  // retry
                      });
}

void TxnCoordinator::complete(const std::string& id) {
  Txn* txn = find(id);
  // A retry may find the transaction reloaded from the log in another state (already complete, say).
  if (!txn || txn->writing || (txn->state.state != TxnState::PrepareCommit && txn->state.state != TxnState::PrepareAbort)) {
    return;
  }
  TransactionRecord next = txn->state;
  next.state = next.state == TxnState::PrepareCommit ? TxnState::CompleteCommit : TxnState::CompleteAbort;
  next.partitions.clear();
  if (next.next_producer_id != kNoProducerId) {  // TransactionMetadata.prepareComplete
    next.producer_id = std::exchange(next.next_producer_id, kNoProducerId);
    next.producer_epoch = 0;
  }
  write(*txn, next, [this, id](Error error) {
    if (error != Error::None) {
      host_.coordinator_timer(milliseconds(100), [this, id] { complete(id); });
      return;
    }
    if (Txn* t = find(id)) {
      host_.coordinator_publish(TxnCompleted{id, to_string(t->state.state)});
    }
  });
}

// transaction.timeout.ms: an open transaction that has run too long is
// aborted, with the epoch bumped so its producer is fenced.
void TxnCoordinator::abort_timed_out() {
  std::vector<std::string> expired;
  for (const auto& [id, txn] : txns_) {
    if (txn.writing || txn.state.state != TxnState::Ongoing || check_coordinator(id) != Error::None) continue;
    if (host_.coordinator_now() - txn.state.started > txn.state.timeout) expired.push_back(id);
  }
  for (const std::string& id : expired) {
    host_.coordinator_publish(TxnTimedOut{id});
    prepare_end(txns_.at(id), /*commit=*/false, /*fence=*/true, config_.transaction_v2, [](Error) {});
  }
}

// removeExpiredTransactionalIds: an id with no transition in flight, Empty or
// complete (isExpirationAllowed), not updated for transactional.id.expiration.ms,
// goes Dead: its tombstone is written, and once it is the id is forgotten (a
// failed write leaves it as it was). A producer still using the id then gets
// INVALID_PRODUCER_ID_MAPPING; a new one gets a new producer id.
void TxnCoordinator::expire_transactional_ids() {
  const SimTime now = host_.coordinator_now();
  std::vector<std::string> expired;
  for (const auto& [id, txn] : txns_) {
    const TxnState s = txn.state.state;
    if (txn.writing || check_coordinator(id) != Error::None || !legal(s, TxnState::Dead)) continue;
    if (txn.state.updated <= now - config_.transactional_id_expiration) expired.push_back(id);
  }
  for (const std::string& id : expired) {
    Txn& txn = txns_.at(id);
    check_transition(txn.state.state, TxnState::Dead, "transactional.id", id);
    txn.writing = true;
    CoordinatorRecord record;
    record.group = id;
    record.transaction = txn.state;
    record.transaction->state = TxnState::Dead;
    record.tombstone = true;
    record.written = now;
    host_.coordinator_publish(TxnIdExpired{id, txn.state.producer_id});
    host_.txn_append(txn.partition, records_.add(std::move(record)), [this, id](Error error) {
      Txn* t = find(id);
      if (!t) return;
      if (error == Error::None) {
        txns_.erase(id);
      } else {
        t->writing = false;
      }
    });
  }
}

// ---- loading ----

void TxnCoordinator::load(std::int32_t partition, const PartitionLog& log) {
  unload(partition);
  const std::uint64_t generation = next_load_generation_++;
  partitions_[partition] = {LoadState::Loading, generation};
  std::int64_t records = 0;
  for (const RecordBatch& batch : log.batches()) {
    if (batch.writer != kCoordinatorWriter) continue;
    const CoordinatorRecord& record = records_.at(coordinator_record_id(batch));
    if (!record.transaction) continue;
    ++records;
    if (record.tombstone) {  // an expired transactional.id
      txns_.erase(record.group);
      continue;
    }
    Txn& txn = txns_[record.group];
    txn.id = record.group;
    txn.partition = partition;
    txn.state = *record.transaction;
  }
  if (records > 0) host_.coordinator_publish(TxnLoadStarted{partition, records});
  host_.coordinator_timer(config_.load_time_per_record * records,
                          [this, partition, generation] { finish_load(partition, generation); });
}

// Prepared transactions found in the log are completed by the new coordinator.
void TxnCoordinator::finish_load(std::int32_t partition, std::uint64_t generation) {
  const auto it = partitions_.find(partition);
  if (it == partitions_.end() || it->second.second != generation) return;
  it->second.first = LoadState::Loaded;
  for (auto& [id, txn] : txns_) {
    if (txn.partition != partition) continue;
    if (txn.state.state == TxnState::PrepareCommit || txn.state.state == TxnState::PrepareAbort) {
      txn.markers_left = {txn.state.partitions.begin(), txn.state.partitions.end()};
      host_.coordinator_publish(TxnResumed{id, to_string(txn.state.state)});
      send_markers(id);
    }
  }
}

void TxnCoordinator::unload(std::int32_t partition) {
  if (partitions_.erase(partition) == 0) return;
  std::erase_if(txns_, [&](const auto& entry) { return entry.second.partition == partition; });
}

void TxnCoordinator::reset() {
  partitions_.clear();
  txns_.clear();
}

}  // namespace ksim::models
