// The Raft core under random faults, as a swarm: each seed draws the quorum's
// size, the disk's fsync latency, whether the voters pre-vote (KIP-996) and a
// schedule of partitions, process crashes, power losses and pauses. During the
// faults (the safety phase) the invariants hold after every event; once every fault is undone (the
// liveness phase) every replica catches up, and the committed data agrees.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "tests/support/raft_cluster.hpp"

using namespace ksim;
using namespace ksim::testing;

namespace raft_nemesis_test {

struct Faults {
  std::map<FaultHandle, bool> cuts;
  std::vector<RaftNodeId> down;
  std::vector<RaftNodeId> paused;
};

// One random fault, or the undoing of one.
void strike(RaftCluster& cluster, RandomStream& rng, Faults& faults) {
  const auto pick = [&](int n) { return static_cast<RaftNodeId>(rng.below(static_cast<std::uint64_t>(n))); };
  const RaftNodeId victim = pick(cluster.size());
  switch (rng.below(8)) {
    case 0:
    case 1: {  // cut a random side off
      std::vector<RaftNodeId> side;
      for (const RaftNodeId id : cluster.all()) {
        if (rng.bernoulli(0.4)) side.push_back(id);
      }
      if (!side.empty()) faults.cuts[cluster.partition(side)] = true;
      break;
    }
    case 2:  // heal every cut
      for (const auto& [cut, on] : faults.cuts) cluster.heal(cut);
      faults.cuts.clear();
      break;
    case 3:
    case 4:  // a crash, of the process or of the machine
      if (cluster.node(victim).replica()) {
        cluster.crash(victim, rng.bernoulli(0.5) ? CrashKind::Process : CrashKind::Machine);
        faults.down.push_back(victim);
      }
      break;
    case 5:  // the longest-down node comes back
      if (!faults.down.empty()) {
        cluster.restart(faults.down.front());
        faults.down.erase(faults.down.begin());
      }
      break;
    case 6:  // a GC-like pause
      if (cluster.node(victim).is_running()) {
        cluster.pause(victim);
        faults.paused.push_back(victim);
      }
      break;
    case 7:
      for (const RaftNodeId id : faults.paused) cluster.resume(id);
      faults.paused.clear();
      break;
  }
}

void heal_all(RaftCluster& cluster, Faults& faults) {
  for (const auto& [cut, on] : faults.cuts) cluster.heal(cut);
  for (const RaftNodeId id : faults.paused) cluster.resume(id);
  for (const RaftNodeId id : faults.down) cluster.restart(id);
  faults = {};
}

}  // namespace raft_nemesis_test

TEST_CASE("raft: random partitions, crashes, power losses and pauses keep the invariants", "[raft]") {
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    RandomStream rng = RandomStream::derive(seed, "raft-nemesis");
    RaftClusterOptions options{.voters = rng.bernoulli(0.5) ? 3 : 5, .observers = 1, .seed = seed};
    const SimTime fsyncs[] = {0, milliseconds(1), milliseconds(8)};
    options.config.fsync_latency = fsyncs[rng.below(3)];
    options.append_interval = milliseconds(static_cast<std::int64_t>(2 + rng.below(30)));
    // KIP-996 on half the seeds, from a stream of its own: the fault schedules stay those of before.
    options.config.pre_vote = RandomStream::derive(seed, "raft-nemesis-kip996").bernoulli(0.5);
    INFO("seed " << seed << ", voters " << options.voters << ", fsync " << to_milliseconds(options.config.fsync_latency)
                 << " ms, append every " << to_milliseconds(options.append_interval) << " ms"
                 << (options.config.pre_vote ? ", pre-vote" : ""));
    RaftCluster cluster(options);
    raft_nemesis_test::Faults faults;
    cluster.run_for(seconds(3));
    // Safety: thirty faults or undoings, 0.1 to 2 s apart.
    for (int i = 0; i < 30; ++i) {
      raft_nemesis_test::strike(cluster, rng, faults);
      cluster.run_for(milliseconds(100 + static_cast<std::int64_t>(rng.below(1'900))));
    }
    // Liveness: every fault undone, every replica catches up.
    raft_nemesis_test::heal_all(cluster, faults);
    const Offset target = cluster.max_high_watermark(cluster.all()) + 10;
    CHECK(cluster.run_until([&] { return cluster.all_running_reached(target); }, cluster.sim.now() + seconds(60)));
    CHECK(cluster.final_check() == "");
  }
}
