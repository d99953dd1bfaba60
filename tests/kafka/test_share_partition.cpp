// KIP-932's share-partition (models/coordinator/share_partition.hpp), against
// SharePartition.java's rules: acquisition with locks and delivery counts,
// ACCEPT/RELEASE/REJECT, lock expiry, the delivery count limit, the SPSO,
// the in-flight limit, the persisted state and the invariants' checks.
#include <catch2/catch.hpp>

#include "models/coordinator/share_partition.hpp"

using namespace ksim;
using namespace ksim::models;

namespace {

// A leader's log of `records` records in batches of 10, all committed.
PartitionLog share_test_log(std::int32_t records) {
  PartitionLog log;
  for (std::int32_t i = 0; i < records; i += 10) {
    RecordBatch b;
    b.record_count = 10;
    b.bytes = 1000;
    b.first_record = static_cast<std::uint64_t>(i);
    log.append_as_leader(b, 0);
  }
  log.set_high_watermark(log.log_end_offset());
  return log;
}

struct ShareFixture {
  std::vector<ShareLeaderEvent> events;
  SharePartitionConfig config{seconds(30), 5, 100};
  SharePartition partition{"g", {0, 0}, config, nullptr, 0, [this](const ShareLeaderEvent& e) { events.push_back(e); }};
};

}  // namespace

TEST_CASE("a share-partition hands each record to one member at a time, under a lock", "[share]") {
  ShareFixture f;
  const PartitionLog log = share_test_log(50);
  const auto a = f.partition.acquire("a", log, log.high_watermark(), 20, 0);
  REQUIRE(a.size() == 20);
  CHECK(a.front().offset == 0);
  CHECK(a.front().delivery_count == 1);
  CHECK(a.back().record == 19);
  const auto b = f.partition.acquire("b", log, log.high_watermark(), 100, 0);
  CHECK(b.size() == 30);  // the rest: none of a's
  CHECK(b.front().offset == 20);
  CHECK(f.partition.end_offset() == 50);
  CHECK(f.partition.acknowledge("b", 0, AcknowledgeType::Accept, 1) == Error::InvalidRecordState);  // not b's
  CHECK(f.partition.acknowledge("a", 0, AcknowledgeType::Accept, 1) == Error::None);
  CHECK(f.partition.start_offset() == 1);  // the SPSO moves past what is done at its front
  CHECK_FALSE(f.partition.check(1));
}

TEST_CASE("an expired lock makes the record available again, delivered with a higher count", "[share]") {
  ShareFixture f;
  const PartitionLog log = share_test_log(10);
  REQUIRE(f.partition.acquire("a", log, log.high_watermark(), 10, 0).size() == 10);
  CHECK(f.partition.acquire("b", log, log.high_watermark(), 10, seconds(29)).empty());
  const auto again = f.partition.acquire("b", log, log.high_watermark(), 10, seconds(30));  // the locks ended
  REQUIRE(again.size() == 10);
  CHECK(again.front().delivery_count == 2);
  CHECK(f.events.size() == 10);
  CHECK(f.events.front().outcome == ShareOutcome::Released);
  CHECK(f.events.front().why == ShareRelease::LockExpired);
  CHECK(f.events.front().member == "a");
  // a's late acknowledgement fails: the record is b's now.
  CHECK(f.partition.acknowledge("a", 3, AcknowledgeType::Accept, seconds(31)) == Error::InvalidRecordState);
}

TEST_CASE("RELEASE makes a record available until the delivery count limit archives it, and REJECT archives it",
          "[share]") {
  ShareFixture f;
  const PartitionLog log = share_test_log(10);
  for (int delivery = 1; delivery <= 5; ++delivery) {
    const auto got = f.partition.acquire("a", log, log.high_watermark(), 1, delivery);
    REQUIRE(got.size() == 1);
    CHECK(got.front().offset == 0);
    CHECK(got.front().delivery_count == delivery);
    CHECK(f.partition.acknowledge("a", 0, AcknowledgeType::Release, delivery) == Error::None);
  }
  CHECK(f.events.back().outcome == ShareOutcome::DeliveryLimit);  // the fifth release archived it
  CHECK(f.partition.start_offset() == 1);
  const auto next = f.partition.acquire("a", log, log.high_watermark(), 1, 10);
  REQUIRE(next.size() == 1);
  CHECK(next.front().offset == 1);
  CHECK(f.partition.acknowledge("a", 1, AcknowledgeType::Reject, 10) == Error::None);
  CHECK(f.events.back().outcome == ShareOutcome::Rejected);
  CHECK(f.partition.start_offset() == 2);
}

TEST_CASE("no more than group.share.partition.max.record.locks records are in flight", "[share]") {
  ShareFixture f;
  const PartitionLog log = share_test_log(300);
  CHECK(f.partition.acquire("a", log, log.high_watermark(), 500, 0).size() == 100);
  CHECK_FALSE(f.partition.has_available(log.high_watermark()));
  CHECK(f.partition.acquire("b", log, log.high_watermark(), 500, 0).empty());
  for (Offset o = 0; o < 10; ++o) CHECK(f.partition.acknowledge("a", o, AcknowledgeType::Accept, 1) == Error::None);
  CHECK(f.partition.acquire("b", log, log.high_watermark(), 500, 1).size() == 10);  // the window moved on
}

TEST_CASE("a new leader loads the persisted state: locks are gone, delivery counts stay", "[share]") {
  ShareFixture f;
  const PartitionLog log = share_test_log(20);
  REQUIRE(f.partition.acquire("a", log, log.high_watermark(), 20, 0).size() == 20);
  CHECK(f.partition.acknowledge("a", 0, AcknowledgeType::Accept, 1) == Error::None);
  CHECK(f.partition.acknowledge("a", 2, AcknowledgeType::Reject, 1) == Error::None);
  const PersistedSharePartition persisted = f.partition.persisted();
  CHECK(persisted.start_offset == 1);
  CHECK(persisted.records.at(1).state == ShareRecordState::Available);  // it was ACQUIRED
  CHECK(persisted.records.at(2).state == ShareRecordState::Archived);
  SharePartition loaded("g", {0, 0}, f.config, &persisted, 0, nullptr);
  CHECK(loaded.start_offset() == 1);
  CHECK(loaded.end_offset() == 20);
  const auto got = loaded.acquire("b", log, log.high_watermark(), 100, 5);
  REQUIRE(got.size() == 18);  // 1 and 3 to 19: 2 is archived
  CHECK(got.front().offset == 1);
  CHECK(got.front().delivery_count == 2);
}

TEST_CASE("the share-partition's checks find a record acquired past its lock", "[share]") {
  ShareFixture f;
  const PartitionLog log = share_test_log(10);
  REQUIRE(f.partition.acquire("a", log, log.high_watermark(), 10, 0).size() == 10);
  CHECK_FALSE(f.partition.check(seconds(30)));
  const auto broken = f.partition.check(seconds(30) + 1);  // its timer should have fired
  REQUIRE(broken);
  CHECK(broken->invariant == "share_acquired_records_locked");
  CHECK(legal(ShareRecordState::Available, ShareRecordState::Acquired));
  CHECK_FALSE(legal(ShareRecordState::Available, ShareRecordState::Acknowledged));
  CHECK_FALSE(legal(ShareRecordState::Archived, ShareRecordState::Available));
  CHECK(legal(ShareRecordState::Acquired, ShareRecordState::Archived));
}
