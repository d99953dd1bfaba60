// KIP-996's pre-vote in the Raft core (RaftConfig::pre_vote, Kafka 4.0+):
// ProspectiveState, a Vote with PreVote=true that no voter records, a
// follower that still fetches from its leader saying no, and a voter cut off
// from the quorum that no longer raises its epoch (and, when it returns,
// forces no election). Without KIP-996 the same runs show what Kafka 3.x does.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <vector>

#include "tests/support/raft_cluster.hpp"

using namespace ksim;
using namespace ksim::testing;

namespace raft_prevote_test {

RaftClusterOptions with_pre_vote(int voters, std::uint64_t seed, bool pre_vote) {
  RaftClusterOptions options{.voters = voters, .seed = seed};
  options.config.pre_vote = pre_vote;
  return options;
}

// A pre-vote (or a vote) from `from`, as up to date as `to`'s log, in `to`'s epoch.
std::unique_ptr<models::VoteRequest> vote_like(const models::RaftReplica& to, RaftNodeId from, bool pre_vote) {
  auto request = std::make_unique<models::VoteRequest>();
  request->source = from;
  request->correlation_id = 1'000'000;  // the response is not one `from` waits for
  request->candidate_epoch = to.epoch() + (pre_vote ? 0 : 1);
  request->pre_vote = pre_vote;
  request->last_offset_epoch = to.log().last_epoch();
  request->last_offset = to.log().end_offset();
  return request;
}

std::vector<RaftNodeId> followers_of(RaftCluster& cluster, RaftNodeId leader) {
  std::vector<RaftNodeId> out;
  for (const RaftNodeId v : cluster.voters()) {
    if (v != leader) out.push_back(v);
  }
  return out;
}

}  // namespace raft_prevote_test

using raft_prevote_test::followers_of;
using raft_prevote_test::vote_like;
using raft_prevote_test::with_pre_vote;

TEST_CASE("raft: a follower fetching from a live leader rejects a pre-vote, and a granted pre-vote changes no voter",
          "[raft][prevote]") {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    INFO("seed " << seed);
    RaftCluster cluster(with_pre_vote(3, seed, true));
    REQUIRE(cluster.commits(10));
    const RaftNodeId leader = *cluster.latest_leader();
    const std::vector<RaftNodeId> followers = followers_of(cluster, leader);
    models::RaftReplica& follower = *cluster.node(followers[0]).replica();
    models::RaftReplica& other = *cluster.node(followers[1]).replica();
    REQUIRE(follower.role() == models::RaftRole::Follower);
    const models::RaftElection before = cluster.node(followers[0]).durable().election();
    const models::RaftReplicaStats at_start = follower.stats();  // it granted pre-votes in the first election
    // FollowerState.canGrantVote: it has fetched from its leader, so no, however up to date.
    cluster.act([&] { follower.handle(*vote_like(follower, other.id(), true)); });
    CHECK(follower.stats().pre_votes_rejected == at_start.pre_votes_rejected + 1);
    CHECK(follower.stats().pre_votes_granted == at_start.pre_votes_granted);
    // The leader rejects pre-votes too.
    models::RaftReplica& lead = *cluster.node(leader).replica();
    const std::uint64_t lead_rejected = lead.stats().pre_votes_rejected;
    cluster.act([&] { lead.handle(*vote_like(lead, other.id(), true)); });
    CHECK(lead.stats().pre_votes_rejected == lead_rejected + 1);
    CHECK(follower.role() == models::RaftRole::Follower);
    CHECK(cluster.node(followers[0]).durable().election() == before);

    // Cut the follower off: once its fetch timeout passes it is Prospective
    // (its own pre-votes reach no one), and grants a pre-vote without recording anything.
    cluster.partition({followers[0]});
    REQUIRE(cluster.run_until([&] { return follower.role() == models::RaftRole::Prospective; },
                              cluster.sim.now() + seconds(5)));
    const models::RaftElection prospective = cluster.node(followers[0]).durable().election();
    CHECK(prospective == before);  // a soft state: the leader it knew, in the same epoch
    const std::uint64_t granted = follower.stats().pre_votes_granted;
    cluster.act([&] { follower.handle(*vote_like(follower, other.id(), true)); });
    CHECK(follower.stats().pre_votes_granted == granted + 1);
    CHECK(follower.role() == models::RaftRole::Prospective);
    CHECK(cluster.node(followers[0]).durable().election() == prospective);  // no vote, no epoch
    CHECK(cluster.final_check() == "");
  }
}

TEST_CASE("raft: a prospective becomes a candidate only with a majority of pre-votes, and the new epoch is one more",
          "[raft][prevote]") {
  for (const RaftClusterOptions& base : raft_runs({3, 5}, 20)) {
    const RaftClusterOptions run = with_pre_vote(base.voters, base.seed, true);
    INFO(run.describe());
    RaftCluster cluster(run);
    REQUIRE(cluster.commits(10));
    const RaftNodeId old_leader = *cluster.latest_leader();
    const Epoch old_epoch = cluster.node(old_leader).replica()->epoch();
    cluster.partition({old_leader});
    const std::vector<RaftNodeId> others = followers_of(cluster, old_leader);
    std::vector<std::uint64_t> prospective_before;
    for (const RaftNodeId v : others) prospective_before.push_back(cluster.node(v).replica()->stats().prospective);
    const Offset target = cluster.max_high_watermark(others) + 20;
    REQUIRE(cluster.run_until([&] { return cluster.all_reached(target, others); }, cluster.sim.now() + seconds(30)));
    const RaftNodeId new_leader = *cluster.latest_leader();
    CHECK(new_leader != old_leader);
    // Every candidacy on the majority's side followed a pre-vote won, and raised the epoch by one.
    // (Counted from the start: the first election was one too.)
    std::uint64_t candidacies = 0;
    std::uint64_t won = 0;
    for (const RaftNodeId v : others) {
      const models::RaftReplicaStats& s = cluster.node(v).replica()->stats();
      CHECK(s.pre_votes_won == s.elections_started);
      candidacies += s.elections_started;
      won += s.pre_votes_won;
    }
    CHECK(candidacies >= 1);
    CHECK(won == candidacies);
    const auto at = static_cast<std::size_t>(std::find(others.begin(), others.end(), new_leader) - others.begin());
    CHECK(cluster.node(new_leader).replica()->stats().prospective > prospective_before.at(at));
    CHECK(cluster.node(new_leader).replica()->epoch() <= old_epoch + static_cast<Epoch>(candidacies));
    CHECK(cluster.final_check() == "");
  }
}

// The cut-off voter: with KIP-996 its pre-votes reach no one, so it never
// stands and keeps its epoch; when it returns it follows the same leader.
// Without, it raises its epoch at every election timeout, and its return
// forces an election.
TEST_CASE("raft: a partitioned follower raises its epoch without pre-vote only, and only then disturbs the leader",
          "[raft][prevote]") {
  for (const bool pre_vote : {true, false}) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      INFO((pre_vote ? "KIP-996, seed " : "before KIP-996, seed ") << seed);
      RaftCluster cluster(with_pre_vote(3, seed, pre_vote));
      REQUIRE(cluster.commits(10));
      const RaftNodeId leader = *cluster.latest_leader();
      const Epoch epoch = cluster.node(leader).replica()->epoch();
      const RaftNodeId cut_off = followers_of(cluster, leader)[0];
      const models::RaftReplica& isolated = *cluster.node(cut_off).replica();
      const std::size_t leaders = cluster.leader_history().size();
      const FaultHandle cut = cluster.partition({cut_off});
      cluster.run_for(seconds(15));
      if (pre_vote) {
        CHECK(isolated.epoch() == epoch);
        CHECK(isolated.stats().elections_started == 0);
        CHECK(isolated.stats().prospective >= 2);  // it asked, in vain, every fetch timeout and election timeout
      } else {
        CHECK(isolated.epoch() >= epoch + 3);  // one per election timeout (1 to 2 s) after the fetch timeout
      }
      CHECK(cluster.node(leader).replica()->role() == models::RaftRole::Leader);  // the majority kept its leader
      cluster.heal(cut);
      REQUIRE(cluster.commits(20));
      const RaftNodeId leader_after = *cluster.latest_leader();
      const Epoch epoch_after = cluster.node(leader_after).replica()->epoch();
      if (pre_vote) {
        CHECK(leader_after == leader);
        CHECK(epoch_after == epoch);
        CHECK(cluster.leader_history().size() == leaders);
      } else {
        CHECK(epoch_after > epoch);  // its epoch made the leader step down
        CHECK(cluster.leader_history().size() > leaders);
      }
      CHECK(cluster.node(cut_off).replica()->role() == models::RaftRole::Follower);
      CHECK(cluster.final_check() == "");
    }
  }
}

// KIP-996's leader side, which ksim had already (LeaderState's check quorum):
// a leader cut off from the majority resigns; with pre-vote it moves to the
// next epoch once (pollResigned) and never further, so on its return it just follows.
TEST_CASE("raft: a partitioned leader resigns, and with pre-vote rejoins without another election",
          "[raft][prevote]") {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    INFO("seed " << seed);
    RaftCluster cluster(with_pre_vote(3, seed, true));
    REQUIRE(cluster.commits(10));
    const RaftNodeId old_leader = *cluster.latest_leader();
    const models::RaftReplica& isolated = *cluster.node(old_leader).replica();
    const std::uint64_t elections = isolated.stats().elections_started;
    const Epoch old_epoch = isolated.epoch();
    const FaultHandle cut = cluster.partition({old_leader});
    cluster.run_for(seconds(15));
    CHECK(isolated.stats().resignations == 1);
    CHECK(isolated.stats().elections_started == elections);  // it only asked for pre-votes
    CHECK(isolated.epoch() == old_epoch + 1);                 // pollResigned: the next epoch, once
    const RaftNodeId new_leader = *cluster.latest_leader();
    REQUIRE(new_leader != old_leader);
    const Epoch new_epoch = cluster.node(new_leader).replica()->epoch();
    CHECK(isolated.epoch() <= new_epoch);
    const std::size_t leaders = cluster.leader_history().size();
    cluster.heal(cut);
    REQUIRE(cluster.commits(20));
    CHECK(*cluster.latest_leader() == new_leader);
    CHECK(cluster.node(new_leader).replica()->epoch() == new_epoch);
    CHECK(cluster.leader_history().size() == leaders);
    CHECK(cluster.final_check() == "");
  }
}
