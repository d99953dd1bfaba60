// The consumer with manually assigned partitions, and the consumption checker.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <sstream>

#include "app/harness/cluster.hpp"
#include "app/report/report.hpp"
#include "app/scenario/config_reader.hpp"
#include "tests/support/scenario_runner.hpp"

using namespace ksim;
using namespace ksim::app;
using ksim::testing::run_inline;

namespace {

const std::string kCluster = R"(
duration: 10s
drain: 10s
network: {racks: [a, b, c]}
brokers: {count: 3}
topics: [{name: t, partitions: 4, replication_factor: 3, config: {min.insync.replicas: 2}}]
producers:
  - {name: p, topic: t, rate: 1000/s, record_size: 200B, start: 1s}
consumers:
  - {name: reader, topic: t, config: {auto.offset.reset: earliest}, processing_time: 100us}
)";

const models::ConsumptionReport& reader(const RunReport& r) { return r.kafka->groups.at(0).report; }

}  // namespace

TEST_CASE("a consumer processes every committed record once, in order", "[consumer]") {
  const RunReport r = run_inline(kCluster);
  CHECK(reader(r).committed > 8000);
  CHECK(reader(r).processed == reader(r).committed);
  CHECK(reader(r).exactly_once());
}

TEST_CASE("without committed offsets, a restarted consumer reads again from auto.offset.reset", "[consumer]") {
  const std::string crash = "faults: [{kind: crash, at: 6s, duration: 1s, nodes: [reader-0]}]\n";
  const std::vector<std::string> no_commits{"consumers.0.config[enable.auto.commit]=false",
                                            "consumers.0.config[session.timeout.ms]=6s",
                                            "consumers.0.config[heartbeat.interval.ms]=2s"};
  const RunReport earliest = run_inline(kCluster + crash, 1, no_commits);
  CHECK(reader(earliest).duplicated > 3000);  // everything before the crash, again
  CHECK(reader(earliest).unprocessed == 0);
  CHECK(reader(earliest).at_least_once());
  CHECK_FALSE(reader(earliest).at_most_once());

  std::vector<std::string> latest_reset = no_commits;
  latest_reset.push_back("consumers.0.config[auto.offset.reset]=latest");
  const RunReport latest = run_inline(kCluster + crash, 1, latest_reset);
  CHECK(reader(latest).unprocessed > 500);  // what was produced while it was down
  CHECK(reader(latest).duplicated == 0);
  CHECK_FALSE(reader(latest).at_least_once());
}

TEST_CASE("with auto-commit, a restarted member resumes from its group's committed offsets", "[consumer]") {
  const std::string crash = "faults: [{kind: crash, at: 6s, duration: 1s, nodes: [reader-0]}]\n";
  const RunReport r = run_inline(kCluster + crash, 1, {"consumers.0.config[session.timeout.ms]=6s",
                                                      "consumers.0.config[heartbeat.interval.ms]=2s"});
  CHECK(reader(r).unprocessed == 0);
  CHECK(reader(r).duplicated > 0);      // what it processed after the last auto-commit
  CHECK(reader(r).duplicated < 5500);   // at most auto.commit.interval.ms (5s) of records at 1000/s, plus a poll
  CHECK(reader(r).crashes == 1);
}

TEST_CASE("a consumer never sees records above the high watermark, even with acks=1 and leader crashes",
          "[consumer]") {
  const std::string yaml = R"(
duration: 12s
drain: 20s
network: {racks: [a, b, c], jitter: {distribution: lognormal, median: 200us, sigma: 1.0}}
brokers: {count: 3}
topics: [{name: t, partitions: 1, replication_factor: 3, assignment: [[0, 1, 2]]}]
producers:
  - {name: p, topic: t, rate: 20000/s, record_size: 200B, start: 2s, defaults: pre-3.0}
consumers:
  - {name: reader, topic: t, config: {auto.offset.reset: earliest, fetch.max.wait.ms: 10ms}}
faults:
  - {kind: crash, at: 6s, duration: 4s, nodes: [broker-0]}
)";
  int seeds_with_producer_loss = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const RunReport r = run_inline(yaml, seed);
    INFO("seed " << seed);
    seeds_with_producer_loss += r.kafka->delivery.lost > 0 ? 1 : 0;
    CHECK(reader(r).uncommitted_seen == 0);  // what the old leader lost, no consumer had read
    CHECK(reader(r).out_of_order == 0);
    CHECK(reader(r).unprocessed == 0);
  }
  CHECK(seeds_with_producer_loss > 0);  // the acknowledged-but-lost records existed
}

TEST_CASE("consumers keep reading committed records in order through random broker faults", "[consumer]") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const RunReport r = run_inline(kCluster + R"(
nemesis:
  start: 2s
  end: 9s
  crash: {rate: 0.3/s, duration: {distribution: uniform, min: 500ms, max: 3s}, targets: [brokers]}
  partition: {rate: 0.2/s, duration: {distribution: uniform, min: 500ms, max: 5s}, targets: [brokers]}
)",
                                   seed);
    INFO("seed " << seed);
    CHECK(reader(r).exactly_once());
  }
}

TEST_CASE("KIP-320: after an unclean election a consumer detects the truncation and goes on from the new log",
          "[consumer][groups]") {
  std::ifstream file(std::string(KSIM_SOURCE_DIR) + "/scenarios/unclean-election.yaml");
  std::stringstream yaml;
  yaml << file.rdbuf();
  yaml << R"(
consumers:
  - name: reader
    topic: metrics
    config: {auto.offset.reset: earliest, enable.auto.commit: false}
)";
  int seeds_with_truncation = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const RunReport r = run_inline(yaml.str(), seed);
    INFO("seed " << seed);
    REQUIRE(r.kafka->delivery.lost > 0);  // the unclean election threw acknowledged records away
    // The consumer had read some of them (they were committed then): they are gone from the log now.
    seeds_with_truncation += reader(r).uncommitted_seen > 0 ? 1 : 0;
    // Without validation it would fetch past the new log end, and auto.offset.reset=earliest
    // would read the partition again from the start: duplicates. With it, it goes back to where
    // its epoch ends on the new leader and reads what the new leader writes from there.
    CHECK(reader(r).duplicated == 0);
    CHECK(reader(r).unprocessed == 0);
  }
  CHECK(seeds_with_truncation == 5);
}

// scenarios/releases/consumer-after-truncation.yaml. Its consumer was a
// subscribed group member committing with commitSync: on seeds 2, 4, 5 and 7
// broker-0 also led the group's __consumer_offsets partition, which the crash
// left without a leader for good (no unclean election there), and the
// consumer processed nothing after its pause, on both releases, as Kafka's
// would. Assigned and committing nothing, it needs no coordinator.
TEST_CASE("KIP-320 both ways: after an unclean election below its position a 2.0 consumer skips the new leader's "
          "records there, a 2.1 consumer detects the truncation and reads them",
          "[consumer][releases][kip-320]") {
  const std::string skipped_cause = "not read, though later offsets were, and no auto.offset.reset skipped it";
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    INFO("seed " << seed);
    const auto before = ksim::testing::run_scenario("releases/consumer-after-truncation", seed,
                                                    {"consumers.0.kafka_version=2.0"});
    const auto after = ksim::testing::run_scenario("releases/consumer-after-truncation", seed);
    const auto& skipped = before.report["groups"][0];
    const auto& read = after.report["groups"][0];
    CHECK(after.status == kExitOk);
    CHECK(read["unprocessed"] == 0);
    CHECK(read["duplicates"] == 0);  // the records it reads again below its old position are the new leader's
    // About 10,000: from the new leader's log end at the election to the old position.
    CHECK(skipped["unprocessed"].get<std::uint64_t>() > 5000);
    CHECK(skipped["unprocessed"].get<std::uint64_t>() < 15000);
    REQUIRE(skipped["unprocessed_causes"].size() == 1);
    CHECK(skipped["unprocessed_causes"][0]["cause"] == skipped_cause);
  }
}

// ConsumerCoordinator.onJoinComplete restarts the auto-commit timer: the
// first auto-commit comes auto.commit.interval.ms after the join, not after start.
TEST_CASE("auto-commit's first commit comes a whole interval after the group is joined", "[consumer]") {
  const Scenario s = ksim::testing::parse_scenario(R"(
duration: 20s
drain: 2s
brokers: {count: 3}
topics: [{name: t, partitions: 3, replication_factor: 3}]
producers:
  - {name: p, rate: 100/s, record_size: 100B}
consumers:
  - {name: c, config: {enable.auto.commit: true, auto.commit.interval.ms: 5000, auto.offset.reset: earliest}}
)");
  Cluster cluster(s, RunOptions{});
  cluster.run();
  const auto& history = cluster.consumption();
  REQUIRE(!history.rebalances.empty());
  REQUIRE(!history.commits.empty());
  const SimTime joined = history.rebalances.front().completed;
  INFO("joined at " << joined << ", first commit answered at " << history.commits.front().at);
  CHECK(joined > seconds(2));  // group.initial.rebalance.delay.ms: the old schedule would commit 2 s after the join
  CHECK(history.commits.front().at >= joined + seconds(5));
  CHECK(history.commits.front().at < joined + seconds(6));
}

// KIP-951 (AbstractFetch.handleFetchSuccess): a fetch answered
// NOT_LEADER_OR_FOLLOWER carries the leader the old leader's broker knows, and
// the consumer fetches from it at once (after KIP-320's validation) instead of
// waiting for a Metadata answer. Here the partition's leader does a controlled
// shutdown while broker-2, which holds none of it, answers 2 s late, so a
// Metadata request that goes there stalls the consumer about 4 s. With the
// leader taken from the error, p99 stays at the steady 5 ms in the seeds
// where the old leader already knew its successor when it refused the fetch
// (in seed 1 it refuses before it knows, and the consumer needs Metadata).
// Without KIP-951 every seed stalled (p99 4.2 s).
TEST_CASE("KIP-951: a consumer takes the new leader from a NOT_LEADER fetch answer", "[consumer][kafka]") {
  int unstalled = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const RunReport report = run_inline(R"(
duration: 20s
drain: 10s
warmup: 5s
brokers: {count: 3}
topics: [{name: t, partitions: 1, replication_factor: 2, assignment: [[0, 1]], config: {min.insync.replicas: 1}}]
producers:
  - {name: p, topic: t, rate: 1000/s, record_size: 100B}
consumers:
  - {name: c, topic: t, config: {group.id: g, auto.offset.reset: earliest}}
faults:
  - {kind: latency_spike, at: 9.9s, duration: 4s, nodes: [broker-2], extra: 2s}
  - {kind: shutdown, at: 10s, duration: 5s, nodes: [broker-0]}
)",
                                        seed);
    INFO("seed " << seed);
    CHECK(reader(report).unprocessed == 0);
    unstalled += report.kafka->performance.e2e_latency_p99_ms < 100.0 ? 1 : 0;
  }
  CHECK(unstalled >= 4);
}

// Every start after a crash is a restart in the history (the first start is
// incarnation 0): two crashes, two restarts; a consumer that starts late has none.
TEST_CASE("a consumer's restarts are in the history, the first one too", "[consumer][kip848-persist]") {
  const std::string yaml = kCluster + R"(
  - {name: late, topic: t, start: 4s, processing_time: 100us}
faults: [{kind: crash, at: 3s, duration: 1s, nodes: [reader-0]}, {kind: crash, at: 6s, duration: 1s, nodes: [reader-0]}]
)";
  const Scenario scenario = ksim::testing::parse_scenario(yaml);
  Cluster cluster(scenario, RunOptions{});
  cluster.run();
  std::map<std::uint32_t, int> restarts, crashes;
  for (const auto& e : cluster.consumption().consumer_events) {
    if (e.kind == models::ConsumerEventKind::Restarted) {
      ++restarts[e.consumer];
      CHECK((e.at == seconds(4) || e.at == seconds(7)));
    }
    if (e.kind == models::ConsumerEventKind::Crashed) ++crashes[e.consumer];
  }
  CHECK(crashes[0] == 2);
  CHECK(restarts[0] == 2);
  CHECK(restarts[1] == 0);  // the late consumer started once
}
