// The consumption checker's attribution of unprocessed records: a reset to
// latest with nothing committed is Kafka's behaviour; with an offset committed
// before it, a committed offset went missing; without a reset, records not reached.
#include <catch2/catch.hpp>

#include "models/check/consumption_checker.hpp"
#include "models/check/share_group_checker.hpp"

using namespace ksim;
using namespace ksim::models;

namespace {

// Partition 0 of topic 0 holds records 0..9 of writer 0 at offsets 0..9.
FinalLogs ten_records() {
  FinalLogs logs;
  RecordBatch batch;
  batch.base_offset = 0;
  batch.record_count = 10;
  logs.committed[{0, 0}].push_back(batch);
  return logs;
}

ConsumerGroupSpec group_of_one() {
  ConsumerGroupSpec g;
  g.group = "g";
  g.consumers = {0};
  g.consumer_names = {"app-0"};
  g.end = seconds(10);
  return g;
}

ProcessedRecord processed(Offset offset, std::uint32_t count) {
  ProcessedRecord p;
  p.partition = {0, 0};
  p.offset = offset;
  p.record = static_cast<std::uint64_t>(offset);
  p.count = count;
  return p;
}

}  // namespace

TEST_CASE("records skipped by auto.offset.reset=latest before any commit are Kafka's behaviour", "[checker]") {
  ConsumptionHistory history;
  history.position_resets.push_back({0, {0, 0}, 6, true, PositionResetCause::NoCommittedOffset, 1, seconds(2)});
  history.processed.push_back(processed(6, 4));
  const ConsumptionReport r = check_consumption(history, ten_records(), group_of_one());
  CHECK(r.unprocessed == 6);
  REQUIRE(r.unprocessed_causes.size() == 1);
  CHECK(r.unprocessed_causes[0].count == 6);
  CHECK(r.unprocessed_causes[0].kafka_behaviour);
  CHECK(r.unprocessed_causes[0].cause ==
        "skipped by auto.offset.reset=latest: no committed offset for partition 0 when app-0 took it at generation 1, "
        "at 2.000s; nothing had been committed for it yet (Kafka's auto.offset.reset=latest)");
  CHECK(r.unprocessed_examples.front().detail == r.unprocessed_causes[0].cause);
}

TEST_CASE("a reset to latest after an offset was committed names a committed offset that went missing", "[checker]") {
  ConsumptionHistory history;
  history.processed.push_back(processed(0, 2));
  history.commits.push_back({0, {0, 0}, 2, 1, seconds(1), Error::None});
  history.position_resets.push_back({0, {0, 0}, 8, true, PositionResetCause::NoCommittedOffset, 2, seconds(3)});
  history.processed.push_back(processed(8, 2));
  const ConsumptionReport r = check_consumption(history, ten_records(), group_of_one());
  CHECK(r.unprocessed == 6);  // offsets 2..7
  REQUIRE(r.unprocessed_causes.size() == 1);
  CHECK_FALSE(r.unprocessed_causes[0].kafka_behaviour);
  CHECK_THAT(r.unprocessed_causes[0].cause,
             Catch::Contains("offset 2 had been committed for it at 1.000s: a committed offset went missing"));
}

TEST_CASE("unprocessed records without a reset are either not reached or skipped for no reason seen", "[checker]") {
  ConsumptionHistory history;
  history.processed.push_back(processed(0, 3));
  history.processed.push_back(processed(5, 2));
  const ConsumptionReport r = check_consumption(history, ten_records(), group_of_one());
  CHECK(r.unprocessed == 5);
  REQUIRE(r.unprocessed_causes.size() == 2);
  CHECK(r.unprocessed_causes[0].cause == "not read: no consumer of the group reached it by the end");  // 7, 8, 9
  CHECK(r.unprocessed_causes[0].count == 3);
  CHECK(r.unprocessed_causes[1].cause == "not read, though later offsets were, and no auto.offset.reset skipped it");
  CHECK(r.unprocessed_causes[1].count == 2);  // 3, 4
  CHECK_FALSE(r.unprocessed_causes[1].kafka_behaviour);
}

// Found by ksim explore of jbod-rebalance: a log dir filled, its partitions
// (replication factor 1) went offline for good, and every record the group
// had read of them counted as "uncommitted seen", a verdict of none.
TEST_CASE("records read of a partition offline at the end are unavailable and not uncommitted", "[checker]") {
  FinalLogs logs = ten_records();
  logs.offline.push_back({0, 1});
  ConsumptionHistory history;
  history.processed.push_back(processed(0, 10));
  ProcessedRecord offline = processed(0, 5);
  offline.partition = {0, 1};
  history.processed.push_back(offline);
  ConsumptionReport r = check_consumption(history, logs, group_of_one());
  CHECK(r.uncommitted_seen == 0);
  CHECK(r.unavailable_seen == 5);
  CHECK(r.offline_partitions == 1);
  CHECK(r.processed == 15);
  CHECK(r.committed == 10);  // the online partition's: the offline one's cannot be read
  CHECK(r.at_most_once());
  CHECK_FALSE(r.at_least_once());  // what the group missed of partition 1 is unknown
  CHECK_THAT(r.incomplete(), Catch::Matchers::StartsWith("partitions of the topic offline at the end: 1 ("));

  SECTION("a record read twice there is still a duplicate") {
    ProcessedRecord again = processed(3, 1);
    again.partition = {0, 1};
    again.generation = 2;
    history.processed.push_back(again);
    r = check_consumption(history, logs, group_of_one());
    CHECK(r.duplicated == 1);
    CHECK(r.unavailable_seen == 6);
    CHECK_FALSE(r.at_most_once());
    CHECK(r.incomplete().empty() == false);
  }
  SECTION("another topic's offline partition is not the group's") {
    logs.offline = {{1, 0}};
    history.processed.pop_back();
    r = check_consumption(history, logs, group_of_one());
    CHECK(r.offline_partitions == 0);
    CHECK(r.at_least_once());
    CHECK(r.incomplete().empty());
  }
}

TEST_CASE("a share group whose topic has a partition offline at the end has not delivered every record until done",
          "[checker][share]") {
  FinalLogs logs;
  RecordBatch one;
  one.record_count = 1;
  logs.committed[{0, 0}].push_back(one);
  ShareHistory history;
  history.consumers.push_back({"worker-0", "workers", 0});
  history.client_events.push_back({0, {0, 0}, 0, 0, 0, 1, false, false, seconds(1)});  // delivered
  history.client_events.push_back({0, {0, 0}, 0, 0, 0, 1, true, false, seconds(2)});   // processed
  history.leader_events.push_back({"workers", {0, 0}, 0, ShareOutcome::Accepted, ShareRelease::LockExpired, "m", 1, seconds(2)});
  const ShareGroupSpec spec{"workers", 0, 5};
  CHECK(check_share_group(spec, history, logs).delivered_until_done());  // all of the readable log done
  logs.offline.push_back({0, 1});
  const ShareGroupReport r = check_share_group(spec, history, logs);
  CHECK(r.offline_partitions == 1);
  CHECK(r.unprocessed == 0);
  CHECK_FALSE(r.delivered_until_done());  // partition 1's records cannot be checked
}

// A new share-partition leader loads the persisted state, in which what was
// acquired is AVAILABLE (SharePartition.maybeInitialize): the redelivery is the
// leader change's, not the last lock expiry's; one expiring after it is the expiry's.
TEST_CASE("a share group's redelivery after a new leader loaded the share-partition is counted as the leader change's",
          "[checker][share]") {
  FinalLogs logs;
  RecordBatch one;
  one.record_count = 1;
  logs.committed[{0, 0}].push_back(one);
  ShareHistory history;
  history.consumers.push_back({"worker-0", "workers", 0});
  const auto delivered = [&](int count, SimTime at) {
    history.client_events.push_back({0, {0, 0}, 0, 0, 0, static_cast<std::int16_t>(count), false, false, at});
    history.client_events.push_back({0, {0, 0}, 0, 0, 0, static_cast<std::int16_t>(count), true, false, at + 1});
  };
  const auto expired = [&](int count, SimTime at) {
    history.leader_events.push_back({"workers", {0, 0}, 0, ShareOutcome::Released, ShareRelease::LockExpired, "m",
                                     static_cast<std::int16_t>(count), at});
  };
  const ShareGroupSpec spec{"workers", 0, 5};
  delivered(1, seconds(1));
  expired(1, seconds(2));
  delivered(2, seconds(3));            // after the lock expiry
  history.loads[{"workers", {0, 0}}] = {seconds(4)};
  delivered(3, seconds(5));            // acquired when the new leader loaded it
  ShareGroupReport r = check_share_group(spec, history, logs);
  CHECK(r.redeliveries == 2);
  CHECK(r.redelivered_by.lock_expiry == 1);
  CHECK(r.redelivered_by.leader_change == 1);
  CHECK(r.redelivered_by.total() == r.redeliveries);
  CHECK(r.duplicates == 2);
  CHECK(r.duplicates_by.leader_change == 1);
  CHECK(r.duplicates_by.total() == r.duplicates);

  SECTION("a lock expiring after the load explains the next redelivery") {
    expired(3, seconds(6));
    delivered(4, seconds(7));
    r = check_share_group(spec, history, logs);
    CHECK(r.redelivered_by.lock_expiry == 2);
    CHECK(r.redelivered_by.leader_change == 1);
  }
  SECTION("a load while the record was AVAILABLE after a lock expiry took nothing back") {
    history.loads[{"workers", {0, 0}}] = {seconds(2) + 500};
    r = check_share_group(spec, history, logs);
    CHECK(r.redelivered_by.leader_change == 0);
    CHECK(r.redelivered_by.lock_expiry == 2);  // the third delivery: under the last release before it, as ever
  }
}
