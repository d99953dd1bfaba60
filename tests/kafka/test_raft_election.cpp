// Elections of the KRaft quorum's Raft core, as Kafka's RaftEventSimulationTest
// has them (canElectInitialLeader, canElectNewLeaderAfterOldLeaderPartitionedAway),
// over many seeds and quorums of 1, 3 and 5 voters, with the invariants
// checked after every event (tests/support/raft_cluster.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tests/support/raft_cluster.hpp"

using namespace ksim;
using namespace ksim::testing;

TEST_CASE("raft: a quorum of 1, 3 or 5 voters elects one leader, which commits", "[raft]") {
  for (const RaftClusterOptions& run : raft_runs({1, 3, 5}, 100)) {
    INFO(run.describe());
    RaftCluster cluster(run);
    REQUIRE(cluster.run_until([&] { return cluster.has_consistent_leader(); }, seconds(10)));
    REQUIRE(cluster.commits(10));
    // One leader, every voter follows it in its epoch, and each told its host so.
    const RaftNodeId leader = *cluster.latest_leader();
    const Epoch epoch = cluster.node(leader).replica()->epoch();
    for (const RaftNodeId v : cluster.voters()) {
      CHECK(cluster.node(v).replica()->role() ==
            (v == leader ? models::RaftRole::Leader : models::RaftRole::Follower));
      CHECK(cluster.node(v).told_leader() == std::pair(leader, epoch));
    }
    CHECK(cluster.leader_history().size() >= 1);
    CHECK(cluster.final_check() == "");
  }
}

TEST_CASE("raft: a new leader is elected after the old one is partitioned away", "[raft]") {
  for (const RaftClusterOptions& run : raft_runs({3, 5}, 100)) {
    INFO(run.describe());
    RaftCluster cluster(run);
    REQUIRE(cluster.run_until([&] { return cluster.has_consistent_leader(); }, seconds(10)));
    REQUIRE(cluster.commits(10));
    const RaftNodeId old_leader = *cluster.latest_leader();
    const Epoch old_epoch = cluster.node(old_leader).replica()->epoch();
    cluster.partition({old_leader});
    std::vector<RaftNodeId> others;
    for (const RaftNodeId v : cluster.voters()) {
      if (v != old_leader) others.push_back(v);
    }
    const Offset target = cluster.max_high_watermark(others) + 20;
    REQUIRE(cluster.run_until([&] { return cluster.all_reached(target, others); }, cluster.sim.now() + seconds(30)));
    const RaftNodeId new_leader = *cluster.latest_leader();
    CHECK(new_leader != old_leader);
    CHECK(cluster.node(new_leader).replica()->epoch() > old_epoch);
    CHECK(cluster.final_check() == "");
  }
}

TEST_CASE("raft: a leader that resigns hands over to a follower at once (EndQuorumEpoch)", "[raft]") {
  for (const RaftClusterOptions& run : raft_runs({3, 5}, 100)) {
    INFO(run.describe());
    RaftCluster cluster(run);
    REQUIRE(cluster.commits(10));
    const RaftNodeId old_leader = *cluster.latest_leader();
    models::RaftReplica& r = *cluster.node(old_leader).replica();
    const Epoch old_epoch = r.epoch();
    cluster.act([&] {
      r.resign(old_epoch - 1);  // an older epoch: already over, nothing to do
      CHECK(r.role() == models::RaftRole::Leader);
      CHECK_FALSE(r.append(old_epoch - 1, {std::make_shared<SequenceRecord>(0)}));
      r.resign(old_epoch);
      CHECK(r.role() == models::RaftRole::Resigned);
      CHECK_FALSE(r.append(old_epoch, {std::make_shared<SequenceRecord>(0)}));
    });
    // Its followers stand after waits that double down its preferred successors (the first
    // at once, the next after 1000 ms >> (run.voters - 2), ...), not after their 2 s fetch
    // timeout. (The first may lose: the leader ranks them by the offsets they last fetched
    // at, and another may have received more since.)
    const SimTime resigned_at = cluster.sim.now();
    cluster.run_for(milliseconds(10));
    int standing = 0;
    for (const RaftNodeId v : cluster.voters()) standing += cluster.node(v).replica()->epoch() > old_epoch ? 1 : 0;
    CHECK(standing >= 1);
    REQUIRE(cluster.run_until([&] { return cluster.latest_leader() != old_leader; }, resigned_at + seconds(10)));
    CHECK(cluster.sim.now() - resigned_at <= milliseconds(1200));
    REQUIRE(cluster.run_until([&] { return cluster.has_consistent_leader(); }, cluster.sim.now() + seconds(10)));
    CHECK(cluster.node(old_leader).replica()->role() == models::RaftRole::Follower);
    CHECK(cluster.node(old_leader).told_leader().second > old_epoch);
    REQUIRE(cluster.commits(10));
    CHECK(cluster.final_check() == "");
  }
}

TEST_CASE("raft: a partitioned old leader cannot commit", "[raft]") {
  for (const RaftClusterOptions& run : raft_runs({3, 5}, 100)) {
    INFO(run.describe());
    RaftCluster cluster(run);
    REQUIRE(cluster.commits(10));
    const RaftNodeId old_leader = *cluster.latest_leader();
    models::RaftReplica& isolated = *cluster.node(old_leader).replica();
    const Epoch old_epoch = isolated.epoch();
    const FaultHandle cut = cluster.partition({old_leader});
    const Offset committed_at_cut = *isolated.high_watermark();
    const Offset end_at_cut = isolated.log().end_offset();
    // Until it resigns (no fetches from a majority for 1.5 x the fetch
    // timeout) it still takes appends, but its high watermark cannot move:
    // no majority fetches them.
    bool appended_while_isolated = false;
    bool resigned = false;
    const SimTime until = cluster.sim.now() + seconds(8);
    for (SimTime t = cluster.sim.now(); t < until; t += milliseconds(5)) {
      cluster.sim.run_until(t);
      CHECK(isolated.high_watermark().value_or(0) <= committed_at_cut);
      appended_while_isolated |= isolated.log().end_offset() > end_at_cut;
      resigned |= isolated.role() != models::RaftRole::Leader;
    }
    CHECK(appended_while_isolated);
    CHECK(resigned);  // LeaderState's check quorum
    // Nothing it appended in its epoch after the cut was committed anywhere, then or later.
    std::vector<std::uint64_t> orphans;
    for (Offset o = committed_at_cut; o < isolated.log().end_offset(); ++o) {
      const models::RaftEntry& e = isolated.log().at(o);
      if (e.epoch == old_epoch && !e.record->is_control()) {
        orphans.push_back(static_cast<const SequenceRecord&>(*e.record).value);
      }
    }
    CHECK(!orphans.empty());
    cluster.heal(cut);
    REQUIRE(cluster.commits(10));
    for (const auto& [offset, value] : cluster.committed()) {
      CHECK(std::find(orphans.begin(), orphans.end(), value) == orphans.end());
    }
    CHECK(isolated.stats().truncations > 0);  // it dropped them when it followed the new leader
    CHECK(cluster.final_check() == "");
  }
}

TEST_CASE("raft: one seed gives one history of leaders and one log", "[raft]") {
  struct Outcome {
    std::vector<RaftCluster::LeaderElected> leaders;
    std::vector<std::vector<std::tuple<Offset, Epoch, std::uint64_t>>> logs;  // every replica's
    std::uint64_t trace_hash = 0;  // the engine's: node starts and crashes, connections
    bool operator==(const Outcome&) const = default;
  };
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    INFO("seed " << seed);
    const auto run = [seed] {
      RaftCluster cluster({.voters = 5, .observers = 1, .seed = seed});
      cluster.run_for(seconds(3));
      const FaultHandle cut = cluster.partition({*cluster.latest_leader()});
      cluster.run_for(seconds(6));
      cluster.heal(cut);
      cluster.crash(*cluster.latest_leader(), CrashKind::Machine);
      cluster.run_for(seconds(6));
      Outcome outcome{cluster.leader_history(), {}, cluster.sim.trace().hash()};
      for (const RaftNodeId id : cluster.all()) {
        auto& log = outcome.logs.emplace_back();
        for (const models::RaftEntry& e : cluster.node(id).durable().log().entries()) {
          log.emplace_back(e.offset, e.epoch,
                           e.record->is_control() ? 0 : static_cast<const SequenceRecord&>(*e.record).value);
        }
      }
      return outcome;
    };
    const Outcome first = run();
    CHECK(first.leaders.size() >= 3);
    CHECK(first == run());
  }
}
