// `ksim explore`: the draws in process, the command with ksim as its worker
// (docs/explore.md). The safe chaos scenario finds nothing; an unsafe variant
// of it (acks=1 without idempotence) is found out within a few runs; the
// findings are the same with any -j, and shards merge into the whole.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "app/commands/commands.hpp"
#include "app/explore/explore.hpp"
#include "app/explore/run_outcome.hpp"
#include "app/explore/swarm_draw.hpp"
#include "app/report/report_expectations.hpp"
#include "app/scenario/config_reader.hpp"
#include "tests/support/scenario_runner.hpp"

using namespace ksim::app;

namespace {

const std::string kChaos = std::string(KSIM_SOURCE_DIR) + "/scenarios/chaos.yaml";
const std::vector<std::string> kUnsafe{"producers.0.config[acks]=1", "producers.0.config[enable.idempotence]=false"};

struct Explored {
  int status = -1;
  std::string out, err;
};

Explored explore(ExploreArgs args) {
  args.worker_binary = KSIM_BINARY;
  args.quiet = true;
  std::ostringstream out, err;
  Explored e;
  e.status = explore_command(args, out, err);
  e.out = out.str(), e.err = err.str();
  return e;
}

ExploreArgs chaos(std::size_t runs, std::vector<std::string> overrides = {}) {
  ExploreArgs args;
  args.scenario = kChaos;
  args.runs = runs;
  args.jobs = 2;
  args.overrides = std::move(overrides);
  return args;
}

}  // namespace

TEST_CASE("a run's draw depends on the root seed and its index alone, and reads as a scenario", "[explore]") {
  const Scenario s = ksim::testing::parse_scenario("brokers: {count: 3}\ntopics: [{name: t}]\nduration: 20s\n");
  const SwarmDraw a = draw_run(s.explore, s.duration, 7, 3);
  const SwarmDraw again = draw_run(s.explore, s.duration, 7, 3);
  CHECK(a.seed == again.seed);
  CHECK(a.sets == again.sets);
  CHECK_FALSE(a.kinds.empty());
  CHECK(draw_run(s.explore, s.duration, 7, 4).sets != a.sets);
  CHECK(draw_run(s.explore, s.duration, 8, 3).seed != a.seed);
  // Over many runs each kind is drawn about half the time: swarm testing.
  std::map<std::string, int> drawn;
  for (std::size_t i = 0; i < 400; ++i) {
    for (const auto& k : draw_run(s.explore, s.duration, 1, i).kinds) ++drawn[k];
  }
  CHECK(drawn.size() == 6);
  for (const auto& [kind, n] : drawn) CHECK((n > 150 && n < 260));
}

TEST_CASE("an explore: section's vary keys draw from their lists and ranges, and a bad one is an error", "[explore]") {
  const char* yaml = R"(
brokers: {count: 3}
topics: [{name: t, partitions: 4}]
producers: [{name: p, rate: 100/s}]
explore:
  nemesis: {kinds: [crash, pause], rate: {min: 0.1/s, max: 0.5/s}, targets: [brokers, p]}
  vary:
    producers.0.config[acks]: [all, "1"]
    topics.0.partitions: {min: 1, max: 12}
)";
  const Scenario s = ksim::testing::parse_scenario(yaml);
  REQUIRE(s.explore.vary.size() == 2);
  std::set<std::string> seen;
  for (std::size_t i = 0; i < 60; ++i) {
    const SwarmDraw d = draw_run(s.explore, s.duration, 1, i);
    REQUIRE(d.sets.size() == 3);
    CHECK_THAT(d.sets[0], Catch::Contains("targets: [brokers, p]"));
    CHECK_THAT(d.sets[0], !Catch::Contains("partition:"));
    seen.insert(d.sets[1]);
    const int partitions = std::stoi(d.sets[2].substr(d.sets[2].find('=') + 1));
    CHECK((partitions >= 1 && partitions <= 12));
  }
  CHECK(seen == std::set<std::string>{"producers.0.config[acks]=all", "producers.0.config[acks]=1"});
  CHECK_THAT(ksim::testing::scenario_error(std::string(yaml) + "  colour: blue\n"), Catch::Contains("explore.colour"));
  CHECK_THAT(ksim::testing::scenario_error("brokers: {count: 3}\nexplore: {nemesis: {kinds: [crush]}}\n"),
             Catch::Contains("did you mean 'crash'"));
}

TEST_CASE("where the brokers' log dirs are given, a run also draws disk faults on them", "[explore]") {
  const std::string jbod = "brokers: {count: 3, log_dirs: [{path: /a}, {path: /b}]}\ntopics: [{name: t}]\nduration: 20s\n";
  const Scenario s = ksim::testing::parse_scenario(jbod);
  std::map<std::string, int> drawn;
  for (std::size_t i = 0; i < 400; ++i) {
    const SwarmDraw d = draw_run(s.explore, s.duration, 1, i);
    for (const auto& k : d.kinds) ++drawn[k];
    const YAML::Node nemesis = YAML::Load(d.sets[0].substr(d.sets[0].find('=') + 1));
    for (const char* kind : {"disk_slow", "disk_full", "disk_failure"}) {
      if (!nemesis[kind]) continue;
      CHECK(nemesis[kind]["log_dirs"].as<std::vector<std::string>>() == std::vector<std::string>{"/a", "/b"});
      CHECK(nemesis[kind]["targets"].as<std::vector<std::string>>() == std::vector<std::string>{"brokers"});
      CHECK(static_cast<bool>(nemesis[kind]["duration"]) == (std::string(kind) != "disk_failure"));  // for good
    }
    if (nemesis["disk_slow"]) {
      const double factor = nemesis["disk_slow"]["factor"].as<double>();
      CHECK((factor >= 0.01 && factor <= 0.5));
    }
    if (i < 20) {  // the draw reads as a scenario, a rule per kind drawn
      ksim::config::Document document = ksim::config::Document::from_string(jbod, "test.yaml");
      document.apply_override(d.sets[0]);
      CHECK(read_scenario(document, expectation_catalogue()).nemesis.rules.size() == d.kinds.size());
    }
  }
  CHECK(drawn.size() == 9);
  for (const auto& [kind, n] : drawn) CHECK((n > 150 && n < 260));
}

TEST_CASE("an explore: section turns disk faults on and bounds their log dirs and slowness", "[explore]") {
  const std::string jbod = "brokers: {count: 3, log_dirs: [{path: /a}, {path: /b}]}\ntopics: [{name: t}]\n";
  const Scenario s = ksim::testing::parse_scenario(
      jbod + "explore:\n  nemesis: {kinds: [disk_slow, pause], log_dirs: [/b], factor: {min: 0.2, max: 0.3}, "
             "duration: {min: 200ms, max: 2s}}\n");
  CHECK(s.explore.nemesis.duration_min == ksim::milliseconds(200));
  for (std::size_t i = 0; i < 40; ++i) {
    const SwarmDraw d = draw_run(s.explore, s.duration, 3, i);
    const YAML::Node nemesis = YAML::Load(d.sets[0].substr(d.sets[0].find('=') + 1));
    CHECK_FALSE(nemesis["disk_full"]);
    if (!nemesis["disk_slow"]) continue;
    CHECK(nemesis["disk_slow"]["log_dirs"].as<std::vector<std::string>>() == std::vector<std::string>{"/b"});
    const double factor = nemesis["disk_slow"]["factor"].as<double>();
    CHECK((factor >= 0.2 && factor <= 0.3));
    CHECK(nemesis["disk_slow"]["duration"]["min"].as<std::string>() == "200ms");
  }
  // Without brokers there is no disk; a log dir must be one of the brokers'; ranges go up.
  CHECK_THAT(ksim::testing::scenario_error("rpc: {}\nexplore: {nemesis: {kinds: [pause, disk_full]}}\n"),
             Catch::Contains("explore.nemesis.kinds") && Catch::Contains("needs a 'brokers' section"));
  CHECK_THAT(ksim::testing::scenario_error(jbod + "explore: {nemesis: {log_dirs: [/c]}}\n"),
             Catch::Contains("explore.nemesis.log_dirs"));
  CHECK_THAT(ksim::testing::scenario_error(jbod + "explore: {nemesis: {factor: {min: 0.5, max: 0.1}}}\n"),
             Catch::Contains("explore.nemesis.factor.max: must not be less than min"));
  // Without log dirs given, disk faults are drawn only when named.
  CHECK(ksim::testing::parse_scenario("brokers: {count: 1}\n").explore.nemesis.kinds.size() == 6);
  CHECK(ksim::testing::parse_scenario("brokers: {count: 1}\nexplore: {nemesis: {kinds: [disk_full]}}\n")
            .explore.nemesis.log_dirs == std::vector<std::string>{"/data/0"});
}

TEST_CASE("ksim explore of a scenario with disks fires disk faults, in its coverage, the same with any -j", "[explore]") {
  const auto file = std::filesystem::temp_directory_path() / ("ksim-explore-jbod-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(file) << R"(
duration: 15s
drain: 15s
network: {racks: [r1, r2, r3]}
brokers: {count: 3, log_dirs: [{path: /a}, {path: /b}]}
topics: [{name: t, partitions: 6, replication_factor: 3, config: {min.insync.replicas: 2}}]
producers: [{name: app, topic: t, rate: 500/s, record_size: 100B}]
expect: {lost: 0}
)";
  ExploreArgs args;
  args.scenario = file.string();
  args.runs = 8;
  args.jobs = 2;
  args.max_failures = 8;
  args.out = file.string() + ".json";
  const Explored e = explore(args);
  INFO(e.out << e.err);
  std::ifstream in(args.out);
  const auto summary = nlohmann::json::parse(in);
  for (const char* kind : {"disk_slow", "disk_full", "disk_failure"}) {
    CHECK(summary["drawn"][kind].get<int>() > 0);
    CHECK(summary["fired"][kind].get<int>() > 0);
    CHECK(summary["paths"][kind]["on a partition leader"].get<int>() > 0);
  }
  CHECK_THAT(e.out, Catch::Contains("disk_failure: drawn in"));
  args.jobs = 1;
  args.out.clear();
  CHECK(explore(args).out == e.out);
  std::filesystem::remove(file);
  std::filesystem::remove(file.string() + ".json");
}

TEST_CASE("ksim explore finds nothing on the safe chaos scenario and reports its coverage", "[explore]") {
  const Explored e = explore(chaos(6));
  INFO(e.out << e.err);
  CHECK(e.status == 0);
  CHECK_THAT(e.out, Catch::Contains("6 of 6 runs (1/1), 6 passed, 0 vacuous, 0 invalid, 0 findings"));
  CHECK_THAT(e.out, Catch::Contains("crash: drawn in"));
  CHECK_THAT(e.out, Catch::Contains("on a partition leader"));
}

TEST_CASE("ksim explore finds an unsafe variant's loss and prints the command that replays it", "[explore]") {
  ExploreArgs args = chaos(100, kUnsafe);
  args.max_failures = 2;
  const Explored e = explore(args);
  INFO(e.out << e.err);
  CHECK(e.status == 1);
  CHECK_THAT(e.out, Catch::Contains("2 findings"));
  CHECK_THAT(e.out, Catch::Contains("FAIL run"));
  CHECK_THAT(e.out, Catch::Contains("delivery: required exactly-once"));
  // The replay command gives the same failure.
  const auto at = e.out.find("replay: ksim run ");
  REQUIRE(at != std::string::npos);
  std::string command = e.out.substr(at + 8, e.out.find('\n', at) - at - 8);
  command.replace(0, 4, KSIM_BINARY);
  CHECK(WEXITSTATUS(std::system((command + " > /dev/null 2>&1").c_str())) == kExitExpectationFailed);
  // JUnit: a failed case per finding.
  const auto junit = std::filesystem::temp_directory_path() / ("ksim-explore-junit-" + std::to_string(::getpid()) + ".xml");
  ExploreArgs with_junit = args;
  with_junit.junit = junit.string();
  explore(with_junit);
  std::ifstream xml(junit);
  const std::string text((std::istreambuf_iterator<char>(xml)), std::istreambuf_iterator<char>());
  std::filesystem::remove(junit);
  CHECK_THAT(text, Catch::Contains("failures=\"2\""));
  CHECK_THAT(text, Catch::Contains("replay: ksim run "));
  // The same findings with one worker: the first two by index.
  args.jobs = 1;
  CHECK(explore(args).out == e.out);
}

TEST_CASE("ksim explore's shards merge into the whole exploration", "[explore]") {
  const auto dir = std::filesystem::temp_directory_path() / ("ksim-explore-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ExploreArgs args = chaos(6, kUnsafe);
  args.max_failures = 100;
  const Explored whole = explore(args);
  args.shard = "1/2", args.out = (dir / "a.json").string();
  explore(args);
  args.shard = "2/2", args.out = (dir / "b.json").string();
  explore(args);
  ExploreArgs merge;
  merge.merge = {(dir / "b.json").string(), (dir / "a.json").string()};
  const Explored merged = explore(merge);
  std::filesystem::remove_all(dir);
  CHECK(merged.status == whole.status);
  // The same findings and coverage; only the shard list differs.
  auto after_first_line = [](const std::string& s) { return s.substr(s.find('\n')); };
  CHECK(after_first_line(merged.out) == after_first_line(whole.out));
  CHECK_THAT(merged.out, Catch::Contains("6 of 6 runs (1/2, 2/2)"));
}

TEST_CASE("a run past its bound of events is a finding of its own", "[explore]") {
  ExploreArgs args = chaos(1);
  args.max_events = 1000;
  const Explored e = explore(args);
  CHECK(e.status == 1);
  CHECK_THAT(e.out, Catch::Contains("unfinished: unfinished: ksim: the run did not finish within 1000 events"));
}

TEST_CASE("a run that failed only on a vacuous verdict tested nothing: not a finding", "[explore]") {
  sweep::Finished f;
  f.exit_status = kExitExpectationFailed;
  f.out = R"j({"expectations": [{"name": "delivery", "held": false,
              "detail": "required exactly-once, verdict vacuous: no fault fired, though the scenario has faults"},
             {"name": "pending", "held": true, "detail": "0"}]})j";
  CHECK(classify(f).kind == OutcomeKind::Vacuous);
  CHECK_FALSE(classify(f).is_failure());
  f.out = R"j({"expectations": [{"name": "delivery", "held": false, "detail": "required exactly-once, verdict vacuous: x"},
             {"name": "pending", "held": false, "detail": "3 (expected 0)"}]})j";
  CHECK(classify(f).kind == OutcomeKind::Failed);
  // invariant_violations: 0 broken: the check is the first invariant broken, so a shrink keeps that one.
  f.out = R"j({"expectations": [{"name": "invariant_violations", "held": false, "detail": "2 (expected 0)"}],
              "invariants": [{"name": "high_watermark_within_isr"}, {"name": "single_leader_per_epoch"}]})j";
  CHECK(classify(f).check == "invariant high_watermark_within_isr");
  CHECK(classify(f).detail == "2 (expected 0)");
  f.exit_status = -1, f.signal = 6;
  CHECK(classify(f).kind == OutcomeKind::Crashed);
  CHECK(classify(f).check == "crash");
}

namespace {

// The protocol states (app/harness/protocol_coverage.hpp) one run of ksim explore of a scenario went through.
nlohmann::json explored_states(const std::string& scenario, std::vector<std::string> overrides = {},
                               std::size_t runs = 1) {
  const auto file = std::filesystem::temp_directory_path() /
                    ("ksim-explore-states-" + std::to_string(::getpid()) + ".json");
  ExploreArgs args;
  args.scenario = std::string(KSIM_SOURCE_DIR) + "/scenarios/" + scenario;
  args.overrides = std::move(overrides);
  args.runs = runs;
  args.max_failures = runs;  // a finding does not end the exploration
  args.jobs = 1;
  args.out = file.string();
  const Explored e = explore(args);
  INFO(e.out << e.err);
  CHECK_THAT(e.out, Catch::Contains("coverage: the protocol states the runs went through"));
  std::ifstream in(file);
  const auto summary = nlohmann::json::parse(in);
  std::filesystem::remove(file);
  return summary["states"];
}

constexpr const char* kRevoking = "KIP-848: a member revoking partitions (UNREVOKED_PARTITIONS)";
constexpr const char* kUnreleased = "KIP-848: a member waiting for partitions another still holds (UNRELEASED_PARTITIONS)";
constexpr const char* kAcquiring = "KIP-848: a member acquiring partitions";
constexpr const char* kLockExpired = "KIP-932: an acquisition lock expired";
constexpr const char* kRedelivered = "KIP-932: a record redelivered";
constexpr const char* kDeliveryLimit = "KIP-932: a record archived at the delivery count limit";
constexpr const char* kEndTxnBump = "KIP-890: an epoch bump at EndTxn (transactions v2)";
constexpr const char* kFenceBump = "transactions: an epoch bump fencing a producer";
constexpr const char* kEpochFenced = "KIP-848: a heartbeat fenced by its member epoch (FENCED_MEMBER_EPOCH)";
constexpr const char* kRebalanceTimeout = "KIP-848: a member removed at its rebalance timeout (did not revoke)";
constexpr const char* kSessionTimeout = "group coordinator: a member removed at its session timeout";
constexpr const char* kGroupLoaded = "group coordinator: a group loaded from __consumer_offsets (a coordinator failover)";

void none_of_states(const nlohmann::json& states, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    INFO(name);
    CHECK(states.at(name).get<int>() == 0);
  }
}

}  // namespace

TEST_CASE("ksim explore's coverage counts KIP-848 reconciliation, and only where a group of that protocol reconciles",
          "[explore][coverage]") {
  const nlohmann::json states = explored_states("kip848-member-crash.yaml");
  INFO(states.dump(2));
  CHECK(states.at(kRevoking).get<int>() > 0);
  CHECK(states.at(kAcquiring).get<int>() > 0);
  CHECK(states.at(kUnreleased).get<int>() > 0);
  none_of_states(states, {kLockExpired, kRedelivered, kDeliveryLimit, kEndTxnBump, kFenceBump});
  // The same crash in a classic group: no KIP-848 member ever reconciles.
  const nlohmann::json classic = explored_states("kip848-member-crash.yaml", {"consumers.0.config[group.protocol]=classic"});
  none_of_states(classic, {kRevoking, kAcquiring, kUnreleased});
}

TEST_CASE("ksim explore's coverage counts fencing by cause and a group coordinator's load after a failover",
          "[explore][coverage]") {
  // Each scenario's own mechanism, under the nemesis explore adds.
  const nlohmann::json epoch = explored_states("kip848-fenced-member-epoch.yaml");
  INFO(epoch.dump(2));
  CHECK(epoch.at(kEpochFenced).get<int>() > 0);
  const nlohmann::json revocation = explored_states("kip848-rebalance-timeout.yaml");
  INFO(revocation.dump(2));
  CHECK(revocation.at(kRebalanceTimeout).get<int>() > 0);
  const nlohmann::json session = explored_states("kip848-member-crash.yaml");
  CHECK(session.at(kSessionTimeout).get<int>() > 0);
  const nlohmann::json load = explored_states("kip848-coordinator-failover.yaml");
  CHECK(load.at(kGroupLoaded).get<int>() > 0);
  // Without those mechanisms (no nemesis): the crash is noticed at the session timeout, no epoch is fenced,
  // nobody is removed at a rebalance timeout, the coordinator never moves; the failover fences nobody.
  const auto crash = ksim::testing::run_scenario("kip848-member-crash", 1);
  const nlohmann::json& crash_states = crash.report["protocol_states"];
  INFO(crash_states.dump(2));
  CHECK(crash_states.at(kSessionTimeout).get<int>() == 1);
  none_of_states(crash_states, {kEpochFenced, kRebalanceTimeout, kGroupLoaded});
  const auto failover = ksim::testing::run_scenario("kip848-coordinator-failover", 1);
  const nlohmann::json& failover_states = failover.report["protocol_states"];
  INFO(failover_states.dump(2));
  CHECK(failover_states.at(kGroupLoaded).get<int>() == 1);
  none_of_states(failover_states, {kEpochFenced, kRebalanceTimeout, kSessionTimeout});
}

TEST_CASE("ksim explore's coverage counts share groups' lock expiry, redelivery and archiving at the delivery limit",
          "[explore][coverage]") {
  // Run 0's nemesis shuts a share-partition leader down before the dead member's locks expire: its
  // successor loads the share state, where they are AVAILABLE (redelivered after a leader change).
  const nlohmann::json crash = explored_states("share-consumer-crash.yaml", {}, 2);
  INFO(crash.dump(2));
  CHECK(crash.at(kLockExpired).get<int>() > 0);
  CHECK(crash.at(kRedelivered).get<int>() > 0);
  none_of_states(crash, {kDeliveryLimit, kRevoking, kAcquiring, kEndTxnBump, kFenceBump});
  const nlohmann::json poison = explored_states("share-poison-record.yaml");
  INFO(poison.dump(2));
  CHECK(poison.at(kDeliveryLimit).get<int>() > 0);
  CHECK(poison.at(kRedelivered).get<int>() > 0);
  none_of_states(poison, {kRevoking, kAcquiring, kEndTxnBump, kFenceBump});
}

TEST_CASE("ksim explore's coverage counts transactions v2's epoch bumps at EndTxn and fencing bumps", "[explore][coverage]") {
  const nlohmann::json v2 = explored_states("txn-zombie.yaml");
  INFO(v2.dump(2));
  CHECK(v2.at(kEndTxnBump).get<int>() > 0);
  CHECK(v2.at(kFenceBump).get<int>() > 0);
  none_of_states(v2, {kLockExpired, kRedelivered, kDeliveryLimit});
  // Transactions v1: the zombie is fenced all the same, but no EndTxn bumps an epoch.
  const nlohmann::json v1 = explored_states("txn-zombie.yaml", {"kips[KIP-890-part2]=off"});
  INFO(v1.dump(2));
  CHECK(v1.at(kEndTxnBump).get<int>() == 0);
  CHECK(v1.at(kFenceBump).get<int>() > 0);
}

TEST_CASE("a fault on a KIP-848 member waiting for its partitions takes the reconciliation's paths, not in a classic group",
          "[explore][coverage]") {
  // billing-2 is back from its crash at 30 s: it waits for the partitions the others still hold, which they
  // revoke on their next heartbeats (every 2 s); a pause of it then hits a member mid-reconciliation.
  const std::string faults = "faults=[{kind: crash, at: 12s, duration: 18s, nodes: [billing-2]}, "
                             "{kind: pause, at: 30500ms, duration: 1s, nodes: [billing-2]}]";
  const auto kip848 = ksim::testing::run_scenario("kip848-member-crash", 1, {faults});
  const nlohmann::json& paths = kip848.report["fault_paths"]["pause"];
  INFO(paths.dump());
  CHECK(paths.value("on a KIP-848 member revoking or waiting for partitions", 0) == 1);
  CHECK(paths.value("during a KIP-848 reconciliation", 0) == 1);
  // Long after, the group is stable again.
  const auto later = ksim::testing::run_scenario(
      "kip848-member-crash", 1,
      {"faults=[{kind: crash, at: 12s, duration: 18s, nodes: [billing-2]}, {kind: pause, at: 40s, duration: 1s, nodes: [billing-2]}]"});
  CHECK(later.report["fault_paths"]["pause"].value("during a KIP-848 reconciliation", 0) == 0);
  // A classic group rebalances, but has no KIP-848 reconciliation.
  const auto classic = ksim::testing::run_scenario("kip848-member-crash", 1, {faults, "consumers.0.config[group.protocol]=classic"});
  const nlohmann::json& classic_paths = classic.report["fault_paths"]["pause"];
  INFO(classic_paths.dump());
  CHECK(classic_paths.value("during a rebalance", 0) == 1);
  CHECK(classic_paths.value("during a KIP-848 reconciliation", 0) == 0);
  CHECK(classic_paths.value("on a KIP-848 member revoking or waiting for partitions", 0) == 0);
}
