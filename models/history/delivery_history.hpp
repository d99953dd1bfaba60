#pragma once
// What the producers did, as the checker needs it: how many records each
// workload producer handed to each partition (records are numbered per
// (producer, partition) from 0, in send order), and every acknowledgement
// and final failure, as ranges of those numbers.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "models/protocol/kafka_types.hpp"

namespace ksim::models {
class RecordKeyStore;  // models/protocol/record_keys.hpp
}  // namespace ksim::models

namespace ksim::models {

struct RecordRange {
  std::uint32_t writer = 0;
  TopicPartition partition;
  std::uint64_t first = 0;  // record number of the first record
  std::int32_t count = 0;
};

// A transactional producer's calls: beginTransaction(), and the end of a
// commitTransaction() or abortTransaction() (an error: it did not commit).
enum class TxnOp { Begin, Commit, Abort };
std::string_view to_string(TxnOp op);  // "begin", "commit", "abort"
std::optional<TxnOp> txn_op(std::string_view name);

struct DeliveryHistory {
  struct Ack {
    RecordRange records;
    Offset base_offset = -1;  // -1 with acks=0 (no offset is returned)
    SimTime at = 0;
  };
  struct Failure {
    RecordRange records;
    Error error = Error::None;
    SimTime at = 0;
  };

  // (writer, partition) -> records handed to the producer so far.
  std::map<std::pair<std::uint32_t, TopicPartition>, std::uint64_t> produced;
  // In deques: they grow with every batch, and a vector that doubles holds
  // both copies while it moves (docs/performance.md, the soak: a small gain).
  std::deque<Ack> acks;
  std::deque<Failure> failures;
  std::uint64_t produce_attempts = 0;  // produce requests' batches sent, retries included

  // Consume-transform-produce: the input record each output record was made
  // from, by (writer, output partition) and output record number.
  struct InputRecord {
    std::uint32_t writer = 0;
    TopicPartition partition;
    std::uint64_t record = 0;
  };
  std::map<std::pair<std::uint32_t, TopicPartition>, std::vector<InputRecord>> made_from;

  // Numbers the next record of `writer` for `partition`.
  std::uint64_t next_record(std::uint32_t writer, TopicPartition partition) { return produced[{writer, partition}]++; }

  // When each record was handed to send(), in numbering order: kept only
  // when asked for (ksim run --history), as it grows with every record.
  struct Send {
    std::uint32_t writer = 0;
    TopicPartition partition;
    std::uint64_t record = 0;
    SimTime at = 0;
  };
  bool record_sends = false;
  std::vector<Send> sends;
  void sent(std::uint32_t writer, TopicPartition partition, std::uint64_t record, SimTime at) {
    if (record_sends) sends.push_back({writer, partition, record, at});
  }

  struct TxnCall {
    std::uint32_t writer = 0;
    TxnOp op = TxnOp::Begin;
    Error error = Error::None;
    SimTime at = 0;
  };
  std::vector<TxnCall> transactions;  // in call order
};

// The committed state at the end of a run: for each partition, the batches of
// its log up to the high watermark of its leader that a read_committed
// consumer would see (no markers, no aborted or still open transactions);
// `aborted` holds the batches of aborted transactions, `open` those of
// transactions still open at the end; `offline` partitions had no leader,
// so their records were unavailable rather than lost.
struct FinalLogs {
  std::map<TopicPartition, std::vector<RecordBatch>> committed;
  std::map<TopicPartition, std::vector<RecordBatch>> aborted;
  std::map<TopicPartition, std::vector<RecordBatch>> open;
  // A live leader's batches above its high watermark: neither committed nor
  // lost yet (acks=1 or 0 acknowledged them before the followers had them).
  std::map<TopicPartition, std::vector<RecordBatch>> uncommitted;
  // Committed batches retention deleted (below the leader's log start offset
  // at the end): their records were in the log, then expired, not lost.
  std::map<TopicPartition, std::vector<RecordBatch>> expired;
  // Committed records the log cleaner removed (cleanup.policy=compact), in
  // offset order, each a batch of one: superseded by a later record of their key, not lost.
  std::map<TopicPartition, std::vector<RecordBatch>> compacted;
  // The keys and null values of compacted topics' records (null: no topic compacts).
  const RecordKeyStore* keys = nullptr;
  std::vector<TopicPartition> offline;
};

// Splits a log's batches up to the high watermark into what is committed
// (non-transactional, or in a committed transaction), aborted, and open:
// each transactional batch belongs to the transaction its producer's next
// marker ends.
void split_by_transaction(const std::vector<RecordBatch>& batches, std::vector<RecordBatch>& committed,
                          std::vector<RecordBatch>& aborted, std::vector<RecordBatch>& open);

}  // namespace ksim::models
