// KIP-848's consumer group at its coordinator: the server-side assignors
// (uniform, range), the group and target epochs, and each member's
// reconciliation (CurrentAssignmentBuilder): revoke first, then acquire, a
// partition only once its previous owner gave it up.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "models/coordinator/consumer_group.hpp"
#include "models/coordinator/consumer_group_assignor.hpp"
#include "models/coordinator/consumer_group_image.hpp"

using namespace ksim::models;

namespace {

MemberSubscription kip848_subscriber(std::string id, std::vector<TopicPartition> owned = {}) {
  MemberSubscription s;
  s.member_id = std::move(id);
  s.topics = {0};
  s.owned = std::move(owned);
  return s;
}

std::vector<TopicPartition> kip848_partitions(std::initializer_list<std::int32_t> ps) {
  std::vector<TopicPartition> out;
  for (const std::int32_t p : ps) out.push_back({0, p});
  return out;
}

ConsumerGroupMember kip848_member(std::string id) {
  ConsumerGroupMember m;
  m.member_id = id;
  m.client_id = id;
  m.topics = {0};
  m.rebalance_timeout = 300'000'000'000;
  return m;
}

// A member's heartbeat as the coordinator handles it: subscription, then target, then reconciliation.
void kip848_heartbeat(ConsumerGroup& g, const std::string& id, const std::vector<TopicPartition>& owned) {
  g.update_partition_counts({{0, 6}});
  g.maybe_compute_target(*make_server_assignor("uniform"));
  g.reconcile(id, owned);
}

std::vector<TopicPartition> kip848_assigned(const ConsumerGroup& g, const std::string& id) {
  const auto& a = g.member(id)->assigned;
  return {a.begin(), a.end()};
}

}  // namespace

TEST_CASE("KIP-848 server assignors are found by name", "[kip848][assignor]") {
  CHECK(make_server_assignor("uniform")->name() == "uniform");
  CHECK(make_server_assignor("range")->name() == "range");
  CHECK(make_server_assignor("org.apache.kafka.coordinator.group.assignor.UniformAssignor")->name() == "uniform");
  CHECK(make_server_assignor("cooperative-sticky") == nullptr);
  CHECK(server_assignor_names() == std::vector<std::string>{"uniform", "range"});
}

TEST_CASE("the uniform assignor balances and is sticky", "[kip848][assignor]") {
  const auto uniform = make_server_assignor("uniform");
  const std::map<std::int32_t, std::int32_t> topics{{0, 7}};
  // Fresh: 7 partitions over 3 members, 3-2-2.
  Assignment a = uniform->assign(topics, {kip848_subscriber("a"), kip848_subscriber("b"), kip848_subscriber("c")});
  CHECK(a["a"].size() + a["b"].size() + a["c"].size() == 7);
  for (const auto& [id, ps] : a) CHECK((ps.size() == 2 || ps.size() == 3));
  // A fourth member: each of the others keeps all but what it must give up.
  Assignment b = uniform->assign(topics, {kip848_subscriber("a", a["a"]), kip848_subscriber("b", a["b"]),
                                          kip848_subscriber("c", a["c"]), kip848_subscriber("d")});
  std::size_t kept = 0;
  for (const char* id : {"a", "b", "c"}) {
    for (const TopicPartition tp : b[id]) kept += std::count(a[id].begin(), a[id].end(), tp);
  }
  CHECK(kept == 7 - b["d"].size());
  CHECK(b["d"].size() == 1);
  std::set<TopicPartition> all;
  for (const auto& [id, ps] : b) all.insert(ps.begin(), ps.end());
  CHECK(all.size() == 7);
}

TEST_CASE("the range assignor gives contiguous ranges in member-id order", "[kip848][assignor]") {
  const Assignment a = make_server_assignor("range")->assign({{0, 5}}, {kip848_subscriber("b"), kip848_subscriber("c")});
  CHECK(a.at("b") == kip848_partitions({0, 1, 2}));
  CHECK(a.at("c") == kip848_partitions({3, 4}));
}

TEST_CASE("a joining member bumps the group epoch and the target follows", "[kip848][coordinator]") {
  ConsumerGroup g("g");
  CHECK(g.state() == ConsumerGroupState::Empty);
  g.add_member(kip848_member("a"));
  CHECK(g.group_epoch() == 1);
  CHECK(g.state() == ConsumerGroupState::Assigning);
  kip848_heartbeat(g, "a", {});
  CHECK(g.target_epoch() == 2);  // the partition metadata was new too
  CHECK(g.member("a")->member_epoch == 2);
  CHECK(kip848_assigned(g, "a") == kip848_partitions({0, 1, 2, 3, 4, 5}));
  CHECK(g.state() == ConsumerGroupState::Stable);
}

TEST_CASE("a partition moves only after its owner revoked it", "[kip848][coordinator]") {
  ConsumerGroup g("g");
  g.add_member(kip848_member("a"));
  kip848_heartbeat(g, "a", {});
  const auto all = kip848_partitions({0, 1, 2, 3, 4, 5});
  g.add_member(kip848_member("b"));
  const std::int32_t epoch = g.group_epoch();
  // b joins: the target gives it half, but a still holds them: b waits (UNRELEASED_PARTITIONS).
  kip848_heartbeat(g, "b", {});
  CHECK(g.target_epoch() == epoch);
  CHECK(g.member("b")->member_epoch == epoch);
  CHECK(g.member("b")->state == MemberAssignmentState::UnreleasedPartitions);
  CHECK(g.member("b")->assigned.empty());
  CHECK(g.state() == ConsumerGroupState::Reconciling);
  // a heartbeats still owning everything: asked to revoke, it keeps its epoch (UNREVOKED_PARTITIONS).
  kip848_heartbeat(g, "a", all);
  const ConsumerGroupMember& a = *g.member("a");
  CHECK(a.state == MemberAssignmentState::UnrevokedPartitions);
  CHECK(a.member_epoch < epoch);
  CHECK(a.pending_revocation.size() == 3);
  const std::vector<TopicPartition> keep = kip848_assigned(g, "a");
  // Still owning them: no progress; b gets nothing yet.
  kip848_heartbeat(g, "a", all);
  CHECK(g.member("a")->state == MemberAssignmentState::UnrevokedPartitions);
  kip848_heartbeat(g, "b", {});
  CHECK(g.member("b")->assigned.empty());
  // a acknowledges the revocation: it takes the target epoch; then b acquires.
  kip848_heartbeat(g, "a", keep);
  CHECK(g.member("a")->state == MemberAssignmentState::Stable);
  CHECK(g.member("a")->member_epoch == epoch);
  CHECK(g.state() == ConsumerGroupState::Reconciling);
  kip848_heartbeat(g, "b", {});
  CHECK(g.member("b")->state == MemberAssignmentState::Stable);
  CHECK(g.member("b")->assigned.size() == 3);
  CHECK(g.state() == ConsumerGroupState::Stable);
  for (const TopicPartition tp : all) CHECK_FALSE(g.holder(tp).empty());
}

// KIP-1251: each partition a member holds keeps the member epoch it was
// given at; the coordinator accepts a commit with an older member epoch for
// the partitions given at that epoch or before.
TEST_CASE("a partition's assignment epoch is the member epoch it was given at, kept while held", "[kip848][coordinator]") {
  ConsumerGroup g("g");
  g.add_member(kip848_member("a"));
  kip848_heartbeat(g, "a", {});
  const std::int32_t first = g.member("a")->member_epoch;
  for (const TopicPartition tp : kip848_partitions({0, 1, 2, 3, 4, 5})) {
    CHECK(g.member("a")->assignment_epochs.at(tp) == first);
  }
  g.add_member(kip848_member("b"));
  kip848_heartbeat(g, "b", {});
  kip848_heartbeat(g, "a", kip848_partitions({0, 1, 2, 3, 4, 5}));  // asked to revoke half
  const ConsumerGroupMember& revoking = *g.member("a");
  REQUIRE(revoking.pending_revocation.size() == 3);
  for (const TopicPartition tp : revoking.pending_revocation) CHECK(revoking.assignment_epochs.at(tp) == first);
  const std::vector<TopicPartition> keep = kip848_assigned(g, "a");
  kip848_heartbeat(g, "a", keep);  // revoked: a new member epoch, the kept partitions keep theirs
  const ConsumerGroupMember& a = *g.member("a");
  CHECK(a.member_epoch > first);
  CHECK(a.assignment_epochs.size() == 3);
  for (const TopicPartition tp : keep) CHECK(a.assignment_epochs.at(tp) == first);
  kip848_heartbeat(g, "b", {});  // b takes the other half at its current epoch
  const ConsumerGroupMember& b = *g.member("b");
  REQUIRE(b.assigned.size() == 3);
  for (const TopicPartition tp : b.assigned) CHECK(b.assignment_epochs.at(tp) == b.member_epoch);
}

TEST_CASE("a member that leaves frees its partitions at once", "[kip848][coordinator]") {
  ConsumerGroup g("g");
  g.add_member(kip848_member("a"));
  g.add_member(kip848_member("b"));
  kip848_heartbeat(g, "a", {});
  kip848_heartbeat(g, "b", {});
  REQUIRE(g.state() == ConsumerGroupState::Stable);
  const auto b_had = kip848_assigned(g, "b");
  g.remove_member("b");
  CHECK(g.state() == ConsumerGroupState::Assigning);
  for (const TopicPartition tp : b_had) CHECK(g.holder(tp).empty());
  kip848_heartbeat(g, "a", kip848_assigned(g, "a"));
  CHECK(g.member("a")->assigned.size() == 6);
  CHECK(g.state() == ConsumerGroupState::Stable);
}

TEST_CASE("the member epoch check accepts only the current or the previous epoch", "[kip848][coordinator]") {
  ConsumerGroup g("g");
  g.add_member(kip848_member("a"));
  kip848_heartbeat(g, "a", {});
  const std::int32_t epoch = g.member("a")->member_epoch;
  CHECK(g.epoch_valid("a", epoch, kip848_assigned(g, "a")));
  CHECK_FALSE(g.epoch_valid("a", epoch + 1, {}));
  CHECK(g.epoch_valid("a", 0, {}));  // its previous epoch, owning nothing it lost
  CHECK_FALSE(g.epoch_valid("a", epoch - 5, {}));
}

TEST_CASE("a static member back after leaving with epoch -2 takes its place and partitions", "[kip848][coordinator]") {
  ConsumerGroup g("g");
  ConsumerGroupMember s = kip848_member("s-1");
  s.instance_id = "s";
  g.add_member(s);
  g.add_member(kip848_member("d"));
  kip848_heartbeat(g, "s-1", {});
  kip848_heartbeat(g, "d", {});
  kip848_heartbeat(g, "s-1", kip848_assigned(g, "s-1"));
  REQUIRE(g.state() == ConsumerGroupState::Stable);
  const auto had = kip848_assigned(g, "s-1");
  const std::int32_t epoch = g.group_epoch();
  g.static_leave("s-1");
  CHECK(g.member("s-1")->member_epoch == -2);
  CHECK(g.static_member("s") == "s-1");
  g.replace_static_member("s-1", "s-2");
  CHECK(g.group_epoch() == epoch);  // no rebalance
  CHECK_FALSE(g.member("s-1"));
  kip848_heartbeat(g, "s-2", {});
  CHECK(kip848_assigned(g, "s-2") == had);
  CHECK(g.state() == ConsumerGroupState::Stable);
}

TEST_CASE("the group's assignor is the one most members ask for", "[kip848][coordinator]") {
  ConsumerGroup g("g");
  CHECK(g.preferred_assignor().empty());
  g.add_member(kip848_member("a"));
  g.add_member(kip848_member("b"));
  g.update_subscription("a", {0}, "range");
  CHECK(g.preferred_assignor() == "range");
}

// consumer_group_image.hpp: what the coordinator writes of a group replays to
// the same group (its partitions' holders rebuilt), and a write shares with
// the one before the members that did not change.
TEST_CASE("a consumer group's image replays to the same group and shares what did not change", "[kip848][coordinator]") {
  ConsumerGroup g("g");
  g.add_member(kip848_member("a"));
  kip848_heartbeat(g, "a", {});
  g.add_member(kip848_member("b"));
  kip848_heartbeat(g, "b", {});
  kip848_heartbeat(g, "a", kip848_partitions({0, 1, 2, 3, 4, 5}));  // a revoking, b waiting: holders matter
  REQUIRE(g.member("a")->state == MemberAssignmentState::UnrevokedPartitions);
  const ConsumerGroupImage first = g.image(nullptr);
  CHECK(g.matches(first));
  const ConsumerGroup replayed = ConsumerGroup::from_image(first);
  CHECK(replayed == g);  // operator== compares the holders too
  for (std::int32_t p = 0; p < 6; ++p) CHECK(replayed.holder({0, p}) == g.holder({0, p}));
  // a revokes: the next image shares b (unchanged) and the target, not a.
  const std::vector<TopicPartition> keep = kip848_assigned(g, "a");
  kip848_heartbeat(g, "a", keep);
  CHECK_FALSE(g.matches(first));
  const ConsumerGroupImage second = g.image(&first);
  CHECK(g.matches(second));
  CHECK(second.members.at("b") == first.members.at("b"));
  CHECK(second.members.at("a") != first.members.at("a"));
  CHECK(second.target == first.target);
  CHECK(ConsumerGroup::from_image(second) == g);
  // An image of nothing before shares nothing.
  CHECK(g.image(nullptr).members.at("b") != first.members.at("b"));
}
