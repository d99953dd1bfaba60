// KIP-848's online migration at the GroupCoordinator, with a fake broker
// around it: a ConsumerGroupHeartbeat converts a classic group (or gets
// GROUP_ID_NOT_FOUND when group.consumer.migration.policy or the size forbid
// it); classic members inside the consumer group rejoin on
// REBALANCE_IN_PROGRESS, get their assignment in SyncGroup and revoke by
// rejoining; the last consumer-protocol member leaving converts it back.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "models/coordinator/group_coordinator.hpp"
#include "tests/support/coordinator_log.hpp"
#include "tests/support/fake_coordinator_host.hpp"

using namespace ksim;
using namespace ksim::models;

namespace {

using MigrationHost = ksim::testing::FakeCoordinatorHost<CoordinatorHost>;
using MigrationPolicy = GroupCoordinatorConfig::MigrationPolicy;

std::vector<std::int32_t> migration_partitions(const std::vector<TopicPartition>& tps) {
  std::vector<std::int32_t> out;
  for (const TopicPartition tp : tps) out.push_back(tp.partition);
  return out;
}

struct MigrationFixture {
  explicit MigrationFixture(MigrationPolicy policy = MigrationPolicy::Bidirectional, std::int32_t consumer_max_size = INT32_MAX)
      : coordinator(host, config(policy, consumer_max_size), records, nullptr) {
    host.published = [this](const ModelEvent& e) {
      if (const auto* c = std::get_if<GroupConverted>(&e)) conversions.push_back(std::string(c->to));
    };
    coordinator.load(0, log);
    host.queue.run_until(0);
  }
  static GroupCoordinatorConfig config(MigrationPolicy policy, std::int32_t consumer_max_size) {
    GroupCoordinatorConfig c;
    c.offsets_topic_num_partitions = 1;
    c.group_initial_rebalance_delay = 0;
    c.consumer_migration_policy = policy;
    c.consumer_max_size = consumer_max_size;
    return c;
  }
  template <class Response>
  const Response& last() {
    REQUIRE_FALSE(host.sent.empty());
    const auto* r = dynamic_cast<const Response*>(host.sent.back().get());
    REQUIRE(r != nullptr);
    return *r;
  }
  void send_join(const std::string& member, std::int32_t generation, std::vector<std::int32_t> owned = {},
                 const std::string& client = "x") {
    JoinGroupRequest r;
    r.correlation_id = ++correlation;
    r.group = "g";
    r.member = MemberIdentity{generation, member, std::nullopt};
    r.client_id = client;
    r.session_timeout = seconds(10);
    r.rebalance_timeout = seconds(30);
    r.protocols = {"cooperative-sticky"};
    r.subscription.topics = {0};
    for (const std::int32_t p : owned) r.owned_partitions.push_back({0, p});
    r.subscription.owned = r.owned_partitions;
    coordinator.handle(1, r);
  }
  JoinGroupResponse join(const std::string& member, std::int32_t generation, std::vector<std::int32_t> owned = {},
                         const std::string& client = "x") {
    send_join(member, generation, std::move(owned), client);
    return last<JoinGroupResponse>();
  }
  // The join responses sent since `mark` (a classic rebalance answers every member at once).
  std::vector<JoinGroupResponse> joins_since(std::size_t mark) {
    std::vector<JoinGroupResponse> out;
    for (std::size_t i = mark; i < host.sent.size(); ++i) {
      if (const auto* r = dynamic_cast<const JoinGroupResponse*>(host.sent[i].get())) out.push_back(*r);
    }
    return out;
  }
  SyncGroupResponse sync(const std::string& member, std::int32_t generation, Assignment assignment = {}) {
    SyncGroupRequest r;
    r.correlation_id = ++correlation;
    r.group = "g";
    r.member = MemberIdentity{generation, member, std::nullopt};
    r.assignment = std::move(assignment);
    coordinator.handle(1, r);
    return last<SyncGroupResponse>();
  }
  Error heartbeat(const std::string& member, std::int32_t generation) {
    HeartbeatRequest r;
    r.correlation_id = ++correlation;
    r.group = "g";
    r.member = MemberIdentity{generation, member, std::nullopt};
    coordinator.handle(1, r);
    return last<HeartbeatResponse>().error;
  }
  Error leave(const std::string& member) {
    LeaveGroupRequest r;
    r.correlation_id = ++correlation;
    r.group = "g";
    r.member = MemberIdentity{-1, member, std::nullopt};
    coordinator.handle(1, r);
    return last<LeaveGroupResponse>().error;
  }
  ConsumerGroupHeartbeatResponse consumer_heartbeat(const std::string& member, std::int32_t epoch,
                                                    std::vector<std::int32_t> owned = {}) {
    coordinator.handle(1, ksim::testing::kip848_heartbeat_request(++correlation, member, epoch, owned));
    return last<ConsumerGroupHeartbeatResponse>();
  }
  Error commit(const std::string& member, std::int32_t generation) {
    OffsetCommitRequest r;
    r.correlation_id = ++correlation;
    r.group = "g";
    r.member = MemberIdentity{generation, member, std::nullopt};
    r.offsets = {{{0, 0}, 10, 0}};
    coordinator.handle(1, r);
    return last<OffsetCommitResponse>().first_error();
  }
  // A classic group of members "a" (0-2, the leader) and "b" (3-5), Stable at generation 1.
  std::int32_t classic_group() {
    a_id = join("", -1, {}, "a").member_id;
    b_id = join("", -1, {}, "b").member_id;
    const std::size_t mark = host.sent.size();
    send_join(a_id, -1, {}, "a");
    send_join(b_id, -1, {}, "b");
    host.queue.run_until(host.queue.now());  // the initial delay (0), then the join completes
    const auto joined = joins_since(mark);
    REQUIRE(joined.size() == 2);
    CHECK(joined[0].generation == 1);
    CHECK(joined[0].leader == a_id);
    SyncGroupRequest follower;
    follower.correlation_id = ++correlation;
    follower.group = "g";
    follower.member = MemberIdentity{1, b_id, std::nullopt};
    coordinator.handle(1, follower);  // waits for the leader's assignment
    Assignment assignment{{a_id, {{0, 0}, {0, 1}, {0, 2}}}, {b_id, {{0, 3}, {0, 4}, {0, 5}}}};
    CHECK(sync(a_id, 1, assignment).assignment.size() == 3);
    CHECK(heartbeat(a_id, 1) == Error::None);
    CHECK(heartbeat(b_id, 1) == Error::None);
    return 1;
  }

  MigrationHost host;
  CoordinatorRecordStore records;
  PartitionLog log;
  GroupCoordinator coordinator;
  std::int64_t correlation = 0;
  std::vector<std::string> conversions;
  std::string a_id, b_id;
};

}  // namespace

TEST_CASE("online upgrade: a ConsumerGroupHeartbeat converts a classic group, its members rejoin as classic members",
          "[kip848-migration][coordinator]") {
  MigrationFixture f;
  const std::int32_t generation = f.classic_group();
  const auto c = f.consumer_heartbeat("c", 0);
  REQUIRE(c.error == Error::None);
  CHECK(f.conversions == std::vector<std::string>{"consumer"});
  CHECK(c.member_epoch > generation);   // the group epoch, bumped past the generation by c's join
  CHECK(c.assignment->empty());         // c's share is still held by the classic members
  // The classic members keep their generation as member epoch and are told to rejoin.
  CHECK(f.commit(f.a_id, generation) == Error::None);
  CHECK(f.heartbeat(f.a_id, generation) == Error::RebalanceInProgress);
  // a rejoins owning 0-2: it must give one up first (UNREVOKED_PARTITIONS), keeping its epoch.
  const auto a1 = f.join(f.a_id, generation, {0, 1, 2}, "a");
  REQUIRE(a1.error == Error::None);
  CHECK(a1.leader.empty());  // the coordinator assigns: nobody leads
  CHECK(a1.generation == generation);
  const auto s1 = f.sync(f.a_id, a1.generation);
  REQUIRE(s1.error == Error::None);
  CHECK(s1.assignment.size() == 2);
  CHECK(f.heartbeat(f.a_id, generation) == Error::RebalanceInProgress);  // it revokes by rejoining
  const auto a2 = f.join(f.a_id, generation, migration_partitions(s1.assignment), "a");
  CHECK(a2.generation == c.member_epoch);
  CHECK(f.sync(f.a_id, a2.generation).assignment.size() == 2);
  CHECK(f.heartbeat(f.a_id, a2.generation) == Error::None);
  // Commits carry the member epoch as generation; the old one is an illegal generation now.
  CHECK(f.commit(f.a_id, generation) == Error::IllegalGeneration);
  CHECK(f.commit(f.a_id, a2.generation) == Error::None);
  // A SyncGroup of an old generation, and a classic request from a non-member.
  CHECK(f.sync(f.a_id, generation).error == Error::IllegalGeneration);
  CHECK(f.heartbeat("c", c.member_epoch) == Error::UnknownMemberId);  // c is not a classic member
  // c gets a's revoked partition.
  const auto c2 = f.consumer_heartbeat("c", c.member_epoch);
  CHECK(c2.assignment->size() == 1);
}

TEST_CASE("online upgrade refused: policy disabled or downgrade-only, or the group too large: GROUP_ID_NOT_FOUND",
          "[kip848-migration][coordinator]") {
  for (const auto& [policy, max_size] : {std::pair{MigrationPolicy::Disabled, INT32_MAX}, std::pair{MigrationPolicy::Downgrade, INT32_MAX},
                                         std::pair{MigrationPolicy::Bidirectional, 1}}) {
    MigrationFixture f(policy, max_size);
    const std::int32_t generation = f.classic_group();
    CHECK(f.consumer_heartbeat("c", 0).error == Error::GroupIdNotFound);
    CHECK(f.conversions.empty());
    CHECK(f.heartbeat(f.a_id, generation) == Error::None);  // the classic group goes on
    CHECK(f.commit(f.a_id, generation) == Error::None);
  }
  // An empty classic group is simply replaced, whatever the policy.
  MigrationFixture empty(MigrationPolicy::Disabled);
  CHECK(empty.commit("", -1) == Error::None);  // the group exists (its offsets), without members
  CHECK(empty.consumer_heartbeat("c", 0).error == Error::None);
  CHECK(empty.conversions.empty());
}

TEST_CASE("online downgrade: the last consumer-protocol member leaves a group of classic members",
          "[kip848-migration][coordinator]") {
  for (const MigrationPolicy policy : {MigrationPolicy::Bidirectional, MigrationPolicy::Upgrade}) {
    MigrationFixture f(policy);
    const std::int32_t generation = f.classic_group();
    const auto c = f.consumer_heartbeat("c", 0);
    CHECK(f.consumer_heartbeat("c", kLeaveMemberEpoch).error == Error::None);
    if (policy == MigrationPolicy::Upgrade) {  // no downgrade: a consumer group of classic members
      CHECK(f.conversions == std::vector<std::string>{"consumer"});
      CHECK(f.heartbeat(f.a_id, generation) == Error::RebalanceInProgress);
      CHECK(f.join(f.a_id, generation, {0, 1, 2}, "a").leader.empty());
      continue;
    }
    CHECK(f.conversions == std::vector<std::string>{"consumer", "classic"});
    // A classic group at the group epoch, rebalancing: the members' generation is older.
    CHECK(f.heartbeat(f.a_id, generation) == Error::IllegalGeneration);
    const std::size_t mark = f.host.sent.size();
    f.send_join(f.a_id, -1, {0, 1, 2}, "a");
    f.send_join(f.b_id, -1, {3, 4, 5}, "b");
    const auto joined = f.joins_since(mark);
    REQUIRE(joined.size() == 2);  // both rejoined: the join phase completes
    for (const auto& r : joined) {
      CHECK(r.error == Error::None);
      CHECK(r.generation > c.member_epoch);  // a new generation past the group epoch
      CHECK(r.leader == joined[0].leader);
      CHECK_FALSE(r.leader.empty());  // a classic leader assigns again
    }
  }
}

TEST_CASE("a mixed group rebalances when a classic member leaves, and each member type has its own session",
          "[kip848-migration][coordinator]") {
  MigrationFixture f;
  const std::int32_t generation = f.classic_group();
  const auto c = f.consumer_heartbeat("c", 0);
  // b leaves with LeaveGroup: the group epoch moves on and its partitions go to the others.
  CHECK(f.leave(f.b_id) == Error::None);
  CHECK(f.conversions == std::vector<std::string>{"consumer"});  // a classic member's leave never downgrades
  const auto c2 = f.consumer_heartbeat("c", c.member_epoch);
  CHECK(c2.member_epoch > c.member_epoch);
  CHECK(c2.assignment->size() >= 2);  // b's partitions, free at once (one of its share may still be a's)
  CHECK(f.heartbeat(f.a_id, generation) == Error::RebalanceInProgress);
  // a, a classic member with a 10 s session, goes silent while c heartbeats: it is removed after 10 s,
  // not group.consumer.session.timeout.ms (45 s).
  std::int32_t epoch = c2.member_epoch;
  for (int s = 2; s <= 12; s += 2) {
    f.host.queue.run_until(seconds(s));
    const auto r = f.consumer_heartbeat("c", epoch, migration_partitions(*c2.assignment));
    CHECK(r.error == Error::None);
    epoch = r.member_epoch;
  }
  CHECK(epoch > c2.member_epoch);  // a's removal bumped the group epoch
  CHECK(f.heartbeat(f.a_id, generation) == Error::UnknownMemberId);
}

namespace {

// The records the coordinator wrote, in order (every record added is appended), as its partition's log.
PartitionLog conversion_log(const CoordinatorRecordStore& records) {
  std::vector<std::uint64_t> ids(records.size());
  for (std::uint64_t id = 0; id < ids.size(); ++id) ids[id] = id;
  return ksim::testing::coordinator_log(records, ids);
}

// The last record written with a classic group's metadata (`with_metadata`) or a consumer group's.
std::uint64_t last_record(const CoordinatorRecordStore& records, bool with_metadata) {
  for (std::uint64_t id = records.size(); id-- > 0;) {
    if (with_metadata ? records.at(id).metadata.has_value() : records.at(id).consumer_group != nullptr) return id;
  }
  FAIL("no such record");
  return 0;
}

}  // namespace

TEST_CASE("an online upgrade writes the classic group's tombstone with the consumer group's records",
          "[kip848-migration][coordinator][compaction]") {
  MigrationFixture f;
  const std::int32_t generation = f.classic_group();
  CHECK(f.commit(f.a_id, generation) == Error::None);
  const std::uint64_t classic = last_record(f.records, /*with_metadata=*/true);
  REQUIRE(f.records.at(classic).metadata->members.size() == 2);
  const RecordKey classic_key = f.records.key(classic, 0);
  CHECK_FALSE(classic_key.tombstone);
  f.consumer_heartbeat("c", 0);  // converts the group (convertToConsumerGroup)
  REQUIRE(f.conversions == std::vector<std::string>{"consumer"});
  CHECK(last_record(f.records, /*with_metadata=*/true) == classic);  // no classic metadata written since
  const std::uint64_t upgrade = last_record(f.records, /*with_metadata=*/false);
  const CoordinatorRecord& record = f.records.at(upgrade);
  REQUIRE(record.classic_tombstone);
  REQUIRE(record.consumer_group->members.size() == 3);
  CHECK(record.record_count() == 5);  // the group, a, b, c, the classic group's tombstone
  const RecordKey tombstone = f.records.key(upgrade, 4);
  CHECK(tombstone.tombstone);
  CHECK(tombstone.key == classic_key.key);  // it supersedes the classic group's metadata
  CHECK_FALSE(f.records.key(upgrade, 3).tombstone);
  // Only the first write: the next one carries no tombstone of it again.
  f.consumer_heartbeat("c", f.last<ConsumerGroupHeartbeatResponse>().member_epoch);
  if (last_record(f.records, false) != upgrade) CHECK_FALSE(f.records.at(last_record(f.records, false)).classic_tombstone);

  // A new coordinator loads a consumer group, and keeps the classic group's offsets: the tombstone is the
  // GroupMetadata key's, not the group's deletion.
  MigrationHost host;
  CoordinatorRecordStore& records = f.records;
  GroupCoordinator loaded(host, MigrationFixture::config(MigrationPolicy::Bidirectional, INT32_MAX), records, nullptr);
  const PartitionLog log = conversion_log(records);
  loaded.load(0, log);
  host.queue.run_until(host.queue.now() + milliseconds(100));
  OffsetFetchRequest fetch;
  fetch.correlation_id = 1;
  fetch.group = "g";
  fetch.partitions = {{0, 0}};
  loaded.handle(1, fetch);
  const auto& fetched = dynamic_cast<const OffsetFetchResponse&>(*host.sent.back());
  REQUIRE(fetched.offsets.size() == 1);
  CHECK(fetched.offsets[0].offset == 10);
  loaded.handle(1, ksim::testing::kip848_heartbeat_request(2, "c", record.consumer_group->members.at("c")->member_epoch, {}));
  CHECK(dynamic_cast<const ConsumerGroupHeartbeatResponse&>(*host.sent.back()).error == Error::None);
}

TEST_CASE("an online downgrade writes the tombstones of the consumer group's keys with the classic group's metadata",
          "[kip848-migration][coordinator][compaction]") {
  MigrationFixture f;
  f.classic_group();
  f.consumer_heartbeat("c", 0);
  const std::uint64_t consumer = last_record(f.records, /*with_metadata=*/false);
  const CoordinatorRecord& group = f.records.at(consumer);
  REQUIRE(group.consumer_group->members.size() == 3);
  CHECK(f.consumer_heartbeat("c", kLeaveMemberEpoch).error == Error::None);  // the last consumer-protocol member
  REQUIRE(f.conversions == std::vector<std::string>{"consumer", "classic"});
  const std::uint64_t downgrade = last_record(f.records, /*with_metadata=*/true);
  const CoordinatorRecord& record = f.records.at(downgrade);
  REQUIRE(record.consumer_group_tombstone);
  CHECK(record.metadata->members.size() == 2);  // a and b, c gone
  REQUIRE(record.departed_members.size() == 3);  // every member's keys, the leaving c's included
  CHECK(record.record_count() == 5);           // the classic metadata, the group's tombstone, three members'
  CHECK_FALSE(f.records.key(downgrade, 0).tombstone);
  const RecordKey group_tombstone = f.records.key(downgrade, 1);
  CHECK(group_tombstone.tombstone);
  CHECK(group_tombstone.key == f.records.key(consumer, 0).key);
  for (std::int32_t i = 0; i < 3; ++i) {  // members in id order in both
    const RecordKey member = f.records.key(downgrade, 2 + i);
    CHECK(member.tombstone);
    CHECK(member.key == f.records.key(consumer, 1 + i).key);
  }
}
