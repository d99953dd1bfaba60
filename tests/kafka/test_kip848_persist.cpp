// KIP-848's consumer groups written to __consumer_offsets and loaded back,
// at the GroupCoordinator with a fake broker whose appends commit when the
// test says: a heartbeat that changes the group is answered once its write
// is committed (CoordinatorRuntime), one that changes nothing waits for the
// writes before it; a new coordinator replays the log and keeps the members,
// their epochs and assignments, and starts their sessions at the load
// (GroupMetadataManager.onLoaded).
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include "models/coordinator/group_coordinator.hpp"
#include "tests/support/coordinator_log.hpp"
#include "tests/support/fake_coordinator_host.hpp"

using namespace ksim;
using namespace ksim::models;

namespace {

// Appends wait until commit_all(); what was appended is kept, in order, as the partition's log.
class PersistHost : public ksim::testing::FakeCoordinatorHost<CoordinatorHost> {
 public:
  void coordinator_append(std::int32_t, std::uint64_t record_id, std::function<void(Error)> done) override {
    appended.push_back(record_id);
    pending.push_back(std::move(done));
  }
  void commit_all() {
    std::vector<std::function<void(Error)>> now = std::move(pending);
    pending.clear();
    for (auto& done : now) done(Error::None);
  }
  std::vector<std::uint64_t> appended;
  std::vector<std::function<void(Error)>> pending;
};

GroupCoordinatorConfig persist_config() {
  GroupCoordinatorConfig c;
  c.offsets_topic_num_partitions = 1;
  c.consumer_session_timeout = seconds(45);
  c.consumer_heartbeat_interval = seconds(5);
  return c;
}

struct PersistCoordinator {
  explicit PersistCoordinator(CoordinatorRecordStore& records, const PartitionLog& log)
      : coordinator(host, persist_config(), records, nullptr) {
    coordinator.load(0, log);
    host.queue.run_until(host.queue.now() + milliseconds(100));  // loaded
  }
  // A broker that does not lead the partition yet (the test loads it).
  explicit PersistCoordinator(CoordinatorRecordStore& records) : coordinator(host, persist_config(), records, nullptr) {}
  // Sends a heartbeat; returns the number of answers sent so far.
  std::size_t send(const std::string& member, std::int32_t epoch, const std::vector<std::int32_t>& owned = {}) {
    coordinator.handle(1, ksim::testing::kip848_heartbeat_request(++correlation, member, epoch, owned));
    return host.sent.size();
  }
  const ConsumerGroupHeartbeatResponse& last() const {
    return dynamic_cast<const ConsumerGroupHeartbeatResponse&>(*host.sent.back());
  }
  // A heartbeat answered once every write is committed.
  ConsumerGroupHeartbeatResponse heartbeat(const std::string& member, std::int32_t epoch,
                                           const std::vector<std::int32_t>& owned = {}) {
    send(member, epoch, owned);
    host.commit_all();
    return last();
  }

  PersistHost host;
  GroupCoordinator coordinator;
  std::int64_t correlation = 0;
};

std::vector<std::int32_t> persist_owned(const ConsumerGroupHeartbeatResponse& r) {
  std::vector<std::int32_t> out;
  for (const TopicPartition tp : *r.assignment) out.push_back(tp.partition);
  return out;
}

// The new leader's log: the batches the old coordinator appended.
PartitionLog persist_log(const CoordinatorRecordStore& records, const std::vector<std::uint64_t>& appended) {
  return ksim::testing::coordinator_log(records, appended);
}

// A coordinator that saw a and b join and share six partitions, three each,
// and the log it left: a's and b's last answers.
struct PersistTwoMembers {
  explicit PersistTwoMembers(CoordinatorRecordStore& records) {
    PersistCoordinator c(records, PartitionLog{});
    const auto a1 = c.heartbeat("a", 0);
    const auto b1 = c.heartbeat("b", 0);
    const auto a2 = c.heartbeat("a", a1.member_epoch, persist_owned(a1));  // revoke three
    a = c.heartbeat("a", a2.member_epoch, persist_owned(a2));              // revoked: the new epoch
    b = c.heartbeat("b", b1.member_epoch);                                 // takes them
    log = persist_log(records, c.host.appended);
  }
  ConsumerGroupHeartbeatResponse a, b;
  PartitionLog log;
};

}  // namespace

TEST_CASE("KIP-848 heartbeats are answered once the group's records are committed", "[kip848-persist][coordinator]") {
  CoordinatorRecordStore records;
  const PartitionLog empty;
  PersistCoordinator c(records, empty);
  // A join changes the group: written, and not answered before the write commits.
  CHECK(c.send("a", 0) == 0);
  REQUIRE(c.host.appended.size() == 1);
  REQUIRE(records.at(c.host.appended[0]).consumer_group);
  c.host.commit_all();
  REQUIRE(c.host.sent.size() == 1);
  const ConsumerGroupHeartbeatResponse a = c.last();
  CHECK(a.error == Error::None);
  CHECK(persist_owned(a).size() == 6);
  // A heartbeat that changes nothing writes nothing and is answered at once...
  CHECK(c.send("a", a.member_epoch, persist_owned(a)) == 2);
  CHECK(c.host.appended.size() == 1);
  // ...unless a write is in flight: it waits for that one (deferredEventQueue at lastWrittenOffset).
  CHECK(c.send("b", 0) == 2);
  CHECK(c.host.appended.size() == 2);
  CHECK(c.send("a", a.member_epoch, persist_owned(a)) == 2);  // a is told to revoke: a write as well
  CHECK(c.host.appended.size() == 3);
  c.host.commit_all();
  CHECK(c.host.sent.size() == 4);
  // A failed write answers NOT_COORDINATOR.
  c.send("c", 0);
  std::vector<std::function<void(Error)>> failing = std::move(c.host.pending);
  c.host.pending.clear();
  for (auto& done : failing) done(Error::NotLeaderOrFollower);
  CHECK(c.last().error == Error::NotCoordinator);
}

TEST_CASE("a new KIP-848 coordinator loads the group: epochs and assignments kept, sessions restarted at the load",
          "[kip848-persist][coordinator]") {
  CoordinatorRecordStore records;
  const PersistTwoMembers before(records);
  const auto& a3 = before.a;
  const auto& b2 = before.b;
  REQUIRE(a3.member_epoch == b2.member_epoch);
  REQUIRE(persist_owned(b2).size() == 3);
  // The broker is gone; another one leads the partition, loading at 20 s.
  PersistCoordinator fresh(records);
  fresh.host.queue.run_until(seconds(20));
  fresh.coordinator.load(0, before.log);
  // While loading: COORDINATOR_LOAD_IN_PROGRESS.
  fresh.send("a", a3.member_epoch, persist_owned(a3));
  CHECK(fresh.last().error == Error::CoordinatorLoadInProgress);
  fresh.host.queue.run_until(seconds(21));
  // a heartbeats in time: same epoch, same partitions, nothing written.
  const std::size_t writes = fresh.host.appended.size();
  const auto a4 = fresh.heartbeat("a", a3.member_epoch, persist_owned(a3));
  CHECK(a4.error == Error::None);
  CHECK(a4.member_epoch == a3.member_epoch);
  CHECK(persist_owned(a4) == persist_owned(a3));
  CHECK(fresh.host.appended.size() == writes);
  // b is silent: its session runs from the load (20 s), so it is still a member at 64 s...
  fresh.host.queue.run_until(seconds(30));
  fresh.heartbeat("a", a4.member_epoch, persist_owned(a4));
  fresh.host.queue.run_until(seconds(64));
  fresh.heartbeat("a", a4.member_epoch, persist_owned(a4));
  CHECK(fresh.heartbeat("b", b2.member_epoch, persist_owned(b2)).error == Error::None);
  // ...and fenced 45 s after its last heartbeat.
  fresh.host.queue.run_until(seconds(110));
  CHECK(fresh.heartbeat("b", b2.member_epoch, persist_owned(b2)).error == Error::UnknownMemberId);
}

TEST_CASE("a KIP-848 member silent since before the coordinator moved is fenced 45 s after the load",
          "[kip848-persist][coordinator]") {
  CoordinatorRecordStore records;
  const PersistTwoMembers before(records);
  const auto& a3 = before.a;
  const auto& b1 = before.b;
  PersistCoordinator fresh(records);
  fresh.host.queue.run_until(seconds(20));
  fresh.coordinator.load(0, before.log);
  fresh.host.queue.run_until(seconds(64));
  CHECK(fresh.heartbeat("a", a3.member_epoch, persist_owned(a3)).error == Error::None);
  CHECK(fresh.host.appended.empty());
  fresh.host.queue.run_until(seconds(66));  // b's session, from the load at 20 s
  fresh.host.commit_all();
  REQUIRE(fresh.host.appended.size() == 1);  // b's removal, written
  CHECK(records.at(fresh.host.appended.front()).consumer_group->members.size() == 1);
  CHECK(fresh.heartbeat("b", b1.member_epoch).error == Error::UnknownMemberId);
  const auto a4 = fresh.heartbeat("a", a3.member_epoch, persist_owned(a3));
  CHECK(a4.error == Error::None);
  CHECK(a4.member_epoch > a3.member_epoch);  // the group epoch moved on without b
}

TEST_CASE("a KIP-848 member that leaves is written as tombstones of its records' keys", "[kip848-persist][coordinator]") {
  CoordinatorRecordStore records;
  PersistCoordinator c(records, PartitionLog{});
  const auto a1 = c.heartbeat("a", 0);
  const auto b1 = c.heartbeat("b", 0);
  REQUIRE(b1.error == Error::None);
  const std::uint64_t with_b = c.host.appended.back();
  REQUIRE(records.at(with_b).consumer_group->members.size() == 2);
  CHECK(records.at(with_b).departed_members.empty());
  // b's key in the record that named it (members are in id order: a, b).
  const RecordKey b_key = records.key(with_b, 2);
  CHECK_FALSE(b_key.tombstone);
  c.heartbeat("b", -1);  // b leaves (LeaveGroup: member epoch -1)
  const std::uint64_t without_b = c.host.appended.back();
  const CoordinatorRecord& left = records.at(without_b);
  REQUIRE(left.consumer_group->members.size() == 1);
  REQUIRE(left.departed_members == std::vector<std::string>{"b"});
  CHECK(left.record_count() == 3);  // the group, a, b's tombstone
  const RecordKey tombstone = records.key(without_b, 2);
  CHECK(tombstone.tombstone);
  CHECK(tombstone.key == b_key.key);  // it supersedes b's records when the log is cleaned
  CHECK_FALSE(records.key(without_b, 1).tombstone);
  // The next write names only what changed since: no tombstone again.
  c.heartbeat("a", a1.member_epoch, persist_owned(a1));
  if (c.host.appended.back() != without_b) CHECK(records.at(c.host.appended.back()).departed_members.empty());
}
