// The broker's part in transactions (KIP-98, KIP-890): it hosts a
// transaction coordinator (InitProducerId with a transactional.id,
// AddPartitionsToTxn, EndTxn), writes the markers a coordinator asks for on
// the partitions it leads, and, with transaction.partition.verification.enable,
// checks with the coordinator before a transactional write may open a
// transaction on one of its partitions. Requests between brokers go over
// connections of their own.
#include <algorithm>
#include <set>

#include "models/broker/broker.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

// Unique across brokers and restarts: (broker, incarnation, counter).
TopicPartition Broker::offsets_partition_of(const std::string& group) const {
  const std::int32_t partitions = topic({directory_->offsets_topic, 0}).partitions;
  return {directory_->offsets_topic, group_partition(group, partitions)};
}

ProducerId Broker::allocate_producer_id() {
  return (static_cast<ProducerId>(id_) << 40) | (static_cast<ProducerId>(incarnation()) << 24) | next_producer_id_++;
}

namespace {

// A broker without a transaction coordinator answers its requests NOT_COORDINATOR.
template <class Response>
MessagePtr not_coordinator(std::int64_t correlation_id) {
  auto response = std::make_unique<Response>();
  response->correlation_id = correlation_id;
  response->error = Error::NotCoordinator;
  return response;
}

}  // namespace

void Broker::handle_txn_request(ConnectionId connection, const AddPartitionsToTxnRequest& request) {
  if (txn_coordinator_) return txn_coordinator_->handle(connection, request);
  send(connection, not_coordinator<AddPartitionsToTxnResponse>(request.correlation_id));
}

void Broker::handle_txn_request(ConnectionId connection, const AddOffsetsToTxnRequest& request) {
  if (txn_coordinator_ && directory_->offsets_topic >= 0) return txn_coordinator_->handle(connection, request);
  send(connection, not_coordinator<AddOffsetsToTxnResponse>(request.correlation_id));
}

void Broker::handle_txn_request(ConnectionId connection, const EndTxnRequest& request) {
  if (txn_coordinator_) return txn_coordinator_->handle(connection, request);
  send(connection, not_coordinator<EndTxnResponse>(request.correlation_id));
}

// ---- requests to other brokers ----

void Broker::send_to_broker(BrokerId broker, MessagePtr request, std::int64_t correlation, BrokerResponse on_response) {
  BrokerLink& link = broker_links_[broker];
  if (!link.connected) {
    link.connection = connect(directory_->broker_nodes[static_cast<std::size_t>(broker)]);
    link.connected = true;
  }
  broker_requests_[correlation] = BrokerRequest{broker, std::move(on_response)};
  send(link.connection, std::move(request));
  set_timer(config_.transaction_coordinator.append_timeout, [this, correlation] { answer_broker_request(correlation, nullptr); });
}

void Broker::answer_broker_request(std::int64_t correlation, Message* response) {
  const auto it = broker_requests_.find(correlation);
  if (it == broker_requests_.end()) return;
  BrokerResponse on_response = std::move(it->second.on_response);
  broker_requests_.erase(it);
  on_response(response);
}

// A closed link fails what was asked over it.
void Broker::broker_link_closed(ConnectionId connection) {
  for (auto& [broker, link] : broker_links_) {
    if (!link.connected || link.connection != connection) continue;
    link.connected = false;
    std::vector<std::int64_t> failed;
    for (const auto& [correlation, request] : broker_requests_) {
      if (request.broker == broker) failed.push_back(correlation);
    }
    for (const std::int64_t correlation : failed) answer_broker_request(correlation, nullptr);
  }
}

// ---- markers ----

void Broker::write_markers(ProducerId producer, ProducerEpoch epoch, bool commit,
                           const std::vector<TopicPartition>& partitions,
                           std::function<void(const std::vector<std::pair<TopicPartition, Error>>&)> done) {
  struct Gathering {
    std::vector<std::pair<TopicPartition, Error>> results;
    std::size_t waiting = 0;
    std::function<void(const std::vector<std::pair<TopicPartition, Error>>&)> done;
  };
  auto gathering = std::make_shared<Gathering>();
  gathering->done = std::move(done);
  std::map<BrokerId, std::vector<TopicPartition>> by_leader;
  for (const TopicPartition tp : partitions) {
    const BrokerId leader = leader_of(tp);
    if (leader == kNoBroker) {
      gathering->results.emplace_back(tp, Error::NotLeaderOrFollower);
    } else {
      by_leader[leader].push_back(tp);
    }
  }
  gathering->waiting = by_leader.size();
  const auto finish_one = [gathering] {
    if (--gathering->waiting == 0) gathering->done(gathering->results);
  };
  if (by_leader.empty()) return coordinator_timer(0, [gathering] { gathering->done(gathering->results); }), void();
  for (const auto& [leader, tps] : by_leader) {
    if (leader == id_) {
      auto left = std::make_shared<std::size_t>(tps.size());
      for (const TopicPartition tp : tps) {
        write_marker(tp, producer, epoch, commit, [gathering, left, tp, finish_one](Error error) {
          gathering->results.emplace_back(tp, error);
          if (--*left == 0) finish_one();
        });
      }
      continue;
    }
    auto request = std::make_unique<WriteTxnMarkersRequest>();
    const std::int64_t correlation = request->correlation_id = next_correlation_id_++;
    request->producer_id = producer;
    request->producer_epoch = epoch;
    request->commit = commit;
    request->partitions = tps;
    send_to_broker(leader, std::move(request), correlation, [gathering, tps = tps, finish_one](Message* m) {
      if (const auto* response = message_if<WriteTxnMarkersResponse>(m)) {
        for (const auto& result : response->partitions) gathering->results.push_back(result);
      } else {
        for (const TopicPartition tp : tps) gathering->results.emplace_back(tp, Error::NetworkException);
      }
      finish_one();
    });
  }
}

void Broker::handle_write_txn_markers(ConnectionId connection, const WriteTxnMarkersRequest& request) {
  auto response = std::make_shared<WriteTxnMarkersResponse>();
  response->correlation_id = request.correlation_id;
  auto left = std::make_shared<std::size_t>(request.partitions.size());
  for (const TopicPartition tp : request.partitions) {
    write_marker(tp, request.producer_id, request.producer_epoch, request.commit,
                 [this, connection, response, left, tp](Error error) {
                   response->partitions.emplace_back(tp, error);
                   if (--*left == 0) send(connection, std::make_unique<WriteTxnMarkersResponse>(*response));
                 });
  }
}

// A commit or abort marker ends the producer's transaction on this partition
// (and moves the last stable offset on), replicated like any write.
void Broker::write_marker(TopicPartition tp, ProducerId producer, ProducerEpoch epoch, bool commit,
                          std::function<void(Error)> done) {
  Replica* r = replica(tp);
  if (r && r->is_leader() && !r->producers.marker_allowed(producer, epoch)) {
    return coordinator_timer(0, [done] { done(Error::None); }), void();  // a newer epoch moved past it
  }
  RecordBatch marker;
  marker.record_count = 1;
  marker.bytes = 78;  // a control batch with one record
  marker.producer_id = producer;
  marker.producer_epoch = epoch;
  marker.control = commit ? ControlType::Commit : ControlType::Abort;
  marker.writer = kCoordinatorWriter;
  marker.create_time = now();
  if (r) r->verified.erase(producer);
  publish(TxnMarkerWritten{id_, tp, producer, commit});
  if (tp.topic == directory_->offsets_topic && coordinator_) {
    // On __consumer_offsets the marker also settles the transaction's offsets (KIP-98, KIP-447).
    done = [this, tp, producer, commit, done = std::move(done)](Error error) {
      if (error == Error::None && coordinator_) coordinator_->complete_transaction(tp.partition, producer, commit);
      done(error);
    };
  }
  internal_append(tp, marker, config_.transaction_coordinator.append_timeout, std::move(done));
}

void Broker::txn_append(std::int32_t partition, std::uint64_t record_id, std::function<void(Error)> done) {
  internal_append({directory_->transaction_topic, partition}, coordinator_batch(record_id),
                  config_.transaction_coordinator.append_timeout, std::move(done));
}

// ---- KIP-890: verification (part 1), implicit adds (part 2) ----

// The first transactional write of a producer to a partition opens a
// transaction there; with verification, the leader first asks the
// transaction coordinator whether the partition is part of the producer's
// ongoing transaction, and holds the request until it knows. A
// transactions-v2 producer (Produce v12+) never added the partition itself:
// the leader adds it (AddPartitionsToTxnManager's addPartition), whatever
// transaction.partition.verification.enable says
// (ReplicaManager.maybeSendPartitionsToTransactionCoordinator, 4.0). True when
// the request was taken over (it comes back through handle_produce).
bool Broker::verify_transactional_writes(ConnectionId connection, std::unique_ptr<ProduceRequest>& request) {
  const bool add = request->transaction_v2;
  if ((!config_.transaction_partition_verification_enable && !add) || request->transactional_id.empty() ||
      directory_->transaction_topic < 0) {
    return false;
  }
  std::vector<TopicPartition> unverified;
  ProducerId producer = kNoProducerId;
  ProducerEpoch epoch = -1;
  for (const auto& data : request->partitions) {
    const RecordBatch& b = data.batch;
    const Replica* r = replica(data.partition);
    if (!b.transactional || !r || !r->is_leader() || r->producers.in_transaction(b.producer_id, b.producer_epoch)) {
      continue;
    }
    const auto known = r->verified.find(b.producer_id);
    if (known != r->verified.end() && known->second == b.producer_epoch) continue;
    unverified.push_back(data.partition);
    producer = b.producer_id;
    epoch = b.producer_epoch;
  }
  if (unverified.empty()) return false;
  auto held = std::shared_ptr<ProduceRequest>(request.release());
  check_transactional_writes(connection, held, unverified, producer, epoch, now());
  return true;
}

// One try; an add answered CONCURRENT_TRANSACTIONS (the previous transaction's
// markers are still being written) is tried again every
// add.partitions.to.txn.retry.backoff.ms until
// add.partitions.to.txn.retry.backoff.max.ms has passed since the first, then
// answered as is (KAFKA-18654, 4.0: ReplicaManager.maybeRetryOnConcurrentTransactions).
void Broker::check_transactional_writes(ConnectionId connection, std::shared_ptr<ProduceRequest> held,
                                        std::vector<TopicPartition> partitions, ProducerId producer,
                                        ProducerEpoch epoch, SimTime started) {
  const bool add = held->transaction_v2;
  add_to_transaction(held->transactional_id, producer, epoch, partitions, add,
                     [this, connection, held, partitions, producer, epoch, started, add](Verdicts verdicts) {
                       const bool concurrent = std::any_of(verdicts.begin(), verdicts.end(), [](const auto& v) {
                         return v.second == Error::ConcurrentTransactions;
                       });
                       // (Kafka also caps it at the broker's request.timeout.ms, 30 s, which ksim does not read.)
                       if (add && concurrent && now() - started < config_.add_partitions_to_txn_retry_backoff_max) {
                         coordinator_timer(config_.add_partitions_to_txn_retry_backoff,
                                           [this, connection, held, partitions, producer, epoch, started] {
                                             check_transactional_writes(connection, held, partitions, producer, epoch,
                                                                        started);
                                           });
                         return;
                       }
                       handle_produce(connection, std::make_unique<ProduceRequest>(*held), &verdicts);
                     });
}

// Asks the producer's transaction coordinator to verify (`add` false) or add
// the partitions; `done` gets the error of each partition that may not be
// written. Not in the transaction: INVALID_TXN_STATE; fenced:
// INVALID_PRODUCER_EPOCH; no answer from the coordinator (unreachable, moving,
// loading): NOT_ENOUGH_REPLICAS, which the producer retries. Still completing
// the previous transaction: CONCURRENT_TRANSACTIONS for an add (retriable too),
// NOT_ENOUGH_REPLICAS for a verification (ReplicaManager's postVerificationCallback).
void Broker::add_to_transaction(const std::string& transactional_id, ProducerId producer, ProducerEpoch epoch,
                                const std::vector<TopicPartition>& partitions, bool add,
                                std::function<void(Verdicts)> done) {
  const std::int32_t p = group_partition(transactional_id, topic({directory_->transaction_topic, 0}).partitions);
  const BrokerId coordinator = leader_of({directory_->transaction_topic, p});
  auto ask = std::make_unique<AddPartitionsToTxnRequest>();
  const std::int64_t correlation = ask->correlation_id = next_correlation_id_++;
  ask->transactional_id = transactional_id;
  ask->producer_id = producer;
  ask->producer_epoch = epoch;
  ask->partitions = partitions;
  ask->verify_only = !add;
  auto resume = [this, partitions, producer, epoch, add, done = std::move(done)](Message* m) {
    Verdicts verdicts;
    for (const TopicPartition tp : partitions) verdicts[tp] = Error::NotEnoughReplicas;
    if (const auto* answer = message_if<AddPartitionsToTxnResponse>(m)) {
      std::vector<std::pair<TopicPartition, Error>> results = answer->partitions;
      if (results.empty()) {  // an add: one error for all
        for (const TopicPartition tp : partitions) results.emplace_back(tp, answer->error);
      }
      for (const auto& [tp, error] : results) {
        if (error == Error::None) {
          verdicts.erase(tp);
          if (Replica* r = replica(tp)) r->verified[producer] = epoch;
        } else if (error == Error::InvalidTxnState || error == Error::ProducerFenced) {
          verdicts[tp] = error == Error::ProducerFenced ? Error::InvalidProducerEpoch : Error::InvalidTxnState;
        } else if (error == Error::ConcurrentTransactions && add) {
          verdicts[tp] = error;
        }
      }
    }
    done(std::move(verdicts));
  };
  if (coordinator == kNoBroker) {
    coordinator_timer(0, [resume] { resume(nullptr); });
  } else if (coordinator == id_ && txn_coordinator_ && add) {
    auto request = std::shared_ptr<AddPartitionsToTxnRequest>(ask.release());
    txn_coordinator_->add_for_leader(*request, [this, request, resume](Error error) {
      auto answer = std::make_shared<AddPartitionsToTxnResponse>();
      answer->correlation_id = request->correlation_id;
      answer->error = error;
      coordinator_timer(0, [resume, answer] { resume(answer.get()); });
    });
  } else if (coordinator == id_ && txn_coordinator_) {
    auto answer = std::make_shared<AddPartitionsToTxnResponse>(txn_coordinator_->verify(*ask));
    coordinator_timer(0, [resume, answer] { resume(answer.get()); });
  } else {
    send_to_broker(coordinator, std::move(ask), correlation, resume);
  }
}

// TxnOffsetCommit v5+ (transactions v2) comes without AddOffsetsToTxn: the
// group's __consumer_offsets partition joins the transaction here first, as
// the group coordinator's transactional writes verify with addPartition.
void Broker::handle_txn_offset_commit(ConnectionId connection, const TxnOffsetCommitRequest& request) {
  if (!request.transaction_v2 || directory_->transaction_topic < 0 || directory_->offsets_topic < 0) {
    return group_coordinator().handle(connection, request);
  }
  const TopicPartition offsets{directory_->offsets_topic,
                               group_partition(request.group, topic({directory_->offsets_topic, 0}).partitions)};
  auto held = std::make_shared<TxnOffsetCommitRequest>(request);
  add_to_transaction(request.transactional_id, request.producer_id, request.producer_epoch, {offsets}, /*add=*/true,
                     [this, connection, held](Verdicts verdicts) {
                       if (verdicts.empty()) return group_coordinator().handle(connection, *held);
                       auto response = std::make_unique<TxnOffsetCommitResponse>();
                       response->correlation_id = held->correlation_id;
                       const Error error = verdicts.begin()->second;
                       response->error = error == Error::NotEnoughReplicas ? Error::CoordinatorLoadInProgress : error;
                       send(connection, std::move(response));
                     });
}

// ---- inspection ----

Offset Broker::last_stable_offset(TopicPartition tp) const {
  const Replica* r = replica(tp);
  return r ? last_stable_offset(*r) : 0;
}

OpenTransactions Broker::open_transactions(TopicPartition tp) const {
  const Replica* r = replica(tp);
  return r ? r->producers.open_transactions() : OpenTransactions{};
}

}  // namespace ksim::models
