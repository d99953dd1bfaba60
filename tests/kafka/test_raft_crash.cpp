// Crashes of KRaft voters: a process crash keeps the metadata log (the page
// cache has it), a power loss keeps only what was flushed; either way the
// committed data stays (Kafka's canElectNewLeaderAfterOldLeaderFailure,
// canRecoverAfterAllNodesKilled, and MockLog.reopen's loss of unflushed data).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "tests/support/raft_cluster.hpp"

using namespace ksim;
using namespace ksim::testing;

namespace raft_crash_test {

// A log as (offset, epoch, sequence number) rows.
std::vector<std::tuple<Offset, Epoch, std::uint64_t>> rows(const models::RaftLog& log) {
  std::vector<std::tuple<Offset, Epoch, std::uint64_t>> out;
  for (const models::RaftEntry& e : log.entries()) {
    out.emplace_back(e.offset, e.epoch, e.record->is_control() ? 0 : static_cast<const SequenceRecord&>(*e.record).value);
  }
  return out;
}

// A slow disk (8 ms an fsync) under a busy leader (an append every 3 ms): a power loss finds entries unflushed.
RaftClusterOptions slow_disk(RaftClusterOptions run) {
  run.config.fsync_latency = milliseconds(8);
  run.append_interval = milliseconds(3);
  return run;
}

// Every voter crashes in the same instant.
void crash_all(RaftCluster& cluster, CrashKind kind) {
  cluster.act([&] {
    for (const RaftNodeId v : cluster.voters()) cluster.node(v).crash(kind);
  });
}

}  // namespace raft_crash_test

using raft_crash_test::crash_all;
using raft_crash_test::rows;
using raft_crash_test::slow_disk;

TEST_CASE("raft: a voter restarted after a process crash keeps its log", "[raft]") {
  for (const RaftClusterOptions& run : raft_runs({1, 3, 5}, 100)) {
    INFO(run.describe());
    RaftCluster cluster(run);
    REQUIRE(cluster.commits(10));
    // The leader on odd seeds, a follower on even ones.
    const RaftNodeId leader = *cluster.latest_leader();
    const RaftNodeId victim = run.seed % 2 == 1 || run.voters == 1 ? leader : (leader + 1) % run.voters;
    std::vector<std::tuple<Offset, Epoch, std::uint64_t>> before;
    cluster.act([&] {
      before = rows(cluster.node(victim).durable().log());
      cluster.node(victim).crash(CrashKind::Process);
    });
    CHECK(rows(cluster.node(victim).durable().log()) == before);
    cluster.run_for(milliseconds(300));
    cluster.restart(victim);
    // A leader restarted before the others' fetch timeout (2 s) starts Resigned in its epoch.
    if (victim == leader && run.voters > 1) CHECK(cluster.node(victim).replica()->role() == models::RaftRole::Resigned);
    // It has all it had (a single voter has just added its new epoch's LeaderChange record).
    const auto after = rows(cluster.node(victim).durable().log());
    REQUIRE(after.size() >= before.size());
    CHECK(std::equal(before.begin(), before.end(), after.begin()));
    REQUIRE(cluster.commits(20));
    CHECK(cluster.final_check() == "");
  }
}

TEST_CASE("raft: a majority restarted after every voter crashed goes on", "[raft]") {
  for (const RaftClusterOptions& run : raft_runs({1, 3, 5}, 100)) {
    INFO(run.describe());
    RaftCluster cluster(run);
    REQUIRE(cluster.commits(10));
    crash_all(cluster, CrashKind::Process);
    cluster.run_for(seconds(1));
    for (int i = 0; i < cluster.majority(); ++i) cluster.restart(cluster.voters()[static_cast<std::size_t>(i)]);
    REQUIRE(cluster.commits(10));
    CHECK(cluster.final_check() == "");
  }
}

TEST_CASE("raft: a power loss loses only unflushed entries, and the committed data stays", "[raft]") {
  std::uint64_t lost = 0;
  for (const RaftClusterOptions& run : raft_runs({3, 5}, 100)) {
    INFO(run.describe());
    RaftCluster cluster(slow_disk(run));
    REQUIRE(cluster.commits(10));
    // At a random moment, the leader or a follower loses power.
    cluster.run_for(microseconds(static_cast<std::int64_t>(run.seed * 997 % 20'000)));
    const RaftNodeId leader = *cluster.latest_leader();
    const RaftNodeId victim = run.seed % 2 == 1 ? leader : (leader + 1) % run.voters;
    const models::RaftLog& log = cluster.node(victim).durable().log();
    std::vector<std::tuple<Offset, Epoch, std::uint64_t>> flushed;
    std::size_t before = 0;
    cluster.act([&] {
      flushed = rows(log);
      before = flushed.size();
      flushed.resize(static_cast<std::size_t>(log.flushed_end_offset()));
      cluster.node(victim).crash(CrashKind::Machine);
    });
    CHECK(rows(log) == flushed);  // exactly the flushed prefix
    lost += before - flushed.size();
    cluster.run_for(milliseconds(500));
    cluster.restart(victim);
    REQUIRE(cluster.commits(20));
    CHECK(cluster.final_check() == "");
  }
  CHECK(lost > 0);  // some power losses did take unflushed entries
}

TEST_CASE("raft: every voter losing power at once loses nothing committed", "[raft]") {
  for (const RaftClusterOptions& run : raft_runs({1, 3, 5}, 100)) {
    INFO(run.describe());
    RaftCluster cluster(slow_disk(run));
    REQUIRE(cluster.commits(20));
    cluster.run_for(microseconds(static_cast<std::int64_t>(run.seed * 997 % 20'000)));
    const auto committed = cluster.committed();
    crash_all(cluster, CrashKind::Machine);
    cluster.run_for(seconds(1));
    for (const RaftNodeId v : cluster.voters()) cluster.restart(v);
    REQUIRE(cluster.commits(10));
    // Whatever any replica replayed as committed before is still at its offset in the new leader's log.
    const auto log = rows(cluster.node(*cluster.latest_leader()).durable().log());
    for (const auto& [offset, value] : committed) {
      REQUIRE(offset < static_cast<Offset>(log.size()));
      CHECK(std::get<2>(log[static_cast<std::size_t>(offset)]) == value);
    }
    CHECK(cluster.final_check() == "");
  }
}
