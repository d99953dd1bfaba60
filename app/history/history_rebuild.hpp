#pragma once
// The events of a history as read, line by line (history_reader.cpp), and
// how they become ksim's own histories: records checked against what was
// sent, a transactional writer's acknowledgements settled by the outcome of
// their transaction, the final logs as batches, the consumers' events in time
// order with their process incarnations, rebalances from the callbacks.
// Internal to app/history.
#include <cstdint>
#include <string>
#include <vector>

#include "app/history/history_reader.hpp"

namespace ksim::app::history {

struct Record {
  std::size_t line = 0;
  SimTime t = 0;
  std::uint32_t writer = 0;
  models::TopicPartition partition;
  std::uint64_t record = 0;
};

struct Outcome {
  Record record;
  models::Offset offset = -1;           // ack
  models::Error error = models::Error::None;  // fail
};

struct Txn {
  std::size_t line = 0;
  SimTime t = 0;
  std::uint32_t writer = 0;
  models::TxnOp op = models::TxnOp::Begin;
  bool failed = false;  // the call threw (error not null): a commit that did not commit
  models::Error error = models::Error::None;
};

struct LogRecord {
  models::Offset offset = 0;
  std::uint32_t writer = 0;
  std::uint64_t record = 0;
  std::string where;  // "committed.12", for errors
};

struct FinalPartition {
  std::size_t line = 0;
  models::TopicPartition partition;
  bool offline = false;
  std::vector<LogRecord> committed, aborted, uncommitted;
};

struct From {
  Record output;
  models::DeliveryHistory::InputRecord input;
};

struct Events {
  RecordedHistory history;  // the header's part
  std::vector<Record> sends;
  std::vector<From> from;
  std::vector<Outcome> acks, fails;
  std::vector<Txn> txns;
  std::vector<models::ProcessedRecord> processed;  // incarnations not yet known
  std::vector<models::CommitEvent> commits;
  std::vector<models::OwnershipEvent> ownership;
  std::vector<models::ConsumerEvent> consumer_events;
  std::vector<FinalPartition> finals;
};

// Throws config::ConfigError at the line of a record never sent, and for a partition without a final line.
RecordedHistory rebuild(Events events);

}  // namespace ksim::app::history
