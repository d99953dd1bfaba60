// Replication of the KRaft metadata log: a partitioned minority with the old
// leader writes a tail nobody commits, the majority goes on, and after the
// partition heals the minority catches up and truncates that tail to the
// diverging epoch (Kafka's canMakeProgressIfMajorityIsReachable). Observers
// (brokers) fetch the log but count for nothing, and replay only what is committed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "tests/support/raft_cluster.hpp"

using namespace ksim;
using namespace ksim::testing;

namespace raft_replication_test {

std::uint64_t value_at(const models::RaftLog& log, Offset offset) {
  const models::RaftEntry& e = log.at(offset);
  return e.record->is_control() ? 0 : static_cast<const SequenceRecord&>(*e.record).value;
}

}  // namespace raft_replication_test

using raft_replication_test::value_at;

TEST_CASE("raft: a healed partition's minority catches up and truncates its uncommitted tail", "[raft]") {
  for (const RaftClusterOptions& run : raft_runs({3, 5}, 100)) {
    INFO(run.describe());
    RaftCluster cluster(run);
    REQUIRE(cluster.commits(10));
    // The minority: the leader and, with 5 run.voters, one follower.
    const RaftNodeId old_leader = *cluster.latest_leader();
    std::vector<RaftNodeId> minority{old_leader};
    std::vector<RaftNodeId> majority;
    for (const RaftNodeId v : cluster.voters()) {
      if (v == old_leader) continue;
      if (static_cast<int>(minority.size()) < run.voters / 2) minority.push_back(v);
      else majority.push_back(v);
    }
    const FaultHandle cut = cluster.partition(minority);
    const Offset target = cluster.max_high_watermark(cluster.voters()) + 30;
    REQUIRE(cluster.run_until([&] { return cluster.all_reached(target, majority); }, cluster.sim.now() + seconds(30)));
    CHECK(cluster.max_high_watermark(majority) > cluster.max_high_watermark(minority));
    // The old leader wrote past what was committed; none of it is committed.
    const models::RaftLog& old_log = cluster.node(old_leader).durable().log();
    const Offset minority_hw = cluster.high_watermark(old_leader);
    REQUIRE(old_log.end_offset() > minority_hw);
    const Offset tail_offset = old_log.end_offset() - 1;
    const Epoch tail_epoch = old_log.at(tail_offset).epoch;
    const std::uint64_t tail_value = value_at(old_log, tail_offset);

    cluster.heal(cut);
    const Offset caught_up = std::max(cluster.max_high_watermark(majority), tail_offset) + 10;
    REQUIRE(cluster.run_until([&] { return cluster.all_running_reached(caught_up); }, cluster.sim.now() + seconds(30)));
    for (const RaftNodeId m : minority) CHECK(cluster.node(m).replica()->stats().truncations > 0);
    // The offset of its last uncommitted entry now holds the new leaders' entry, everywhere.
    CHECK(old_log.at(tail_offset).epoch > tail_epoch);
    CHECK(cluster.committed().at(tail_offset) != tail_value);
    CHECK(cluster.final_check() == "");
  }
}

TEST_CASE("raft: an observer replays only committed entries", "[raft]") {
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    INFO("seed " << seed);
    RaftCluster cluster({.voters = 3, .observers = 2, .seed = seed});
    const std::vector<RaftNodeId> observers{3, 4};
    bool held_uncommitted = false;
    const auto check_observers = [&] {
      for (const RaftNodeId o : observers) {
        const models::RaftReplica& r = *cluster.node(o).replica();
        CHECK(r.is_voter() == false);
        CHECK(r.stats().elections_started == 0);
        // Everything it replayed is below its high watermark, which the leader's bounds.
        const Offset hw = r.high_watermark().value_or(0);
        std::size_t below = 0;
        for (Offset offset = 0; offset < hw; ++offset) below += r.log().at(offset).record->is_control() ? 0 : 1;
        CHECK(cluster.node(o).applied().size() == below);
        CHECK(hw <= cluster.leader_high_watermark().value_or(hw));
        held_uncommitted |= r.log().end_offset() > hw;
      }
    };
    REQUIRE(cluster.run_until([&] { return cluster.all_running_reached(20); }, seconds(20)));
    for (int step = 0; step < 100; ++step) {
      cluster.run_for(milliseconds(7));
      check_observers();
    }
    CHECK(held_uncommitted);  // it had fetched entries it did not replay yet
    for (const RaftNodeId o : observers) CHECK(cluster.node(o).replica()->role() == models::RaftRole::Follower);
    CHECK(cluster.final_check() == "");
  }
}

TEST_CASE("raft: observers' fetches do not count towards the high watermark", "[raft]") {
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    INFO("seed " << seed);
    RaftCluster cluster({.voters = 3, .observers = 2, .seed = seed});
    REQUIRE(cluster.commits(10));
    const RaftNodeId leader = *cluster.latest_leader();
    std::vector<RaftNodeId> followers;
    for (const RaftNodeId v : cluster.voters()) {
      if (v != leader) followers.push_back(v);
    }
    // The leader keeps its two observers but loses both other voters.
    const FaultHandle cut = cluster.partition(followers);
    models::RaftReplica& r = *cluster.node(leader).replica();
    const Offset hw_at_cut = r.high_watermark().value_or(0);
    const Offset end_at_cut = r.log().end_offset();
    const SimTime until = cluster.sim.now() + seconds(2);  // before its check quorum resigns it
    for (SimTime t = cluster.sim.now(); t < until; t += milliseconds(10)) {
      cluster.sim.run_until(t);
      CHECK(r.high_watermark().value_or(0) == hw_at_cut);
    }
    CHECK(r.log().end_offset() > end_at_cut + 20);
    // The observers fetched the new entries, and still replay none of them.
    for (const RaftNodeId o : {3, 4}) {
      CHECK(cluster.node(o).replica()->log().end_offset() > end_at_cut);
      CHECK(cluster.high_watermark(o) <= hw_at_cut);
    }
    cluster.heal(cut);
    REQUIRE(cluster.commits(10));
    CHECK(cluster.final_check() == "");
  }
}

// KIP-1166: the observer's fetch carries its high watermark, so the leader
// answers it as soon as its own passes it; before, a fetch at the log's end
// waited for the next records or the 500 ms max wait.
TEST_CASE("raft: with KIP-1166 an idle observer learns a commit at once, without it after the max wait",
          "[raft][kip631]") {
  for (const bool kip1166 : {true, false}) {
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      INFO((kip1166 ? "KIP-1166, seed " : "before KIP-1166, seed ") << seed);
      RaftClusterOptions options{.voters = 3, .observers = 1, .seed = seed};
      options.append_interval = seconds(2);  // one record every 2 s: idle between them
      options.config.fetch_carries_high_watermark = kip1166;
      RaftCluster cluster(options);
      REQUIRE(cluster.commits(1));
      // The first time the leader's, then the observer's, high watermark reached each offset.
      std::map<Offset, SimTime> leader_at, observer_at;
      const SimTime until = cluster.sim.now() + seconds(10);
      for (SimTime t = cluster.sim.now(); t < until; t += microseconds(500)) {
        cluster.sim.run_until(t);
        leader_at.try_emplace(cluster.leader_high_watermark().value_or(0), t);
        observer_at.try_emplace(cluster.high_watermark(3), t);
      }
      SimTime longest = 0;
      int commits = 0;
      for (const auto& [offset, at] : leader_at) {
        const auto seen = observer_at.lower_bound(offset);
        if (seen == observer_at.end() || offset == leader_at.begin()->first) continue;
        longest = std::max(longest, seen->second - at);
        ++commits;
      }
      REQUIRE(commits >= 3);
      if (kip1166) {
        CHECK(longest <= milliseconds(3));  // a message's trip, jitter and the step
      } else {
        CHECK(longest >= milliseconds(400));
        CHECK(longest <= milliseconds(510));
      }
      CHECK(cluster.final_check() == "");
    }
  }
}
