// KIP-848 at the GroupCoordinator, through ConsumerGroupHeartbeat with a
// fake broker around it: joins and the member epoch, a revocation and the
// hand-over, the session and rebalance (revocation) timeouts, leaving, a
// static member's return, and the member epoch on OffsetCommit.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "models/coordinator/group_coordinator.hpp"
#include "tests/support/fake_coordinator_host.hpp"

using namespace ksim;
using namespace ksim::models;

namespace {

// The broker around the coordinator: a clock, timers, and the answers it sends.
using Kip848Host = ksim::testing::FakeCoordinatorHost<CoordinatorHost>;

struct Kip848Fixture {
  Kip848Fixture() : coordinator(host, config(), records, nullptr) {
    coordinator.load(0, log);
    host.queue.run_until(0);
  }
  static GroupCoordinatorConfig config() {
    GroupCoordinatorConfig c;
    c.offsets_topic_num_partitions = 1;
    c.consumer_session_timeout = seconds(45);
    c.consumer_heartbeat_interval = seconds(5);
    return c;
  }
  // A heartbeat and its answer.
  ConsumerGroupHeartbeatResponse heartbeat(const std::string& member, std::int32_t epoch,
                                           std::vector<std::int32_t> owned = {}, std::optional<std::string> instance = {}) {
    ConsumerGroupHeartbeatRequest r;
    r.correlation_id = ++correlation;
    r.group = "g";
    r.member_id = member;
    r.member_epoch = epoch;
    r.instance_id = std::move(instance);
    r.client_id = member;
    r.rebalance_timeout = seconds(30);
    r.topics = {0};
    for (const std::int32_t p : owned) r.owned.push_back({0, p});
    coordinator.handle(1, r);
    REQUIRE_FALSE(host.sent.empty());
    const auto& response = dynamic_cast<const ConsumerGroupHeartbeatResponse&>(*host.sent.back());
    CHECK(response.correlation_id == correlation);
    return response;
  }
  Error commit(const std::string& member, std::int32_t epoch) {
    OffsetCommitRequest r;
    r.correlation_id = ++correlation;
    r.group = "g";
    r.member = MemberIdentity{epoch, member, std::nullopt};
    r.offsets = {{{0, 0}, 10, 0}};
    coordinator.handle(1, r);
    return dynamic_cast<const OffsetCommitResponse&>(*host.sent.back()).first_error();
  }

  // A commit of offset 10 + p for each partition p, and the whole answer.
  OffsetCommitResponse commit_partitions(const std::string& member, std::int32_t epoch, std::vector<std::int32_t> partitions) {
    OffsetCommitRequest r;
    r.correlation_id = ++correlation;
    r.group = "g";
    r.member = MemberIdentity{epoch, member, std::nullopt};
    for (const std::int32_t p : partitions) r.offsets.push_back({{0, p}, 10 + p, 0});
    coordinator.handle(1, r);
    return dynamic_cast<const OffsetCommitResponse&>(*host.sent.back());
  }
  // The group's committed offset of partition p (-1: none).
  std::int64_t committed(std::int32_t p) {
    OffsetFetchRequest r;
    r.correlation_id = ++correlation;
    r.group = "g";
    r.partitions = {{0, p}};
    coordinator.handle(1, r);
    return dynamic_cast<const OffsetFetchResponse&>(*host.sent.back()).offsets.at(0).offset;
  }

  Kip848Host host;
  CoordinatorRecordStore records;
  PartitionLog log;
  GroupCoordinator coordinator;
  std::int64_t correlation = 0;
};

std::vector<std::int32_t> kip848_owned(const ConsumerGroupHeartbeatResponse& r) {
  std::vector<std::int32_t> out;
  for (const TopicPartition tp : *r.assignment) out.push_back(tp.partition);
  return out;
}

}  // namespace

TEST_CASE("KIP-848 heartbeats: join, revoke before the hand-over, acknowledge", "[kip848][coordinator]") {
  Kip848Fixture f;
  const auto a1 = f.heartbeat("a", 0);
  CHECK(a1.error == Error::None);
  CHECK(a1.heartbeat_interval == seconds(5));
  CHECK(a1.member_epoch > 0);
  CHECK(kip848_owned(a1) == std::vector<std::int32_t>{0, 1, 2, 3, 4, 5});
  const auto b1 = f.heartbeat("b", 0);
  CHECK(b1.assignment->empty());  // its share is still a's
  // a is asked to give up three, keeping its epoch until it has.
  const auto a2 = f.heartbeat("a", a1.member_epoch, kip848_owned(a1));
  CHECK(a2.member_epoch == a1.member_epoch);
  CHECK(a2.assignment->size() == 3);
  CHECK(f.heartbeat("b", b1.member_epoch).assignment->empty());
  const auto a3 = f.heartbeat("a", a2.member_epoch, kip848_owned(a2));  // revoked
  CHECK(a3.member_epoch == b1.member_epoch);
  const auto b2 = f.heartbeat("b", b1.member_epoch);
  CHECK(b2.assignment->size() == 3);
  // A stale epoch is fenced; an unknown member is told so.
  CHECK(f.heartbeat("a", a3.member_epoch + 1).error == Error::FencedMemberEpoch);
  CHECK(f.heartbeat("zz", 4).error == Error::UnknownMemberId);
}

TEST_CASE("KIP-848 offset commits carry the member epoch", "[kip848][coordinator]") {
  Kip848Fixture f;
  const auto a = f.heartbeat("a", 0);
  CHECK(f.commit("a", a.member_epoch) == Error::None);
  CHECK(f.commit("a", a.member_epoch - 1) == Error::StaleMemberEpoch);
  CHECK(f.commit("a", a.member_epoch + 1) == Error::FencedMemberEpoch);
  CHECK(f.commit("b", 1) == Error::UnknownMemberId);
}

// KIP-1251 (4.3): a commit with the member's previous epoch is judged per
// partition (ConsumerGroup.validateOffsetCommit's CommitPartitionValidator):
// the partitions it still holds since that epoch are written, one it gave up
// is refused STALE_MEMBER_EPOCH on its own.
TEST_CASE("KIP-1251: an older member epoch's commit writes the partitions still held and refuses the others",
          "[kip848][coordinator]") {
  Kip848Fixture f;
  const auto a1 = f.heartbeat("a", 0);
  const auto b1 = f.heartbeat("b", 0);
  const auto a2 = f.heartbeat("a", a1.member_epoch, kip848_owned(a1));  // asked to give up three
  const auto a3 = f.heartbeat("a", a2.member_epoch, kip848_owned(a2));  // gave them up: a new epoch
  REQUIRE(a3.member_epoch > a1.member_epoch);
  const std::int32_t kept = kip848_owned(a3).front();
  std::int32_t gone = -1;
  for (const std::int32_t p : kip848_owned(a1)) {
    const auto owned = kip848_owned(a3);
    if (std::find(owned.begin(), owned.end(), p) == owned.end()) gone = p;
  }
  REQUIRE(gone >= 0);
  (void)b1;
  // A commit sent at a's first epoch, before it heard of the new one.
  const OffsetCommitResponse late = f.commit_partitions("a", a1.member_epoch, {kept, gone});
  CHECK(late.error == Error::None);
  REQUIRE(late.refused.size() == 1);
  CHECK(late.refused.front().partition == TopicPartition{0, gone});
  CHECK(late.refused.front().error == Error::StaleMemberEpoch);
  CHECK(late.first_error() == Error::StaleMemberEpoch);
  CHECK(f.committed(kept) == 10 + kept);  // written
  CHECK(f.committed(gone) == -1);         // not written
  // Only the partition it gave up: nothing written, the same answer.
  const OffsetCommitResponse zombie = f.commit_partitions("a", a1.member_epoch, {gone});
  CHECK(zombie.first_error() == Error::StaleMemberEpoch);
  CHECK(f.committed(gone) == -1);
}

TEST_CASE("KIP-848 timeouts: a silent member is removed, one that does not revoke is fenced", "[kip848][coordinator]") {
  Kip848Fixture f;
  const auto a = f.heartbeat("a", 0);
  const auto b = f.heartbeat("b", 0);
  // b stays silent, a is asked to revoke but does not.
  const auto a2 = f.heartbeat("a", a.member_epoch, kip848_owned(a));
  CHECK(a2.assignment->size() == 3);
  f.host.queue.run_until(seconds(31));  // a's rebalance timeout (30 s)
  CHECK(f.heartbeat("a", a2.member_epoch, kip848_owned(a)).error == Error::UnknownMemberId);
  f.host.queue.run_until(seconds(46));  // b's session (45 s)
  CHECK(f.heartbeat("b", b.member_epoch).error == Error::UnknownMemberId);
}

TEST_CASE("KIP-848 leaving: dynamic at once, static kept until it is back", "[kip848][coordinator]") {
  Kip848Fixture f;
  const auto s = f.heartbeat("s-1", 0, {}, "s");
  CHECK(f.heartbeat("s-1", kStaticLeaveMemberEpoch, kip848_owned(s), "s").error == Error::None);
  // Back with a new member id: its place and partitions, no rebalance.
  const auto back = f.heartbeat("s-2", 0, {}, "s");
  CHECK(back.error == Error::None);
  CHECK(kip848_owned(back) == kip848_owned(s));
  CHECK(back.member_epoch == s.member_epoch);
  // A second instance while the first is there: UNRELEASED_INSTANCE_ID.
  CHECK(f.heartbeat("s-3", 0, {}, "s").error == Error::UnreleasedInstanceId);
  const auto d = f.heartbeat("d", 0);
  CHECK(f.heartbeat("d", kLeaveMemberEpoch).member_epoch == kLeaveMemberEpoch);
  CHECK(f.heartbeat("d", d.member_epoch).error == Error::UnknownMemberId);
}
