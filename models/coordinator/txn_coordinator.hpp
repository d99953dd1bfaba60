#pragma once
// A broker's transaction coordinator (KIP-98; Kafka's TransactionCoordinator
// and TransactionStateManager): the transactional.ids whose partition of
// __transaction_state this broker leads (abs(hashCode(id)) %
// transaction.state.log.num.partitions). Each id has a producer id and epoch
// and its current transaction: Empty -> Ongoing (AddPartitionsToTxn) ->
// PrepareCommit/PrepareAbort (EndTxn, written before it is answered) ->
// markers written to every partition of the transaction -> CompleteCommit/
// CompleteAbort. InitProducerId bumps the epoch, fencing the previous
// producer (a zombie), and aborts its open transaction first. Transactions
// open longer than transaction.timeout.ms are aborted with a bumped epoch.
// Every transition is written to the partition and takes effect once
// replicated; a new leader of the partition loads the state from its log
// and completes the transactions it finds prepared.
#include <functional>
#include <map>
#include <set>
#include <string>

#include "models/coordinator/group_coordinator.hpp"
#include "models/protocol/txn_messages.hpp"

namespace ksim::models {


// What the transaction coordinator needs from its broker, beyond a group coordinator's.
class TxnCoordinatorHost : public CoordinatorHost {
 public:
  // Appends to the broker's leader replica of a __transaction_state partition; `done` once replicated.
  virtual void txn_append(std::int32_t partition, std::uint64_t record_id, std::function<void(Error)> done) = 0;
  // Writes markers on the partitions' leaders; `done` gets each partition's outcome.
  virtual void write_markers(ProducerId producer, ProducerEpoch epoch, bool commit,
                             const std::vector<TopicPartition>& partitions,
                             std::function<void(const std::vector<std::pair<TopicPartition, Error>>&)> done) = 0;
  virtual ProducerId allocate_producer_id() = 0;
  virtual TopicPartition offsets_partition_of(const std::string& group) const = 0;  // the group's __consumer_offsets partition
};

class TxnCoordinator {
 public:
  TxnCoordinator(TxnCoordinatorHost& host, TxnCoordinatorConfig config, CoordinatorRecordStore& records);

  void start();  // the timed-out transaction check, from the broker's start
  void load(std::int32_t partition, const PartitionLog& log);
  void unload(std::int32_t partition);
  void reset();

  void handle(ConnectionId c, const InitProducerIdRequest& request);
  void handle(ConnectionId c, const AddPartitionsToTxnRequest& request);
  void handle(ConnectionId c, const EndTxnRequest& request);
  void handle(ConnectionId c, const AddOffsetsToTxnRequest& request);
  // KIP-890: is each partition part of the producer's ongoing transaction?
  AddPartitionsToTxnResponse verify(const AddPartitionsToTxnRequest& request);
  // KIP-890 part 2: a partition leader adds the partitions of a transactions-v2
  // producer's first write to them (AddPartitionsToTxnManager's addPartition).
  void add_for_leader(const AddPartitionsToTxnRequest& request, std::function<void(Error)> done);

 private:
  enum class LoadState { Loading, Loaded };
  struct Txn {
    std::string id;
    std::int32_t partition = 0;
    TransactionRecord state;
    bool writing = false;                  // a transition is being written
    std::set<TopicPartition> markers_left; // Prepare*: partitions whose marker is not written yet
  };

  Error check_coordinator(const std::string& id) const;
  Txn* find(const std::string& id);
  Error check_producer(const Txn& txn, ProducerId producer, ProducerEpoch epoch) const;
  Error check_end_txn_v2(const Txn& txn, const EndTxnRequest& request) const;
  void add_partitions(const AddPartitionsToTxnRequest& request, std::function<void(Error)> done);
  // Writes `next` for the transaction; it becomes its state once replicated, then `done` runs.
  void write(Txn& txn, TransactionRecord next, std::function<void(Error)> done);
  // `fence`: the coordinator's own abort (a timeout, a new instance), which bumps
  // the epoch; `v2`: transactions v2, whose every end bumps it (once more).
  void prepare_end(Txn& txn, bool commit, bool fence, bool v2, std::function<void(Error)> done);
  void reply_end_txn(ConnectionId c, std::int64_t correlation, Error error, const Txn* txn, bool v2);
  void send_markers(const std::string& id);
  void complete(const std::string& id);
  void schedule_abort_check();
  void schedule_expiration_check();
  void abort_timed_out();
  void expire_transactional_ids();
  void finish_load(std::int32_t partition, std::uint64_t generation);
  template <class Response>
  void reply(ConnectionId c, std::int64_t correlation, Error error);

  TxnCoordinatorHost& host_;
  TxnCoordinatorConfig config_;
  CoordinatorRecordStore& records_;
  std::map<std::int32_t, std::pair<LoadState, std::uint64_t>> partitions_;
  std::map<std::string, Txn> txns_;
  std::uint64_t next_load_generation_ = 0;
};

}  // namespace ksim::models
