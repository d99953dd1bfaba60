// RetentionHistory keeps per deleted batch only its offsets, writer and
// record numbers (24 bytes, not a 64-byte RecordBatch). The checkers must
// give the same answers from it as from the full batches it kept before:
// a reference of that old history (every batch kept, markers included, each
// offset once) is checked against it on runs with loss, duplicates,
// reordering, failures and expiry, deleted by several replicas.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "models/check/consumption_checker.hpp"
#include "models/check/delivery_checker.hpp"
#include "models/history/retention_history.hpp"

using namespace ksim;
using namespace ksim::models;

namespace {

constexpr TopicPartition kRetP0{0, 0};
constexpr TopicPartition kRetP1{0, 1};

// A batch with what the checkers read.
RecordBatch retention_batch(Offset base, std::int32_t count, std::uint32_t writer, std::uint64_t first,
                     ControlType control = ControlType::None) {
  RecordBatch b;
  b.base_offset = base;
  b.record_count = count;
  b.writer = writer;
  b.first_record = first;
  b.control = control;
  return b;
}

// The history as it was: whole batches, the first copy of each offset.
struct FullRetention {
  std::map<TopicPartition, std::vector<RecordBatch>> deleted;
  void segments_deleted(TopicPartition tp, const std::vector<RecordBatch>& batches) {
    auto& kept = deleted[tp];
    for (const RecordBatch& b : batches) {
      if (kept.empty() || b.base_offset >= kept.back().next_offset()) kept.push_back(b);
    }
  }
  std::vector<RecordBatch> expired_below(TopicPartition tp, Offset log_start) const {
    std::vector<RecordBatch> out;
    const auto it = deleted.find(tp);
    if (it == deleted.end()) return out;
    for (const RecordBatch& b : it->second) {
      if (b.next_offset() > log_start) break;
      if (!b.is_control()) out.push_back(b);
    }
    return out;
  }
};

// A partition's log as producers and a faulty cluster wrote it, with the history of the producers and a group.
struct RetentionRun {
  DeliveryHistory history;
  ConsumptionHistory consumption;
  std::map<TopicPartition, std::vector<RecordBatch>> log;  // everything ever appended, in offset order

  RecordBatch append(TopicPartition tp, std::uint32_t writer, std::uint64_t first, std::int32_t count,
                     ControlType control = ControlType::None) {
    auto& batches = log[tp];
    RecordBatch b = retention_batch(batches.empty() ? 0 : batches.back().next_offset(), count, writer, first, control);
    b.bytes = 100 * static_cast<std::uint64_t>(count);
    b.producer_id = writer + 1;
    batches.push_back(b);
    return b;
  }
};

// Three writers on two partitions, with every anomaly: a lost batch (acked,
// then not in the log), a duplicate (a batch appended twice), reordering (a
// later batch appended first), a failed batch written anyway, markers; a
// consumer that processes some records twice and misses others.
RetentionRun anomalous_run(std::uint64_t seed) {
  RetentionRun run;
  std::mt19937_64 random(seed);
  for (const TopicPartition tp : {kRetP0, kRetP1}) {
    for (int step = 0; step < 60; ++step) {
      const auto writer = static_cast<std::uint32_t>(random() % 3);
      const auto count = static_cast<std::int32_t>(1 + random() % 4);
      auto& produced = run.history.produced[{writer, tp}];
      const RecordRange range{writer, tp, produced, count};
      produced += static_cast<std::uint64_t>(count);
      const auto kind = random() % 10;
      if (kind == 0) {  // lost: acknowledged at an offset the final log does not hold for it
        run.history.acks.push_back({range, 100000 + step, 0});
        continue;
      }
      if (kind == 1) {  // failed, yet written
        run.history.failures.push_back({range, Error::RequestTimedOut, 0});
        run.append(tp, writer, range.first, count);
        continue;
      }
      const RecordBatch b = run.append(tp, writer, range.first, count);
      run.history.acks.push_back({range, b.base_offset, 0});
      if (kind == 2) run.append(tp, writer, range.first, count);  // duplicated
      if (kind == 3) run.append(tp, 9, 0, 1, ControlType::Commit);  // a marker between batches
    }
  }
  // Reordering: a stream's later records committed before earlier ones.
  auto& produced = run.history.produced[{7, kRetP0}];
  const RecordRange later{7, kRetP0, 2, 2};
  const RecordRange earlier{7, kRetP0, 0, 2};
  produced = 4;
  run.history.acks.push_back({later, run.append(kRetP0, 7, 2, 2).base_offset, 0});
  run.history.acks.push_back({earlier, run.append(kRetP0, 7, 0, 2).base_offset, 0});
  // A consumer processes every third batch of partition 0, some twice.
  std::uint32_t generation = 0;
  for (const RecordBatch& b : run.log[kRetP0]) {
    if (b.is_control() || b.base_offset % 3 != 0) continue;
    ProcessedRecord p;
    p.partition = kRetP0;
    p.offset = b.base_offset;
    p.writer = b.writer;
    p.record = b.first_record;
    p.count = static_cast<std::uint32_t>(b.record_count);
    p.generation = static_cast<std::int32_t>(generation);
    run.consumption.processed.push_back(p);
    if (random() % 4 == 0) {
      p.generation = static_cast<std::int32_t>(++generation);
      run.consumption.processed.push_back(p);
    }
  }
  return run;
}

// Replicas delete overlapping prefixes of the log, in segments of `segment` batches, up to `upto` batches.
template <typename History>
void delete_like_replicas(History& h, const RetentionRun& run, TopicPartition tp, std::size_t upto, std::size_t segment) {
  const auto& batches = run.log.at(tp);
  for (std::size_t replica = 0; replica < 3; ++replica) {
    const std::size_t end = std::min(batches.size(), upto > replica * 3 ? upto - replica * 3 : 0);
    for (std::size_t from = 0; from < end; from += segment) {
      const std::size_t to = std::min(end, from + segment);
      h.segments_deleted(tp, std::vector<RecordBatch>(batches.begin() + static_cast<std::ptrdiff_t>(from),
                                                      batches.begin() + static_cast<std::ptrdiff_t>(to)));
    }
  }
}

// The final logs: below `log_start` what retention deleted, the rest committed.
template <typename History>
FinalLogs retention_final_logs(const RetentionRun& run, const History& h, const std::map<TopicPartition, Offset>& log_start) {
  FinalLogs logs;
  for (const auto& [tp, batches] : run.log) {
    const Offset start = log_start.at(tp);
    auto expired = h.expired_below(tp, start);
    if (!expired.empty()) logs.expired[tp] = std::move(expired);
    for (const RecordBatch& b : batches) {
      if (b.base_offset >= start && !b.is_control()) logs.committed[tp].push_back(b);
    }
  }
  return logs;
}

// The same examples in the same order, compared by what `key` takes of each.
template <typename T, typename Key>
void same_examples(const std::vector<T>& a, const std::vector<T>& b, Key key) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(key(a[i]) == key(b[i]));
}

void same_delivery(const DeliveryReport& a, const DeliveryReport& b) {
  CHECK(std::tuple(a.produced, a.acknowledged, a.failed, a.committed, a.expired) ==
        std::tuple(b.produced, b.acknowledged, b.failed, b.committed, b.expired));
  CHECK(std::tuple(a.lost, a.duplicated, a.reordered, a.failed_but_written, a.verdict()) ==
        std::tuple(b.lost, b.duplicated, b.reordered, b.failed_but_written, b.verdict()));
  same_examples(a.lost_examples, b.lost_examples, [](const auto& e) { return std::pair(e.record, e.acknowledged_offset); });
  same_examples(a.duplicate_examples, b.duplicate_examples, [](const auto& e) { return std::pair(e.record, e.offsets); });
  same_examples(a.reordered_examples, b.reordered_examples, [](const auto& e) { return std::pair(e.record, e.offset); });
  same_examples(a.failed_but_written_examples, b.failed_but_written_examples, [](const auto& e) { return e.record; });
}

void same_consumption(const ConsumptionReport& a, const ConsumptionReport& b) {
  CHECK(std::tuple(a.processed, a.committed, a.unprocessed, a.expired_before_consumed) ==
        std::tuple(b.processed, b.committed, b.unprocessed, b.expired_before_consumed));
  CHECK(std::tuple(a.duplicated, a.uncommitted_seen, a.out_of_order, a.lag) ==
        std::tuple(b.duplicated, b.uncommitted_seen, b.out_of_order, b.lag));
  same_examples(a.unprocessed_examples, b.unprocessed_examples, [](const auto& e) { return std::pair(e.offset, e.record); });
}

const ConsumerGroupSpec kRetentionGroup{.group = "g", .topic = 0, .consumers = {0}, .consumer_names = {"app-0"}, .end = seconds(10)};


}  // namespace

TEST_CASE("a deleted batch is kept once, markers only moving the end", "[checker][retention]") {
  RetentionHistory h;
  const RecordBatch data = retention_batch(0, 3, 2, 40);
  const RecordBatch marker = retention_batch(3, 1, 0, 0, ControlType::Commit);
  const RecordBatch more = retention_batch(4, 3, 2, 43);
  h.segments_deleted(kRetP0, {data, marker});
  h.segments_deleted(kRetP0, {data, marker, more});  // another replica: only `more` is new
  REQUIRE(h.deleted.at(kRetP0).batches.size() == 2);
  CHECK(h.deleted.at(kRetP0).end == 7);
  const auto below5 = h.expired_below(kRetP0, 5);  // `more` ends at 7: not wholly below 5
  REQUIRE(below5.size() == 1);
  CHECK(below5[0].base_offset == 0);
  CHECK(below5[0].record_count == 3);
  CHECK(below5[0].writer == 2);
  CHECK(below5[0].first_record == 40);
  const auto below7 = h.expired_below(kRetP0, 7);
  REQUIRE(below7.size() == 2);
  CHECK(below7[1].base_offset == 4);
  CHECK(below7[1].first_record == 43);
  CHECK(h.expired_below(kRetP1, 7).empty());
}

TEST_CASE("the checkers give the same answers from the compact retention history as from whole batches",
          "[checker][retention]") {
  for (const std::uint64_t seed : {1, 2, 3, 4, 5, 6, 7, 8}) {
    CAPTURE(seed);
    const RetentionRun run = anomalous_run(seed);
    FullRetention full;
    RetentionHistory compact;
    const std::size_t upto = 20 + seed * 5;
    for (const TopicPartition tp : {kRetP0, kRetP1}) {
      delete_like_replicas(full, run, tp, upto, 1 + seed % 4);
      delete_like_replicas(compact, run, tp, upto, 1 + seed % 4);
    }
    // The final leader's log start: at a deleted batch's end, inside one, and before any deletion.
    const auto& p0 = run.log.at(kRetP0);
    const auto& p1 = run.log.at(kRetP1);
    const std::map<TopicPartition, Offset> log_start{{kRetP0, p0[upto / 2].base_offset + static_cast<Offset>(seed % 2)},
                                                     {kRetP1, p1[upto].base_offset}};
    const FinalLogs full_logs = retention_final_logs(run, full, log_start);
    const FinalLogs compact_logs = retention_final_logs(run, compact, log_start);
    const DeliveryReport want = check_delivery(run.history, full_logs, 5);
    const DeliveryReport got = check_delivery(run.history, compact_logs, 5);
    // The case has every anomaly, or it proves nothing.
    CHECK(want.expired > 0);
    CHECK(want.lost > 0);
    CHECK(want.duplicated > 0);
    CHECK(want.reordered > 0);
    CHECK(want.failed_but_written > 0);
    same_delivery(want, got);
    const ConsumptionReport want_c = check_consumption(run.consumption, full_logs, kRetentionGroup);
    const ConsumptionReport got_c = check_consumption(run.consumption, compact_logs, kRetentionGroup);
    CHECK(want_c.expired_before_consumed > 0);
    CHECK(want_c.duplicated > 0);
    same_consumption(want_c, got_c);
  }
}
