#pragma once
// The delivery checker: reads the history and the final committed logs and
// says which records were lost, duplicated or reordered, and which delivery
// guarantees held. Linear in the history and the logs; a library call, used
// at the end of `ksim run` and from tests.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/history/delivery_history.hpp"

namespace ksim::models {

struct RecordRef {
  std::uint32_t writer = 0;
  TopicPartition partition;
  std::uint64_t record = 0;
  friend auto operator<=>(const RecordRef&, const RecordRef&) = default;
};
std::string to_string(const RecordRef& ref);  // "p0/t0-3/#1234": producer 0, topic 0 partition 3, record 1234

struct DeliveryReport {
  std::uint64_t produced = 0;           // records handed to producers
  std::uint64_t acknowledged = 0;       // records in acknowledged batches (each counted once)
  std::uint64_t failed = 0;             // records whose batch finally failed
  std::uint64_t pending = 0;            // neither acknowledged nor failed at the end
  std::uint64_t committed = 0;          // records in the committed logs (every copy), those retention deleted or compaction removed included
  std::uint64_t expired = 0;            // committed records retention deleted by the end (retention.ms, retention.bytes)
  std::uint64_t compacted = 0;          // committed records the log cleaner removed, superseded by a later record of their key
  std::uint64_t lost = 0;               // acknowledged, in an online partition, but absent from its committed log
  std::uint64_t unavailable = 0;        // acknowledged, in an offline partition
  std::uint64_t unreplicated = 0;       // acknowledged, absent from the committed log but on its live leader above the HW
  std::uint64_t duplicated = 0;         // records committed more than once (each extra copy counts one)
  std::uint64_t reordered = 0;          // acknowledged records committed after a later-sent acknowledged record of the same producer and partition
  std::uint64_t failed_but_written = 0; // records of failed batches found in the committed log
  std::map<Error, std::uint64_t> failed_by_error;  // the failed records, by the error of their last failure

  struct Lost { RecordRef record; Offset acknowledged_offset; };
  struct Duplicate { RecordRef record; std::vector<Offset> offsets; };
  struct Reordered { RecordRef record; Offset offset; std::uint64_t committed_after; };  // after record number `committed_after`
  struct FailedButWritten { RecordRef record; Offset offset; Error error; };
  std::vector<Lost> lost_examples;
  std::vector<Duplicate> duplicate_examples;
  std::vector<Reordered> reordered_examples;
  std::vector<FailedButWritten> failed_but_written_examples;
  // What the guarantees were checked over, when it was nothing: "nothing
  // produced", "nothing acknowledged" (a guarantee over nothing is not one);
  // "" when something was. The report may add its own ("no fault fired").
  std::string vacuous;

  bool at_most_once() const { return duplicated == 0; }
  bool at_least_once() const { return lost == 0 && unavailable == 0; }
  bool exactly_once() const { return at_most_once() && at_least_once() && reordered == 0; }
  // "exactly-once", "at-least-once", "at-most-once" or "none": the strongest
  // that held; "vacuous" when nothing was checked.
  std::string verdict() const;
};

// Keeps at most `max_examples` examples of each anomaly (the first found, in
// partition then offset order); the counts are always complete.
DeliveryReport check_delivery(const DeliveryHistory& history, const FinalLogs& logs, std::size_t max_examples = 20);

}  // namespace ksim::models
