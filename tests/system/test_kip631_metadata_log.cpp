// KIP-631: with a controller quorum the brokers fetch the metadata log as
// observers of the quorum (models/broker/broker_metadata_log.cpp) instead of
// the controller pushing it: a change reaches a broker only once committed
// and fetched; a restarted broker is unfenced only once it has caught up with
// its registration; a broker cut off from the controllers acts on stale
// metadata until the cut heals.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/harness/cluster.hpp"
#include "tests/support/scenario_runner.hpp"

using namespace ksim;
using namespace ksim::app;

namespace {

// Three controllers and three brokers on one switch: a message takes 2 ms
// each way (two 1 ms links), an RTT of 4 ms.
const std::string kQuorum = R"(
duration: 20s
drain: 5s
network: {host_link: {latency: 1ms}}
brokers: {count: 3}
controllers: {count: 3}
topics: [{name: t, partitions: 6, replication_factor: 3, config: {min.insync.replicas: 2}}]
producers:
  - {name: p, rate: 200/s, record_size: 100B, start: 2s}
)";
constexpr SimTime kOneWay = milliseconds(2);
constexpr SimTime kLinger = milliseconds(25);  // controller.quorum.append.linger.ms
constexpr SimTime kFsync = milliseconds(1);    // the controllers' fsync_latency

// When the active controller elected each (partition, epoch), and when each
// broker but `restarted` (whose new process replays old elections) applied it.
struct ElectionTimes {
  std::map<std::pair<models::TopicPartition, models::Epoch>, SimTime> elected;
  std::vector<SimTime> delays;  // from the election to a broker becoming leader or follower in that epoch
};

void watch_elections(Cluster& cluster, ElectionTimes& times, const std::string& restarted) {
  cluster.model_events()->subscribe([&times, restarted](SimTime now, const Node& from, const models::ModelEvent& event) {
    if (const auto* e = std::get_if<models::LeaderElected>(&event)) times.elected[{e->partition, e->epoch}] = now;
    if (from.name() == restarted) return;
    const auto applied = [&](models::TopicPartition tp, models::Epoch epoch) {
      const auto it = times.elected.find({tp, epoch});
      if (it != times.elected.end()) times.delays.push_back(now - it->second);
    };
    if (const auto* e = std::get_if<models::BecameLeader>(&event)) applied(e->partition, e->epoch);
    if (const auto* e = std::get_if<models::BecameFollower>(&event)) applied(e->partition, e->epoch);
  });
}

models::QuorumStats quorum_stats(const Cluster& cluster) {
  return cluster.controller()->quorum_stats(cluster.sim().now());
}

}  // namespace

TEST_CASE("kip631: a broker applies a leader change only once committed and fetched: about one round trip after "
          "the commit, when idle",
          "[kip631][quorum]") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    // broker-2 stops cleanly at 8 s: its leaderships move, in one batch of elections.
    const Scenario s = testing::parse_scenario(kQuorum + "seed: " + std::to_string(seed) +
                                               "\nfaults: [{kind: shutdown, nodes: [broker-2], at: 8s, duration: 4s}]\n");
    Cluster cluster(s, RunOptions{});
    ElectionTimes times;
    watch_elections(cluster, times, "broker-2");
    cluster.run();
    REQUIRE(times.elected.size() >= 2);
    REQUIRE(!times.delays.empty());
    // Decided, written after the append linger, committed once the voters
    // fetched and flushed it, then fetched by the brokers: never at once.
    const SimTime earliest = *std::min_element(times.delays.begin(), times.delays.end());
    const SimTime latest = *std::max_element(times.delays.begin(), times.delays.end());
    CHECK(earliest >= kLinger + 2 * kOneWay);
    CHECK(latest <= kLinger + 4 * kOneWay + kFsync + milliseconds(3));
    // From the commit on the active controller to a broker applying it: the
    // broker's fetch held by the leader is answered as its high watermark
    // moves (KIP-1166), one way; or, when it arrives after, a round trip.
    const models::QuorumStats q = quorum_stats(cluster);
    REQUIRE(q.metadata_lag.batches > 0);
    CHECK(q.metadata_lag.total > 0);
    CHECK(q.metadata_lag.max <= 2 * kOneWay + kFsync + milliseconds(1));
    REQUIRE(q.metadata_lag_by_broker.size() == 3);
    for (const auto& lag : q.metadata_lag_by_broker) CHECK(lag.batches > 0);
  }
}

TEST_CASE("kip631: before KIP-1166 a broker at the log's end learns a commit only with the next records or after "
          "the leader's 500 ms fetch wait",
          "[kip631][quorum]") {
  const Scenario s = testing::parse_scenario(
      kQuorum + "kips: {KIP-1166: off}\nfaults: [{kind: shutdown, nodes: [broker-2], at: 8s, duration: 4s}]\n");
  Cluster cluster(s, RunOptions{});
  cluster.run();
  const models::QuorumStats q = quorum_stats(cluster);
  REQUIRE(q.metadata_lag.batches > 0);
  CHECK(q.metadata_lag.max > milliseconds(100));
  CHECK(q.metadata_lag.max <= milliseconds(500) + 2 * kOneWay + milliseconds(1));
}

TEST_CASE("kip631: a restarted broker is unfenced only once it has caught up with the metadata log", "[kip631][quorum]") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    // broker-1 loses power at 6 s (its unflushed metadata log with it) and is back at 8 s.
    const Scenario s = testing::parse_scenario(
        kQuorum + "seed: " + std::to_string(seed) +
        "\nfaults: [{kind: crash, nodes: [broker-1], at: 6s, duration: 2s, power_loss: true}]\n");
    Cluster cluster(s, RunOptions{});
    std::optional<SimTime> unfenced, first_applied;
    models::Offset first_applied_to = -1;
    cluster.model_events()->subscribe([&](SimTime now, const Node&, const models::ModelEvent& event) {
      if (now < seconds(8)) return;
      if (const auto* e = std::get_if<models::BrokerUnfenced>(&event); e && e->broker == 1 && !unfenced) unfenced = now;
      if (const auto* e = std::get_if<models::MetadataApplied>(&event); e && e->broker == 1 && !first_applied) {
        first_applied = now;
        first_applied_to = e->to;
        CHECK(e->from == 0);  // the whole log replayed: its copy was lost with the power
        CHECK(e->since == now);  // its first publish: what was committed before is caught up with, not lag
      }
    });
    cluster.run();
    REQUIRE(first_applied);
    REQUIRE(unfenced);
    // It registered, fetched the log up to its registration and applied it,
    // then asked to be unfenced (BrokerLifecycleManager: STARTING, RECOVERY, RUNNING).
    CHECK(*first_applied < *unfenced);
    CHECK(*unfenced - seconds(8) < milliseconds(200));
    CHECK(first_applied_to > 0);
    const models::Broker& broker = *cluster.brokers()[1];
    CHECK(broker.applied_metadata_offset() == cluster.controller()->controllers().front()->committed().end_offset);
  }
}

TEST_CASE("kip631: a broker cut off from the controllers keeps acting on stale metadata and catches up when the cut "
          "heals",
          "[kip631][quorum]") {
  // broker-0 cannot reach any controller from 5 s to 20 s; brokers and clients still reach it.
  const Scenario s = testing::parse_scenario(
      kQuorum + "faults: [{kind: partition, nodes: [broker-0], other_nodes: [controller-0, controller-1, controller-2], "
                "at: 5s, duration: 15s}]\n");
  Cluster cluster(s, RunOptions{});
  const models::Broker& cut = *cluster.brokers()[0];
  models::Offset applied_before_cut = -1;
  std::size_t stale_leaderships = 0;
  bool behind_during_cut = false;
  cluster.sim().events().schedule_at(seconds(5), [&] { applied_before_cut = cut.applied_metadata_offset(); });
  cluster.sim().events().schedule_at(seconds(19), [&] {
    // Fenced after broker.session.timeout.ms (9 s), its leaderships moved: it has not heard.
    const auto& committed = cluster.controller()->partitions();
    for (const auto& [tp, state] : committed) {
      if (cut.is_leader(tp) && state.leader != 0) ++stale_leaderships;
    }
    behind_during_cut = cut.applied_metadata_offset() == applied_before_cut &&
                        cut.applied_metadata_offset() < cluster.controller()->controllers().front()->committed().end_offset;
  });
  cluster.run();
  CHECK(applied_before_cut > 0);
  CHECK(behind_during_cut);
  CHECK(stale_leaderships > 0);
  // After the heal it fetched what it missed: the same partition states as the controllers'.
  CHECK(cut.applied_metadata_offset() == cluster.controller()->controllers().front()->committed().end_offset);
  for (const auto& [tp, state] : cluster.controller()->partitions()) {
    const auto mine = cut.partition_state(tp);
    REQUIRE(mine);
    CHECK(mine->leader == state.leader);
    CHECK(mine->leader_epoch == state.leader_epoch);
  }
  CHECK(quorum_stats(cluster).metadata_lag_by_broker[0].max > seconds(5));  // what it fetched after the heal
}

TEST_CASE("kip631: the quorum failover scenario and chaos keep their verdicts over several seeds, with the brokers' "
          "metadata lag reported",
          "[kip631][quorum][scenarios]") {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    INFO("seed " << seed);
    const testing::ScenarioRun failover = testing::run_scenario("kraft-quorum-failover", seed);
    CHECK(failover.status == kExitOk);
    CHECK(failover.report["delivery"]["verdict"] == "exactly-once");
    const auto& quorum = failover.report["controller"]["quorum"];
    CHECK(quorum["metadata_batches_applied"].get<std::uint64_t>() > 0);
    CHECK(quorum["metadata_lag_mean_ms"].get<double>() > 0);
    CHECK(quorum["metadata_lag_max_ms"].get<double>() >= quorum["metadata_lag_mean_ms"].get<double>());
    CHECK(quorum["metadata_lag_by_broker"].size() == 3);
    const testing::ScenarioRun chaos =
        testing::run_scenario("chaos", seed,
                              {"controllers.count=3", "nemesis.partition.targets=[brokers, controllers]",
                               "nemesis.crash.targets=[brokers, controllers]"});
    INFO(chaos.report["expectations"].dump());
    CHECK(chaos.status == kExitOk);
    CHECK(chaos.report["invariant_violations"] == 0);
  }
  // Without a quorum the controller pushes: nothing to measure, and a bound on the lag fails.
  const testing::ScenarioRun alone =
      testing::run_scenario("kraft-quorum-failover", 1, {"controllers.count=1", "expect.max_metadata_lag=1s"});
  CHECK(alone.report["controller"]["quorum"]["metadata_lag_max_ms"].is_null());
  CHECK(!alone.report["controller"]["quorum"].contains("metadata_lag_by_broker"));
}
