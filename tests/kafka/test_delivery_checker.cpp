#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "models/check/delivery_checker.hpp"

using namespace ksim::models;

namespace {

constexpr TopicPartition kP0{0, 0};
constexpr TopicPartition kP1{0, 1};

// Builds a history and the committed logs, one batch at a time.
struct Run {
  DeliveryHistory history;
  FinalLogs logs;

  RecordRange produce(std::uint32_t writer, TopicPartition partition, std::int32_t count) {
    auto& produced = history.produced[{writer, partition}];
    const RecordRange range{writer, partition, produced, count};
    produced += static_cast<std::uint64_t>(count);
    return range;
  }
  // Appends the records at the end of the partition's committed log; returns their base offset.
  Offset commit(const RecordRange& range) {
    auto& log = logs.committed[range.partition];
    RecordBatch batch;
    batch.base_offset = log.empty() ? 0 : log.back().next_offset();
    batch.record_count = range.count;
    batch.bytes = 100 * static_cast<std::uint64_t>(range.count);
    batch.writer = range.writer;
    batch.first_record = range.first;
    log.push_back(batch);
    return batch.base_offset;
  }
  void ack(const RecordRange& range, Offset base_offset) { history.acks.push_back({range, base_offset, 0}); }
  void fail(const RecordRange& range, Error error) { history.failures.push_back({range, error, 0}); }
  Offset commit_and_ack(const RecordRange& range) {
    const Offset base = commit(range);
    ack(range, base);
    return base;
  }
  DeliveryReport check(std::size_t max_examples = 20) const { return check_delivery(history, logs, max_examples); }
};

}  // namespace

TEST_CASE("a record reference prints as producer, topic-partition and record number", "[checker]") {
  CHECK(to_string(RecordRef{0, {0, 3}, 1234}) == "p0/t0-3/#1234");
  CHECK(to_string(RecordRef{7, {2, 11}, 0}) == "p7/t2-11/#0");
}

TEST_CASE("a clean history is exactly-once", "[checker]") {
  Run run;
  for (int i = 0; i < 3; ++i) {
    run.commit_and_ack(run.produce(0, kP0, 10));
    run.commit_and_ack(run.produce(1, kP0, 10));  // writers interleave in a partition
    run.commit_and_ack(run.produce(0, kP1, 10));
  }
  const auto report = run.check();
  CHECK(report.produced == 90);
  CHECK(report.acknowledged == 90);
  CHECK(report.committed == 90);
  CHECK(report.failed == 0);
  CHECK(report.pending == 0);
  CHECK(report.lost == 0);
  CHECK(report.unavailable == 0);
  CHECK(report.duplicated == 0);
  CHECK(report.reordered == 0);
  CHECK(report.failed_but_written == 0);
  CHECK(report.lost_examples.empty());
  CHECK(report.duplicate_examples.empty());
  CHECK(report.reordered_examples.empty());
  CHECK(report.exactly_once());
  CHECK(report.verdict() == "exactly-once");
}

TEST_CASE("a record acknowledged twice counts once", "[checker]") {
  Run run;
  const auto batch = run.produce(0, kP0, 10);
  const Offset base = run.commit_and_ack(batch);
  run.ack(batch, base);  // a retry answered with DUPLICATE_SEQUENCE_NUMBER
  const auto report = run.check();
  CHECK(report.acknowledged == 10);
  CHECK(report.pending == 0);
  CHECK(report.verdict() == "exactly-once");
}

TEST_CASE("a lost record acknowledged twice is lost once", "[checker]") {
  Run run;
  const auto batch = run.produce(0, kP0, 10);
  run.ack(batch, 0);
  run.ack(batch, 0);
  const auto report = run.check();
  CHECK(report.acknowledged == 10);
  CHECK(report.lost == 10);
  CHECK(report.lost_examples.size() == 10);
}

TEST_CASE("an acknowledged record missing from the log is lost", "[checker]") {
  Run run;
  run.commit_and_ack(run.produce(0, kP0, 10));
  run.ack(run.produce(0, kP0, 10), 10);  // acknowledged at offset 10, then truncated away
  run.commit_and_ack(run.produce(0, kP0, 10));
  const auto report = run.check();
  CHECK(report.lost == 10);
  REQUIRE(report.lost_examples.size() == 10);
  CHECK(report.lost_examples.front().record == RecordRef{0, kP0, 10});
  CHECK(report.lost_examples.front().acknowledged_offset == 10);
  CHECK(report.lost_examples.back().record == RecordRef{0, kP0, 19});
  CHECK(report.lost_examples.back().acknowledged_offset == 19);
  CHECK_FALSE(report.at_least_once());
  CHECK(report.at_most_once());
  CHECK(report.verdict() == "at-most-once");
}

// acks=1 acknowledges before the followers have a batch: at the end of a
// run it may still be on the live leader above the high watermark. Neither
// committed nor lost: the run stopped first.
TEST_CASE("an acknowledged record on the live leader above its high watermark is unreplicated, not lost", "[checker]") {
  Run run;
  run.commit_and_ack(run.produce(0, kP0, 10));
  const auto tail = run.produce(0, kP0, 5);
  run.ack(tail, 10);
  RecordBatch above_hw;
  above_hw.base_offset = 10;
  above_hw.record_count = 5;
  above_hw.writer = 0;
  above_hw.first_record = tail.first;
  run.logs.uncommitted[kP0].push_back(above_hw);
  run.ack(run.produce(0, kP0, 3), 15);  // acknowledged, then truncated away: lost
  const auto report = run.check();
  CHECK(report.unreplicated == 5);
  CHECK(report.lost == 3);
  CHECK(report.committed == 10);
  run.history.acks.pop_back();  // without the lost ones the guarantee holds
  run.history.produced[{0, kP0}] -= 3;
  const auto held = run.check();
  CHECK(held.unreplicated == 5);
  CHECK(held.lost == 0);
  CHECK(held.exactly_once());
}

TEST_CASE("a batch committed twice is duplicated, with both offsets", "[checker]") {
  Run run;
  const auto batch = run.produce(0, kP0, 10);
  run.commit_and_ack(batch);
  run.commit(batch);  // a retry without idempotence, written again at offset 10
  const auto report = run.check();
  CHECK(report.committed == 20);
  CHECK(report.duplicated == 10);
  CHECK(report.reordered == 0);  // the second copy is not a reordering
  REQUIRE(report.duplicate_examples.size() == 10);
  CHECK(report.duplicate_examples[0].record == RecordRef{0, kP0, 0});
  CHECK(report.duplicate_examples[0].offsets == std::vector<Offset>{0, 10});
  CHECK(report.duplicate_examples[3].record == RecordRef{0, kP0, 3});
  CHECK(report.duplicate_examples[3].offsets == std::vector<Offset>{3, 13});
  CHECK(report.at_least_once());
  CHECK_FALSE(report.at_most_once());
  CHECK(report.verdict() == "at-least-once");
}

TEST_CASE("every further copy of a duplicated record counts and joins its example", "[checker]") {
  Run run;
  const auto batch = run.produce(0, kP0, 2);
  run.commit_and_ack(batch);
  run.commit(batch);
  run.commit(batch);
  const auto report = run.check();
  CHECK(report.duplicated == 4);
  REQUIRE(report.duplicate_examples.size() == 2);
  CHECK(report.duplicate_examples[1].offsets == std::vector<Offset>{1, 3, 5});
}

TEST_CASE("a retried batch committed after a later batch is reordered", "[checker]") {
  Run run;
  const auto first = run.produce(0, kP0, 5);   // records 0-4
  const auto second = run.produce(0, kP0, 5);  // records 5-9
  run.commit_and_ack(second);                  // offsets 0-4
  run.commit_and_ack(first);                   // offsets 5-9: the retry of the first batch
  const auto report = run.check();
  CHECK(report.reordered == 5);
  REQUIRE(report.reordered_examples.size() == 5);
  CHECK(report.reordered_examples[0].record == RecordRef{0, kP0, 0});
  CHECK(report.reordered_examples[0].offset == 5);
  CHECK(report.reordered_examples[0].committed_after == 9);
  CHECK(report.duplicated == 0);
  CHECK(report.lost == 0);
  CHECK_FALSE(report.exactly_once());
  CHECK(report.verdict() == "at-least-once");
}

TEST_CASE("only acknowledged records of the same producer and partition can be reordered", "[checker]") {
  Run run;
  const auto failed = run.produce(0, kP0, 5);
  const auto later = run.produce(0, kP0, 5);
  const auto other_writer = run.produce(1, kP0, 5);
  run.commit_and_ack(later);
  run.commit(failed);  // written after the later batch, but never acknowledged
  run.fail(failed, Error::DeliveryTimeout);
  run.commit_and_ack(other_writer);  // record numbers 0-4 of another producer
  const auto report = run.check();
  CHECK(report.reordered == 0);
  CHECK(report.failed_but_written == 5);
}

TEST_CASE("records of a failed batch found in the log are failed but written", "[checker]") {
  Run run;
  run.commit_and_ack(run.produce(0, kP0, 10));
  const auto written = run.produce(0, kP0, 10);
  run.commit(written);
  run.fail(written, Error::RequestTimedOut);
  run.fail(run.produce(0, kP0, 10), Error::NotLeaderOrFollower);  // failed and not written
  const auto report = run.check();
  CHECK(report.failed == 20);
  CHECK(report.failed_but_written == 10);
  REQUIRE(report.failed_but_written_examples.size() == 10);
  CHECK(report.failed_but_written_examples[0].record == RecordRef{0, kP0, 10});
  CHECK(report.failed_but_written_examples[0].offset == 10);
  CHECK(report.failed_but_written_examples[0].error == Error::RequestTimedOut);
  CHECK(report.lost == 0);
  CHECK(report.verdict() == "exactly-once");  // a failed write breaks no guarantee
}

TEST_CASE("a failed batch that was finally acknowledged counts as acknowledged", "[checker]") {
  Run run;
  const auto batch = run.produce(0, kP0, 10);
  run.fail(batch, Error::NetworkException);
  run.commit_and_ack(batch);
  const auto report = run.check();
  CHECK(report.acknowledged == 10);
  CHECK(report.failed == 0);
  CHECK(report.failed_but_written == 0);
}

TEST_CASE("records neither acknowledged nor failed are pending", "[checker]") {
  Run run;
  run.commit_and_ack(run.produce(0, kP0, 10));
  run.produce(0, kP0, 10);            // still in the accumulator
  run.commit(run.produce(0, kP0, 10));  // written, the answer still in flight
  const auto report = run.check();
  CHECK(report.produced == 30);
  CHECK(report.acknowledged == 10);
  CHECK(report.pending == 20);
  CHECK(report.failed == 0);
  CHECK(report.lost == 0);
  CHECK(report.committed == 20);
}

TEST_CASE("acknowledged records of an offline partition are unavailable, not lost", "[checker]") {
  Run run;
  run.commit_and_ack(run.produce(0, kP0, 10));
  run.ack(run.produce(0, kP1, 10), 0);
  run.logs.offline.push_back(kP1);
  const auto report = run.check();
  CHECK(report.unavailable == 10);
  CHECK(report.lost == 0);
  CHECK(report.lost_examples.empty());
  CHECK_FALSE(report.at_least_once());
  CHECK(report.verdict() == "at-most-once");
}

TEST_CASE("an acks=0 acknowledgement has no offset, and its lost records say so", "[checker]") {
  Run run;
  run.ack(run.produce(0, kP0, 4), -1);  // never written
  const auto written = run.produce(0, kP0, 4);
  run.commit(written);
  run.ack(written, -1);
  const auto report = run.check();
  CHECK(report.acknowledged == 8);
  CHECK(report.lost == 4);
  REQUIRE(report.lost_examples.size() == 4);
  CHECK(report.lost_examples[0].acknowledged_offset == -1);
  CHECK(report.lost_examples[3].acknowledged_offset == -1);
  CHECK(report.lost_examples[3].record == RecordRef{0, kP0, 3});
}

TEST_CASE("examples are capped, in partition then offset order, but counts are complete", "[checker]") {
  Run run;
  for (int i = 0; i < 5; ++i) run.ack(run.produce(0, kP1, 10), 10 * i);  // acknowledged first, in partition 1
  for (int i = 0; i < 5; ++i) run.ack(run.produce(0, kP0, 10), 10 * (4 - i));  // acknowledged out of offset order
  for (int i = 0; i < 10; ++i) {
    const auto batch = run.produce(1, kP0, 10);
    run.commit_and_ack(batch);
    run.commit(batch);
  }
  const auto report = run.check(5);
  CHECK(report.lost == 100);
  CHECK(report.duplicated == 100);
  REQUIRE(report.lost_examples.size() == 5);
  REQUIRE(report.duplicate_examples.size() == 5);
  CHECK(report.lost_examples[0].record == RecordRef{0, kP0, 40});  // the batch acknowledged at offset 0
  CHECK(report.lost_examples[0].acknowledged_offset == 0);
  CHECK(report.lost_examples[4].record == RecordRef{0, kP0, 44});
  CHECK(report.duplicate_examples[4].record == RecordRef{1, kP0, 4});
}

TEST_CASE("a history of a million records is checked", "[checker]") {
  Run run;
  constexpr int kBatches = 1000;
  constexpr std::int32_t kBatchRecords = 1000;
  for (int i = 0; i < kBatches; ++i) {
    const TopicPartition partition{0, i % 4};
    const auto batch = run.produce(static_cast<std::uint32_t>(i % 3), partition, kBatchRecords);
    if (i == 500) {
      run.ack(batch, 0);  // lost
    } else {
      run.commit_and_ack(batch);
    }
    if (i == 700) run.commit(batch);  // duplicated
  }
  const auto report = run.check();
  CHECK(report.produced == 1'000'000);
  CHECK(report.acknowledged == 1'000'000);
  CHECK(report.committed == 1'000'000);  // one batch missing, one twice
  CHECK(report.lost == 1000);
  CHECK(report.duplicated == 1000);
  CHECK(report.reordered == 0);
  CHECK(report.lost_examples.size() == 20);
  CHECK(report.verdict() == "none");
}
