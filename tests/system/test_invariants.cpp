// The cluster's invariants (models/check/cluster_invariants.hpp), checked
// after every event: a power loss is not reported as the model's fault, a
// real break is caught at the event that makes it, and checking every
// partition after every event finds what checking the changed ones finds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <tuple>

#include "app/harness/cluster.hpp"
#include "app/report/report.hpp"
#include "app/report/report_expectations.hpp"
#include "app/scenario/config_reader.hpp"
#include "tests/support/scenario_runner.hpp"

using namespace ksim;
using namespace ksim::app;
using Scope = models::ClusterInvariants::Scope;

namespace {

Scenario scenario_of(const std::string& file, std::vector<std::string> overrides) {
  config::Document document = config::Document::load_file(std::string(KSIM_SOURCE_DIR) + "/scenarios/" + file);
  for (const auto& o : overrides) document.apply_override(o);
  return read_scenario(document, expectation_catalogue());
}

using Seen = std::tuple<std::string, SimTime, models::TopicPartition, models::BrokerId>;

std::vector<Seen> seen(const Cluster& cluster) {
  std::vector<Seen> all;
  for (const auto& v : cluster.invariant_violations()) all.emplace_back(v.invariant, v.at, v.partition, v.broker);
  return all;
}

// Runs `scenario`, and at `at` silently drops the log of a follower in the ISR of partition 0.
std::vector<Seen> run_with_lost_tail(const Scenario& scenario, Scope scope, SimTime at, models::BrokerId* victim) {
  Cluster cluster(scenario, RunOptions{spdlog::level::warn, nullptr, scope});
  const models::TopicPartition tp{0, 0};
  cluster.sim().events().schedule_at(at, [&] {
    const auto state = cluster.controller()->partitions().at(tp);
    for (const models::BrokerId b : state.isr) {
      if (b == state.leader) continue;
      *victim = b;
      cluster.brokers()[static_cast<std::size_t>(b)]->inject_log_loss(tp, 0);
      return;
    }
  });
  cluster.run();
  return seen(cluster);
}

// At `at`, silently drops the log of a follower of partition 0 (a loss Kafka would not see).
void drop_a_followers_log(Cluster& cluster, SimTime at) {
  cluster.sim().events().schedule_at(at, [&cluster] {
    const auto state = cluster.controller()->partitions().at({0, 0});
    const models::BrokerId follower = state.isr.front() == state.leader ? state.isr.back() : state.isr.front();
    cluster.brokers()[static_cast<std::size_t>(follower)]->inject_log_loss({0, 0}, 0);
  });
}

}  // namespace

TEST_CASE("a power loss restart is no invariant violation, whatever the crash lasts", "[invariants]") {
  for (const char* duration : {"4s", "4001ms", "6s"}) {
    for (const char* broker : {"broker-0", "broker-1", "broker-2"}) {
      const Scenario s = scenario_of("quickstart.yaml", {std::string("faults=[{kind: crash, at: 10s, duration: ") +
                                                             duration + ", nodes: [" + broker + "], power_loss: true}]",
                                                         "duration=20s", "drain=5s"});
      Cluster cluster(s, RunOptions{});
      cluster.run();
      INFO(duration << " " << broker);
      CHECK(cluster.invariant_violations().empty());
      CHECK(cluster.faults().coverage().at("crash") == 1);
    }
  }
}

TEST_CASE("a follower's log tail lost silently breaks high_watermark_within_isr at that event", "[invariants]") {
  const Scenario s = scenario_of("quickstart.yaml", {"faults=[]", "duration=8s", "drain=2s"});
  const SimTime at = seconds(5) + milliseconds(1);
  for (const Scope scope : {Scope::Changed, Scope::Everything}) {
    models::BrokerId victim = models::kNoBroker;
    const auto violations = run_with_lost_tail(s, scope, at, &victim);
    REQUIRE(victim != models::kNoBroker);
    REQUIRE_FALSE(violations.empty());
    CHECK(violations.front() == Seen{"high_watermark_within_isr", at, models::TopicPartition{0, 0}, victim});
  }
}

TEST_CASE("an eligible leader replica's log lost silently breaks eligible_leaders_hold_committed at that event",
          "[invariants]") {
  // ground-truth/elr-last-replica with KIP-966: broker-1 stops cleanly at 5 s, leaving the ISR
  // {0} below min ISR 2, so it is an eligible leader replica; at 6 s its log is dropped (a loss
  // Kafka would not see), while broker-0 still leads with its high watermark above zero.
  const Scenario s = scenario_of("ground-truth/elr-last-replica.yaml",
                                 {"controller.features[eligible.leader.replicas.version]=1", "duration=10s", "drain=2s"});
  const SimTime at = seconds(6);
  for (const Scope scope : {Scope::Changed, Scope::Everything}) {
    Cluster cluster(s, RunOptions{spdlog::level::warn, nullptr, scope});
    const models::TopicPartition tp{0, 0};
    bool eligible = false;
    cluster.sim().events().schedule_at(at, [&] {
      const auto& elr = cluster.controller()->partitions().at(tp).elr;
      eligible = std::find(elr.begin(), elr.end(), 1) != elr.end();
      cluster.brokers()[1]->inject_log_loss(tp, 0);
    });
    cluster.run();
    REQUIRE(eligible);
    const auto violations = seen(cluster);
    REQUIRE_FALSE(violations.empty());
    CHECK(violations.front() == Seen{"eligible_leaders_hold_committed", at, tp, 1});
  }
  // Without the loss the run breaks nothing.
  Cluster clean(s, RunOptions{});
  clean.run();
  CHECK(clean.invariant_violations().empty());
}

TEST_CASE("checking every partition after every event finds what checking the changed ones finds", "[invariants]") {
  const std::vector<std::pair<std::string, std::vector<std::string>>> runs = {
      {"chaos.yaml", {"duration=10s"}},
      {"unclean-election.yaml", {}},
      {"acks1-leader-crash.yaml", {}},
      {"rolling-restart.yaml", {"duration=20s"}},
      {"quickstart.yaml",
       {"faults=[{kind: crash, at: 6s, duration: 3s, nodes: [broker-1], power_loss: true}]", "duration=12s",
        "drain=3s"}},
  };
  for (const auto& [file, overrides] : runs) {
    for (const std::uint64_t seed : {1, 2}) {
      std::vector<std::string> with_seed = overrides;
      with_seed.push_back("seed=" + std::to_string(seed));
      const Scenario s = scenario_of(file, with_seed);
      Cluster changed(s, RunOptions{spdlog::level::warn, nullptr, Scope::Changed});
      changed.run();
      Cluster everything(s, RunOptions{spdlog::level::warn, nullptr, Scope::Everything});
      everything.run();
      INFO(file << " seed " << seed);
      CHECK(seen(changed) == seen(everything));
      CHECK(changed.sim().trace().hash() == everything.sim().trace().hash());
    }
  }
  // And with a real break in it.
  const Scenario s = scenario_of("quickstart.yaml", {"faults=[]", "duration=8s", "drain=2s"});
  models::BrokerId victim = models::kNoBroker;
  CHECK(run_with_lost_tail(s, Scope::Changed, seconds(4), &victim) ==
        run_with_lost_tail(s, Scope::Everything, seconds(4), &victim));
}

TEST_CASE("a broken invariant is listed by name in the report and fails the run unless the scenario expects it",
          "[invariants][report]") {
  for (const bool expected : {false, true}) {
    Scenario s = scenario_of("quickstart.yaml",
                             {"faults=[]", "duration=8s", "drain=2s",
                              expected ? "expect={invariant_violations: '>0'}" : "expect={delivery: at-most-once}"});
    Cluster cluster(s, RunOptions{});
    drop_a_followers_log(cluster, seconds(5));
    cluster.run();
    const RunReport report = make_report(cluster, 0);
    const auto json = to_json(report);
    REQUIRE(json["invariants"].size() >= 1);
    CHECK(json["invariants"][0]["name"] == "high_watermark_within_isr");
    CHECK(json["invariants"][0]["partition"] == "0-0");
    CHECK(json["invariants"][0]["at_ns"] == seconds(5));
    CHECK(json["invariant_violations"] == json["invariants"].size());
    CHECK(report.expectations_held() == expected);
  }
}

TEST_CASE("chaos seed 100165: an answer to a superseded AlterPartition leaves the pending addition counted",
          "[invariants][isr]") {
  // broker-3 leads 0-1 and 0-5; a shrink dropping broker-2 is slow to reach
  // the controller, which drops broker-2 itself when it restarts; broker-3
  // proposes adding it back, and broker-2 is partitioned away. The shrink's
  // refusal came back first and ended the pending addition: the high
  // watermark passed broker-2's log end while the controller committed
  // broker-2 to the ISR (110 samples of high_watermark_within_isr before).
  const Scenario s = scenario_of("chaos.yaml", {"seed=100165"});  // the cluster keeps a reference
  Cluster cluster(s, RunOptions{});
  cluster.run();
  for (const auto& v : cluster.invariant_violations()) INFO(models::to_string(v));
  CHECK(cluster.invariant_violations().empty());
  const RunReport report = make_report(cluster, 0);
  CHECK(report.expectations_held());
}

// A run ksim explore found (scenarios/chaos.yaml, 300 runs from root seed 1, run 26; docs/explore.md).
constexpr const char* kMutationNemesis =
    "nemesis={start: 1s, end: 30s, crash: {rate: 0.097860883/s, duration: {distribution: uniform, min: 100ms, "
    "max: 4088758047ns}, targets: [brokers]}, latency_spike: {rate: 0.086673319/s, duration: {distribution: uniform, "
    "min: 100ms, max: 6351350455ns}, extra: 3834931922ns}, jitter_burst: {rate: 0.096009076/s, duration: "
    "{distribution: uniform, min: 100ms, max: 6869806359ns}, jitter: {distribution: pareto, scale: 100us, shape: 1.2}}}";

TEST_CASE("a chaos run with the stale_alter_partition_answer mutation breaks high_watermark_within_isr again",
          "[invariants][isr][mutations]") {
  // The test-only mutation (docs/explore.md#model-mutations) brings back the
  // bug a763d60 fixed. Chaos seed 100165 showed it until connections got a
  // handshake (2026-12-07); no seed of chaos.yaml's own schedule in 1-600 or
  // 100000-100400 does now, so the run is one ksim explore found. The same
  // run without the mutation breaks nothing.
  const Scenario fixed = scenario_of("chaos.yaml", {"seed=18397852227377538053", kMutationNemesis});
  Cluster clean(fixed, RunOptions{});
  clean.run();
  CHECK(clean.invariant_violations().empty());
  const Scenario s = scenario_of(
      "chaos.yaml", {"seed=18397852227377538053", kMutationNemesis, "mutations.stale_alter_partition_answer=true"});
  REQUIRE(s.kafka->broker.mutations.stale_alter_partition_answer);
  REQUIRE(s.warnings.size() == 1);
  CHECK_THAT(s.warnings.front().message, Catch::Contains("test-only model mutation"));
  Cluster cluster(s, RunOptions{});
  cluster.run();
  const auto& violations = cluster.invariant_violations();
  REQUIRE_FALSE(violations.empty());
  const auto& first = violations.front();
  INFO(models::to_string(first));
  CHECK(first.invariant == "high_watermark_within_isr");
  CHECK(first.partition == models::TopicPartition{0, 1});
  CHECK(first.broker == 1);
  CHECK((first.at >= milliseconds(13449) && first.at < milliseconds(13450)));
  for (const auto& v : violations) CHECK(v.invariant == "high_watermark_within_isr");
  CHECK_FALSE(make_report(cluster, 0).expectations_held());
}

TEST_CASE("pre-kip101-divergence: replicas that truncate to the high watermark diverge on committed records, "
          "with KIP-101 they agree", "[invariants][divergence]") {
  const Scenario pre = scenario_of("pre-kip101-divergence.yaml", {});  // the cluster keeps a reference
  Cluster before(pre, RunOptions{});
  before.run();
  std::size_t divergences = 0;
  for (const auto& v : before.invariant_violations()) {
    INFO(models::to_string(v));
    CHECK(v.invariant == models::kReplicaDivergence);  // and nothing else broke
    ++divergences;
    CHECK(v.detail.find("differ from offset") != std::string::npos);
  }
  CHECK(divergences >= 1);
  CHECK(make_report(before, 0).expectations_held());  // expect: replica_divergences: ">0"

  const Scenario kip101 = scenario_of("pre-kip101-divergence.yaml", {"brokers.truncate_to_high_watermark=false"});
  Cluster after(kip101, RunOptions{});
  after.run();
  CHECK(after.invariant_violations().empty());
  CHECK_FALSE(make_report(after, 0).expectations_held());  // it expects a divergence
}

TEST_CASE("an expected divergence excuses only replicas_agree_on_committed_prefix", "[invariants][divergence]") {
  // A follower's log tail lost silently breaks high_watermark_within_isr: still a failure
  // when the scenario expects divergent replicas, not when it expects violations.
  for (const char* expect : {"expect={replica_divergences: 0}", "expect={invariant_violations: '>0'}"}) {
    Scenario s = scenario_of("quickstart.yaml", {"faults=[]", "duration=8s", "drain=2s", expect});
    Cluster cluster(s, RunOptions{});
    drop_a_followers_log(cluster, seconds(5));
    cluster.run();
    INFO(expect);
    CHECK(make_report(cluster, 0).expectations_held() == (std::string(expect).find("invariant") != std::string::npos));
  }
}
