#include "models/check/delivery_checker.hpp"

#include <algorithm>
#include <cassert>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <span>
#include <utility>

// Every record a producer was told was written must be in the committed log
// once, in send order. Time is linear in the records produced and committed,
// plus a sort of the acks and one map look-up per ack, failure and batch
// (never per record).

namespace ksim::models {

std::string to_string(const RecordRef& ref) {
  return "p" + std::to_string(ref.writer) + "/t" + std::to_string(ref.partition.topic) + "-" +
         std::to_string(ref.partition.partition) + "/#" + std::to_string(ref.record);
}

std::string DeliveryReport::verdict() const {
  if (!vacuous.empty()) return exactly_once() ? "vacuous" : "none";
  if (exactly_once()) return "exactly-once";
  if (at_least_once()) return "at-least-once";
  if (at_most_once()) return "at-most-once";
  return "none";
}

namespace {

// What the checker knows of one record. `status` packs kAcked, kMissingSeen
// (already counted lost or unavailable) and, in its low bits, 1 + the Error
// of the record's last failure (0: it never failed).
struct RecordState {
  Offset first_offset = -1;  // of its first committed copy
  std::uint32_t copies = 0;
  std::uint8_t status = 0;
  bool on_leader = false;  // in the leader's log above its high watermark at the end
};
constexpr std::uint8_t kAcked = 0x80;
constexpr std::uint8_t kMissingSeen = 0x40;
constexpr std::uint8_t kFailureMask = 0x3f;
static_assert(static_cast<int>(Error::BufferExhausted) + 1 <= kFailureMask);

std::uint8_t failure_bits(Error error) { return static_cast<std::uint8_t>(static_cast<int>(error) + 1); }
Error failure_error(std::uint8_t status) { return static_cast<Error>((status & kFailureMask) - 1); }

// The records one workload producer handed to one partition, by record number.
struct Stream {
  std::uint32_t writer = 0;
  TopicPartition partition;
  std::vector<RecordState> records;
  std::int64_t max_acked_seen = -1;  // highest acknowledged record number met so far in the log walk

  RecordRef ref(std::uint64_t record) const { return {writer, partition, record}; }
};

template <typename T>
void push_capped(std::vector<T>& examples, std::size_t cap, T example) {
  if (examples.size() < cap) examples.push_back(std::move(example));
}

class DeliveryWalk {
 public:
  DeliveryWalk(const DeliveryHistory& history, const FinalLogs& logs, std::size_t max_examples);
  DeliveryReport run();

 private:
  Stream& stream_of(std::uint32_t writer, TopicPartition partition);
  std::span<RecordState> records_of(Stream& stream, std::uint64_t first, std::int64_t count);
  void mark_acks();
  void mark_failures();
  void walk_logs();
  void walk_uncommitted();
  void walk_batch(TopicPartition partition, const RecordBatch& batch);
  void on_first_copy(Stream& stream, std::uint64_t record, Offset offset);
  void on_extra_copy(Stream& stream, std::uint64_t record, Offset offset);
  void find_missing();
  bool anything_missing() const;
  void find_missing_in(const DeliveryHistory::Ack& ack);
  void count_outcomes();

  const DeliveryHistory& history_;
  const FinalLogs& logs_;
  std::size_t max_examples_;
  std::map<std::pair<std::uint32_t, TopicPartition>, std::size_t> stream_index_;  // per stream, not per record
  std::vector<Stream> streams_;
  std::set<TopicPartition> offline_;
  std::map<RecordRef, std::size_t> duplicate_example_of_;  // at most max_examples entries
  DeliveryReport report_;
};

DeliveryWalk::DeliveryWalk(const DeliveryHistory& history, const FinalLogs& logs, std::size_t max_examples)
    : history_(history), logs_(logs), max_examples_(max_examples), offline_(logs.offline.begin(), logs.offline.end()) {
  streams_.reserve(history.produced.size());
  for (const auto& [key, count] : history.produced) {
    stream_index_.emplace(key, streams_.size());
    streams_.push_back(Stream{key.first, key.second, std::vector<RecordState>(count), -1});
    report_.produced += count;
  }
}

DeliveryReport DeliveryWalk::run() {
  mark_acks();
  mark_failures();
  walk_logs();
  walk_uncommitted();
  find_missing();
  count_outcomes();
  return std::move(report_);
}

// Precondition: the history names every (writer, partition) that the acks, failures and logs mention.
Stream& DeliveryWalk::stream_of(std::uint32_t writer, TopicPartition partition) {
  const auto it = stream_index_.find({writer, partition});
  assert(it != stream_index_.end() && "records of a (writer, partition) the history never produced");
  return streams_[it->second];
}

// Precondition: the range lies within what was produced.
std::span<RecordState> DeliveryWalk::records_of(Stream& stream, std::uint64_t first, std::int64_t count) {
  assert(count >= 0);
  assert(first + static_cast<std::uint64_t>(count) <= stream.records.size() && "records beyond those produced");
  return std::span(stream.records).subspan(first, static_cast<std::size_t>(count));
}

void DeliveryWalk::mark_acks() {
  for (const auto& ack : history_.acks) {
    const auto& range = ack.records;
    for (auto& record : records_of(stream_of(range.writer, range.partition), range.first, range.count))
      record.status |= kAcked;
  }
}

void DeliveryWalk::mark_failures() {
  for (const auto& failure : history_.failures) {
    const auto& range = failure.records;
    for (auto& record : records_of(stream_of(range.writer, range.partition), range.first, range.count))
      record.status = static_cast<std::uint8_t>((record.status & ~kFailureMask) | failure_bits(failure.error));
  }
}

// Partitions in order, each one's batches in offset order (a precondition):
// first what retention deleted (committed, then expired: not lost), then the
// log. The records the cleaner removed (committed, then compacted: not lost)
// go between them in offset order: with cleanup.policy=compact,delete some
// are below the log start, among the expired batches.
void DeliveryWalk::walk_logs() {
  const std::vector<RecordBatch> none;
  const auto removed_of = [&](TopicPartition partition) -> const std::vector<RecordBatch>& {
    const auto it = logs_.compacted.find(partition);
    return it == logs_.compacted.end() ? none : it->second;
  };
  std::map<TopicPartition, std::size_t> walked;  // per partition, the compacted records walked so far
  const auto walk_removed_before = [&](TopicPartition partition, Offset offset) {
    const std::vector<RecordBatch>& removed = removed_of(partition);
    std::size_t& c = walked[partition];
    for (; c < removed.size() && removed[c].base_offset < offset; ++c) {
      report_.compacted += static_cast<std::uint64_t>(removed[c].record_count);
      walk_batch(partition, removed[c]);
    }
  };
  for (const auto& [partition, batches] : logs_.expired) {
    for (const auto& batch : batches) {
      walk_removed_before(partition, batch.base_offset);
      report_.expired += static_cast<std::uint64_t>(batch.record_count);
      walk_batch(partition, batch);
    }
  }
  for (const auto& [partition, batches] : logs_.committed) {
    Offset next = 0;
    for (const auto& batch : batches) {
      assert(batch.base_offset >= next && "committed batches must be in offset order, without overlap");
      walk_removed_before(partition, batch.base_offset);
      next = batch.next_offset();
      walk_batch(partition, batch);
    }
    walk_removed_before(partition, std::numeric_limits<Offset>::max());
  }
  // A partition whose log is empty at the end (all deleted) still had them.
  for (const auto& [partition, removed] : logs_.compacted) walk_removed_before(partition, std::numeric_limits<Offset>::max());
}

void DeliveryWalk::walk_uncommitted() {
  for (const auto& [partition, batches] : logs_.uncommitted) {
    for (const auto& batch : batches) {
      if (batch.record_count == 0) continue;
      for (auto& record : records_of(stream_of(batch.writer, partition), batch.first_record, batch.record_count)) {
        record.on_leader = true;
      }
    }
  }
}

void DeliveryWalk::walk_batch(TopicPartition partition, const RecordBatch& batch) {
  if (batch.record_count == 0) return;
  Stream& stream = stream_of(batch.writer, partition);
  const auto records = records_of(stream, batch.first_record, batch.record_count);
  for (std::size_t i = 0; i < records.size(); ++i) {
    const Offset offset = batch.base_offset + static_cast<Offset>(i);
    ++report_.committed;
    if (++records[i].copies == 1)
      on_first_copy(stream, batch.first_record + i, offset);
    else
      on_extra_copy(stream, batch.first_record + i, offset);
  }
}

void DeliveryWalk::on_first_copy(Stream& stream, std::uint64_t record, Offset offset) {
  RecordState& state = stream.records[record];
  state.first_offset = offset;
  if (state.status & kAcked) {
    const auto number = static_cast<std::int64_t>(record);
    if (number < stream.max_acked_seen) {
      ++report_.reordered;
      push_capped(report_.reordered_examples, max_examples_,
                  {stream.ref(record), offset, static_cast<std::uint64_t>(stream.max_acked_seen)});
    }
    stream.max_acked_seen = std::max(stream.max_acked_seen, number);
  } else if (state.status & kFailureMask) {
    ++report_.failed_but_written;
    push_capped(report_.failed_but_written_examples, max_examples_, {stream.ref(record), offset, failure_error(state.status)});
  }
}

// An example keeps every offset of its record: the second copy opens it, later ones extend it.
void DeliveryWalk::on_extra_copy(Stream& stream, std::uint64_t record, Offset offset) {
  const RecordState& state = stream.records[record];
  const RecordRef ref = stream.ref(record);
  ++report_.duplicated;
  auto& examples = report_.duplicate_examples;
  if (state.copies == 2 && examples.size() < max_examples_) {
    duplicate_example_of_.emplace(ref, examples.size());
    examples.push_back({ref, {state.first_offset, offset}});
  } else if (const auto it = duplicate_example_of_.find(ref); it != duplicate_example_of_.end()) {
    examples[it->second].offsets.push_back(offset);
  }
}

// Acknowledged records without a committed copy, visited by partition then
// acknowledged offset so that the examples come in that order.
void DeliveryWalk::find_missing() {
  if (!anything_missing()) return;  // the usual case: no need to put the acknowledgements in order
  const auto& acks = history_.acks;
  std::vector<std::size_t> order(acks.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::pair(acks[a].records.partition, acks[a].base_offset) <
           std::pair(acks[b].records.partition, acks[b].base_offset);
  });
  for (const std::size_t i : order) find_missing_in(acks[i]);
}

bool DeliveryWalk::anything_missing() const {
  for (const auto& stream : streams_) {
    for (const auto& record : stream.records) {
      if ((record.status & kAcked) && record.copies == 0) return true;
    }
  }
  return false;
}

void DeliveryWalk::find_missing_in(const DeliveryHistory::Ack& ack) {
  const auto& range = ack.records;
  Stream& stream = stream_of(range.writer, range.partition);
  const bool offline = offline_.contains(range.partition);
  const auto records = records_of(stream, range.first, range.count);
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (records[i].copies > 0 || (records[i].status & kMissingSeen)) continue;
    records[i].status |= kMissingSeen;
    if (records[i].on_leader) {
      ++report_.unreplicated;  // the run ended before the followers had it: not lost
      continue;
    }
    if (offline) {
      ++report_.unavailable;
      continue;
    }
    ++report_.lost;
    const Offset acked_at = ack.base_offset < 0 ? -1 : ack.base_offset + static_cast<Offset>(i);  // acks=0: no offset
    push_capped(report_.lost_examples, max_examples_, {stream.ref(range.first + i), acked_at});
  }
}

// A record both acknowledged and failed (a late failure of a retried batch) counts as acknowledged.
void DeliveryWalk::count_outcomes() {
  for (const auto& stream : streams_) {
    for (const auto& record : stream.records) {
      if (record.status & kAcked)
        ++report_.acknowledged;
      else if (record.status & kFailureMask)
        ++report_.failed, ++report_.failed_by_error[failure_error(record.status)];
      else
        ++report_.pending;
    }
  }
}

}  // namespace

DeliveryReport check_delivery(const DeliveryHistory& history, const FinalLogs& logs, std::size_t max_examples) {
  DeliveryReport report = DeliveryWalk(history, logs, max_examples).run();
  if (report.produced == 0) {
    report.vacuous = "nothing produced";
  } else if (report.acknowledged == 0) {
    report.vacuous = "nothing acknowledged";
  }
  return report;
}

}  // namespace ksim::models
