// A group coordinator whose __consumer_offsets partition gets a new leader
// epoch while it stays the leader keeps its groups in memory: a rebalance in
// progress goes on, the joins it holds are not answered NOT_COORDINATOR.
// Kafka never reloads a partition it leads already (before 3.0 the coordinator
// hears only of new leaderships, ReplicaManager.makeLeaders; from 3.0
// GroupMetadataManager.addLoadingPartition skips an owned partition,
// KAFKA-10614; from 4.0 CoordinatorRuntime.scheduleLoadOperation keeps an
// active coordinator). ksim reloaded it from the log, which forgot the
// rebalance and answered the members waiting in it NOT_COORDINATOR.
#include <catch2/catch.hpp>

#include <string>
#include <variant>
#include <vector>

#include "models/coordinator/group_coordinator.hpp"
#include "tests/support/coordinator_log.hpp"
#include "tests/support/fake_coordinator_host.hpp"

using namespace ksim;
using namespace ksim::models;

namespace {

struct ReelectionFixture {
  ReelectionFixture() : coordinator(host, config(), records, nullptr) {
    host.published = [this](const ModelEvent& e) {
      if (std::holds_alternative<GroupUnloaded>(e)) ++unloads;
    };
    coordinator.load(0, log);
    host.queue.run_until(0);
  }
  static GroupCoordinatorConfig config() {
    GroupCoordinatorConfig c;
    c.offsets_topic_num_partitions = 1;
    c.group_initial_rebalance_delay = 0;
    return c;
  }
  void send_join(const std::string& member, const std::string& client) {
    coordinator.handle(1, ksim::testing::classic_join_request(++correlation, member, client));
    host.queue.run_until(host.queue.now());  // the initial delay (0), then a join that can complete does
  }
  // The join responses sent since `mark`.
  std::vector<JoinGroupResponse> joins_since(std::size_t mark) const {
    std::vector<JoinGroupResponse> out;
    for (std::size_t i = mark; i < host.sent.size(); ++i) {
      if (const auto* r = dynamic_cast<const JoinGroupResponse*>(host.sent[i].get())) out.push_back(*r);
    }
    return out;
  }
  std::string member_id(const std::string& client) {
    const std::size_t mark = host.sent.size();
    send_join("", client);  // KIP-394: MEMBER_ID_REQUIRED with the id to use
    const auto answers = joins_since(mark);
    REQUIRE(answers.size() == 1);
    REQUIRE(answers[0].error == Error::MemberIdRequired);
    return answers[0].member_id;
  }

  ksim::testing::FakeCoordinatorHost<CoordinatorHost> host;
  CoordinatorRecordStore records;
  PartitionLog log;
  GroupCoordinator coordinator;
  std::int64_t correlation = 0;
  int unloads = 0;
};

}  // namespace

TEST_CASE("group coordinator: elected again while leading, it keeps a rebalance in progress and the joins it holds",
          "[coordinator][group-reelection]") {
  ReelectionFixture f;
  const std::string a = f.member_id("a");
  std::size_t mark = f.host.sent.size();
  f.send_join(a, "a");
  REQUIRE(f.joins_since(mark).size() == 1);  // generation 1: a alone
  REQUIRE(f.joins_since(mark)[0].generation == 1);

  // b joins: the group rebalances and holds b's join until a joins again.
  const std::string b = f.member_id("b");
  mark = f.host.sent.size();
  f.send_join(b, "b");
  REQUIRE(f.joins_since(mark).empty());

  f.coordinator.load(0, f.log);  // a new leader epoch, the same leader
  f.host.queue.run_until(f.host.queue.now() + milliseconds(100));
  CHECK(f.unloads == 0);
  CHECK(f.joins_since(mark).empty());  // b still waits (it was answered NOT_COORDINATOR)

  f.send_join(a, "a");
  const auto answers = f.joins_since(mark);
  REQUIRE(answers.size() == 2);
  for (const JoinGroupResponse& r : answers) {
    CHECK(r.error == Error::None);
    CHECK(r.generation == 2);
  }
}

TEST_CASE("group coordinator: a partition led again after another broker led it is loaded again",
          "[coordinator][group-reelection]") {
  ReelectionFixture f;
  const std::string a = f.member_id("a");
  f.send_join(a, "a");
  f.coordinator.unload(0);  // a follower meanwhile
  CHECK(f.unloads == 1);
  std::size_t mark = f.host.sent.size();
  f.send_join("", "c");
  REQUIRE(f.joins_since(mark).size() == 1);
  CHECK(f.joins_since(mark)[0].error == Error::NotCoordinator);
  f.coordinator.load(0, f.log);
  f.host.queue.run_until(f.host.queue.now() + milliseconds(100));
  CHECK(f.member_id("c") != "");  // answered by the coordinator again
}
