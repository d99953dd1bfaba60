#pragma once
// What the clients do that a reader of the trace follows: a consumer's group
// membership, assignment and positions (KafkaConsumer's ConsumerCoordinator
// and its offset validation, KIP-320), and a producer's transactions and
// failures (KafkaProducer's Sender and TransactionManager).
#include <cstdint>
#include <string_view>

#include "models/protocol/kafka_types.hpp"
#include "sim/observe/trace.hpp"

namespace ksim::models {

// --- consumers ---

// The application stops consuming (a fatal error, such as no offset with auto.offset.reset=none).
struct ConsumerStopped {
  std::string_view reason;
  std::string_view kind() const { return "consumer.stopped"; }
  template <class Write> void trace(Write&& write) const { write({{"reason", reason}}); }
};

struct CoordinatorFound {
  BrokerId broker;
  std::string_view kind() const { return "consumer.coordinator"; }
  template <class Write> void trace(Write&& write) const { write({{"broker", broker}}); }
};

struct CoordinatorLost {
  std::string_view reason;
  std::string_view kind() const { return "consumer.coordinator_unknown"; }
  template <class Write> void trace(Write&& write) const { write({{"reason", reason}}); }
};

struct JoinSent {
  std::string_view reason;
  std::string_view kind() const { return "consumer.join"; }
  template <class Write> void trace(Write&& write) const { write({{"reason", reason}}); }
};

struct AssignmentReceived {
  std::int32_t generation;
  std::size_t partitions;
  std::string_view kind() const { return "consumer.assigned"; }
  template <class Write> void trace(Write&& write) const {
    write({{"generation", generation}, {"partitions", partitions}});
  }
};

// max.poll.interval.ms passed between two polls: the consumer leaves the group.
struct PollTimedOut {
  std::string_view kind() const { return "consumer.poll_timeout"; }
  template <class Write> void trace(Write&& write) const { write({}); }
};

// A partition leaves the consumer: revoked in a rebalance, or lost (KIP-429's onPartitionsLost).
struct PartitionReleased {
  std::int32_t partition;
  bool lost;
  std::string_view kind() const { return lost ? "consumer.partition_lost" : "consumer.partition_revoked"; }
  template <class Write> void trace(Write&& write) const { write({{"partition", partition}}); }
};

// NoOffsetForPartitionException: nothing committed and auto.offset.reset=none.
struct NoCommittedOffset {
  std::int32_t partition;
  std::string_view kind() const { return "consumer.no_offset"; }
  template <class Write> void trace(Write&& write) const { write({{"partition", partition}}); }
};

// auto.offset.reset: the position comes from ListOffsets.
struct PositionReset {
  std::int32_t partition;
  Offset offset;
  std::string_view kind() const { return "consumer.reset"; }
  template <class Write> void trace(Write&& write) const { write({{"partition", partition}, {"offset", offset}}); }
};

// KIP-320: the position is checked against the leader's epoch (OffsetsForLeaderEpoch).
struct PositionValidating {
  std::int32_t partition;
  Epoch epoch;
  Offset position;
  std::string_view kind() const { return "consumer.validate"; }
  template <class Write> void trace(Write&& write) const {
    write({{"partition", partition}, {"epoch", epoch}, {"position", position}});
  }
};

// KIP-320: the log was truncated below the consumer's position; it moves back to the leader's end of its epoch.
struct TruncationDetected {
  std::int32_t partition;
  Offset position;
  Offset end_offset;
  std::string_view kind() const { return "consumer.truncation_detected"; }
  template <class Write> void trace(Write&& write) const {
    write({{"partition", partition}, {"position", position}, {"end_offset", end_offset}});
  }
};

// EOS-v1: a fenced task producer is replaced by a new one.
struct TaskProducerReplaced {
  std::int32_t partition;
  std::string_view kind() const { return "consumer.new_producer"; }
  template <class Write> void trace(Write&& write) const { write({{"partition", partition}}); }
};

// --- producers ---

struct TxnOffsetsRejected {
  Error error;
  std::string_view kind() const { return "producer.txn_offsets_rejected"; }
  template <class Write> void trace(Write&& write) const { write({{"error", to_string(error)}}); }
};

// initTransactions() returned: the producer id and epoch the coordinator gave.
struct TransactionsInitialised {
  ProducerId producer;
  ProducerEpoch epoch;
  std::string_view kind() const { return "producer.txn_init"; }
  template <class Write> void trace(Write&& write) const { write({{"producer", producer}, {"epoch", epoch}}); }
};

// commitTransaction() or abortTransaction() returned.
struct TransactionEnded {
  bool committed;
  std::int64_t records;
  std::size_t partitions;
  std::string_view kind() const { return committed ? "producer.txn_commit" : "producer.txn_abort"; }
  template <class Write> void trace(Write&& write) const { write({{"records", records}, {"partitions", partitions}}); }
};

// ProducerFencedException and kin: the producer can do nothing more.
struct ProducerFenced {
  Error error;
  std::string_view kind() const { return "producer.fenced"; }
  template <class Write> void trace(Write&& write) const { write({{"error", to_string(error)}}); }
};

// A batch failed for good: its records are not written (or not known to be).
struct BatchFailed {
  TopicPartition partition;
  std::int32_t records;
  Error error;
  std::string_view kind() const { return "producer.fail"; }
  template <class Write> void trace(Write&& write) const {
    write({{"topic", partition.topic}, {"partition", partition.partition}, {"records", records},
           {"error", to_string(error)}});
  }
};

// request.timeout.ms passed without an answer: the connection to the broker is closed.
struct ProduceRequestTimedOut {
  BrokerId broker;
  std::string_view kind() const { return "producer.request_timeout"; }
  template <class Write> void trace(Write&& write) const { write({{"broker", broker}}); }
};

}  // namespace ksim::models
