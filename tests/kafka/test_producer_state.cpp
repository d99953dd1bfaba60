#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <vector>

#include "models/log/partition_log.hpp"
#include "models/log/producer_state.hpp"

using namespace ksim::models;
using Verdict = ProducerStateTable::Verdict;

namespace {

constexpr std::int32_t kMaxSequence = std::numeric_limits<std::int32_t>::max();

RecordBatch idempotent(ProducerId id, ProducerEpoch epoch, std::int32_t base_sequence,
                       std::int32_t records = 3, Offset base_offset = 0) {
  RecordBatch batch;
  batch.producer_id = id;
  batch.producer_epoch = epoch;
  batch.base_sequence = base_sequence;
  batch.record_count = records;
  batch.base_offset = base_offset;
  batch.bytes = 100;
  return batch;
}

Verdict verdict_of(const ProducerStateTable& table, const RecordBatch& batch) {
  return table.check(batch).verdict;
}

// Producer 7, epoch 0: six batches of 3 records (sequences 0..17) at offsets 100, 110, ..., 150.
ProducerStateTable table_with_six_batches() {
  ProducerStateTable table;
  for (int i = 0; i < 6; ++i) table.record(idempotent(7, 0, 3 * i, 3, 100 + 10 * i));
  return table;
}

}  // namespace

TEST_CASE("batches without a producer id are always appended and never remembered", "[idempotence]") {
  ProducerStateTable table;
  RecordBatch plain;
  plain.record_count = 4;
  CHECK(verdict_of(table, plain) == Verdict::Append);
  table.record(plain);
  CHECK(table.producers() == 0);
  CHECK(verdict_of(table, plain) == Verdict::Append);
}

// ProducerAppendInfo.checkSequence: with no epoch known (a new leader without
// the producer's batches), any sequence is taken.
TEST_CASE("an unknown producer may start at any sequence", "[idempotence]") {
  ProducerStateTable table;
  CHECK(verdict_of(table, idempotent(7, 0, 0)) == Verdict::Append);
  CHECK(verdict_of(table, idempotent(7, 0, 7)) == Verdict::Append);
  CHECK(table.producers() == 0);  // check() does not remember anything
  table.record(idempotent(7, 0, 7));
  CHECK(verdict_of(table, idempotent(7, 0, 11)) == Verdict::OutOfOrder);  // known now: in sequence only
  CHECK(verdict_of(table, idempotent(7, 0, 10)) == Verdict::Append);
}

TEST_CASE("the batch after the last one is appended", "[idempotence]") {
  ProducerStateTable table = table_with_six_batches();  // last sequence 17
  CHECK(table.producers() == 1);
  CHECK(verdict_of(table, idempotent(7, 0, 18)) == Verdict::Append);
  CHECK(verdict_of(table, idempotent(7, 0, 18, 1)) == Verdict::Append);
}

TEST_CASE("a retry of any of the last five batches is a duplicate at its offset", "[idempotence]") {
  ProducerStateTable table = table_with_six_batches();
  for (int i = 1; i < 6; ++i) {
    INFO("batch " << i);
    auto check = table.check(idempotent(7, 0, 3 * i, 3));
    CHECK(check.verdict == Verdict::Duplicate);
    CHECK(check.duplicate_base_offset == 100 + 10 * i);
  }
}

TEST_CASE("a retry of the sixth-newest batch is forgotten and out of order", "[idempotence]") {
  ProducerStateTable table = table_with_six_batches();
  auto check = table.check(idempotent(7, 0, 0, 3));
  CHECK(check.verdict == Verdict::OutOfOrder);
  CHECK(check.duplicate_base_offset == -1);
}

TEST_CASE("a batch overlapping a remembered one without the same range is out of order", "[idempotence]") {
  ProducerStateTable table = table_with_six_batches();
  CHECK(verdict_of(table, idempotent(7, 0, 15, 2)) == Verdict::OutOfOrder);  // remembered: 15..17
  CHECK(verdict_of(table, idempotent(7, 0, 16, 2)) == Verdict::OutOfOrder);
}

TEST_CASE("a gap in sequence numbers is out of order", "[idempotence]") {
  ProducerStateTable table = table_with_six_batches();
  CHECK(verdict_of(table, idempotent(7, 0, 19)) == Verdict::OutOfOrder);
  CHECK(verdict_of(table, idempotent(7, 0, 30)) == Verdict::OutOfOrder);
}

TEST_CASE("a new producer epoch must start again at sequence 0", "[idempotence]") {
  ProducerStateTable table = table_with_six_batches();
  CHECK(verdict_of(table, idempotent(7, 1, 0)) == Verdict::Append);
  CHECK(verdict_of(table, idempotent(7, 1, 18)) == Verdict::OutOfOrder);
  // The same sequence range as a remembered batch, but of a new epoch: not a duplicate.
  CHECK(verdict_of(table, idempotent(7, 1, 0, 3)) == Verdict::Append);
}

TEST_CASE("after a new epoch the older epoch is fenced, even for its own retries", "[idempotence]") {
  ProducerStateTable table = table_with_six_batches();
  table.record(idempotent(7, 1, 0, 3, 200));
  CHECK(verdict_of(table, idempotent(7, 0, 18)) == Verdict::Fenced);
  CHECK(verdict_of(table, idempotent(7, 0, 15)) == Verdict::Fenced);  // was a duplicate in epoch 0
  CHECK(verdict_of(table, idempotent(7, 1, 3)) == Verdict::Append);
  auto retry = table.check(idempotent(7, 1, 0, 3));
  CHECK(retry.verdict == Verdict::Duplicate);
  CHECK(retry.duplicate_base_offset == 200);
}

TEST_CASE("a new producer epoch forgets the batches of the older one", "[idempotence]") {
  ProducerStateTable table;
  table.record(idempotent(7, 0, 0, 3, 10));
  table.record(idempotent(7, 0, 3, 3, 13));
  table.record(idempotent(7, 1, 0, 3, 20));
  // Sequences 3..5 were written in epoch 0, but in epoch 1 they are new.
  CHECK(table.check(idempotent(7, 1, 3, 3)).verdict == Verdict::Append);
}

TEST_CASE("producers are tracked independently", "[idempotence]") {
  ProducerStateTable table = table_with_six_batches();
  table.record(idempotent(8, 2, 0, 5, 300));
  CHECK(table.producers() == 2);
  CHECK(verdict_of(table, idempotent(8, 2, 5)) == Verdict::Append);
  CHECK(verdict_of(table, idempotent(8, 2, 18)) == Verdict::OutOfOrder);
  CHECK(verdict_of(table, idempotent(7, 0, 18)) == Verdict::Append);
  CHECK(verdict_of(table, idempotent(8, 1, 0)) == Verdict::Fenced);
}

TEST_CASE("sequence numbers wrap from INT32_MAX to 0", "[idempotence]") {
  ProducerStateTable table;
  table.record(idempotent(7, 0, kMaxSequence - 1, 2, 40));  // ends exactly at INT32_MAX
  CHECK(verdict_of(table, idempotent(7, 0, 0)) == Verdict::Append);
  CHECK(verdict_of(table, idempotent(7, 0, kMaxSequence)) == Verdict::OutOfOrder);
  CHECK(table.check(idempotent(7, 0, kMaxSequence - 1, 2)).verdict == Verdict::Duplicate);
}

TEST_CASE("a batch whose sequences cross INT32_MAX ends after the wrap", "[idempotence]") {
  ProducerStateTable table;
  table.record(idempotent(7, 0, kMaxSequence - 1, 4, 40));  // MAX-1, MAX, 0, 1
  CHECK(verdict_of(table, idempotent(7, 0, 2)) == Verdict::Append);
  CHECK(verdict_of(table, idempotent(7, 0, 0)) == Verdict::OutOfOrder);
  auto retry = table.check(idempotent(7, 0, kMaxSequence - 1, 4));
  CHECK(retry.verdict == Verdict::Duplicate);
  CHECK(retry.duplicate_base_offset == 40);
}

TEST_CASE("a table rebuilt from the log gives the same answers", "[idempotence]") {
  PartitionLog log;
  ProducerStateTable live;
  auto append = [&](RecordBatch batch) {
    REQUIRE(verdict_of(live, batch) == Verdict::Append);
    live.record(log.append_as_leader(batch, 0));
  };
  for (int i = 0; i < 7; ++i) {
    append(idempotent(7, 0, 2 * i, 2));
    RecordBatch plain;
    plain.record_count = 1;
    append(plain);
  }
  append(idempotent(8, 3, 0, 4));
  append(idempotent(8, 4, 0, 1));

  ProducerStateTable rebuilt;
  rebuilt.rebuild(log);
  CHECK(rebuilt.producers() == live.producers());
  const std::vector<RecordBatch> probes = {
      idempotent(7, 0, 0, 2),  idempotent(7, 0, 2, 2),  idempotent(7, 0, 4, 2),
      idempotent(7, 0, 12, 2), idempotent(7, 0, 14, 1), idempotent(7, 0, 15, 1),
      idempotent(7, 1, 0, 1),  idempotent(8, 3, 4, 1),  idempotent(8, 4, 0, 1),
      idempotent(8, 4, 1, 1),  idempotent(9, 0, 0, 1),  idempotent(9, 0, 3, 1),
  };
  for (const RecordBatch& probe : probes) {
    INFO("producer " << probe.producer_id << " epoch " << probe.producer_epoch << " seq " << probe.base_sequence);
    const auto expected = live.check(probe);
    const auto actual = rebuilt.check(probe);
    CHECK(actual.verdict == expected.verdict);
    CHECK(actual.duplicate_base_offset == expected.duplicate_base_offset);
  }
  // The answers are not all alike, so the comparison above can tell tables apart.
  CHECK(rebuilt.check(idempotent(7, 0, 12, 2)).verdict == Verdict::Duplicate);
  CHECK(rebuilt.check(idempotent(7, 0, 12, 2)).duplicate_base_offset == 18);  // batch i of producer 7 is at 3 * i
  CHECK(rebuilt.check(idempotent(7, 0, 0, 2)).verdict == Verdict::OutOfOrder);
  CHECK(rebuilt.check(idempotent(8, 3, 4, 1)).verdict == Verdict::Fenced);
}

TEST_CASE("after truncation a rebuilt table accepts a retry of a truncated batch", "[idempotence]") {
  PartitionLog log;
  ProducerStateTable table;
  for (int i = 0; i < 3; ++i) table.record(log.append_as_leader(idempotent(7, 0, 3 * i, 3), 0));
  CHECK(verdict_of(table, idempotent(7, 0, 6, 3)) == Verdict::Duplicate);

  log.truncate_to(6);  // the third batch (sequences 6..8) is gone
  table.rebuild(log);
  CHECK(verdict_of(table, idempotent(7, 0, 6, 3)) == Verdict::Append);
  CHECK(verdict_of(table, idempotent(7, 0, 3, 3)) == Verdict::Duplicate);

  log.truncate_to(0);
  table.rebuild(log);
  CHECK(table.producers() == 0);
}

// Kafka 4.0's UnifiedLog.hasOngoingTransaction(producerId, epoch): under
// transactions v2 each transaction has its own epoch, so while the marker of
// epoch 3's transaction is not yet written here, a batch of epoch 4 belongs to
// a new transaction that the leader must add to the coordinator (txn-chaos
// seed 710865 lost 1,108 acknowledged records when it was taken as ongoing).
TEST_CASE("an open transaction is ongoing only for its own producer epoch", "[transactions]") {
  ProducerStateTable table;
  RecordBatch batch = idempotent(7, 3, 0, 2, 40);
  batch.transactional = true;
  table.record(batch);
  CHECK(table.in_transaction(7, 3));
  CHECK_FALSE(table.in_transaction(7, 4));  // a new transaction, not this one
  CHECK_FALSE(table.in_transaction(8, 3));  // another producer
  RecordBatch marker = idempotent(7, 3, -1, 1, 42);
  marker.control = ControlType::Abort;
  table.record(marker);
  CHECK_FALSE(table.in_transaction(7, 3));
}
