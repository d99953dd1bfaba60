// KIP-848's online migration end to end, over several seeds: a classic group
// rolling-restarted onto group.protocol=consumer is converted once and loses
// nothing (scenarios/kip848-online-upgrade.yaml); with the migration policy
// disabled the first consumer-protocol member is refused (GROUP_ID_NOT_FOUND,
// fatal for its client); the reverse rolling restart downgrades the group
// when its last consumer-protocol member leaves; classic members leaving the
// mixed group rebalance it.
#include <catch2/catch.hpp>

#include <string>

#include "app/harness/cluster.hpp"
#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_scenario;

namespace {

const nlohmann::json& migration_group(const nlohmann::json& report, const std::string& name) {
  for (const auto& g : report["groups"]) {
    if (g["group"] == name) return g;
  }
  FAIL("no group " << name);
  return report["groups"][0];
}

// A group of three on the consumer protocol restarted one by one onto the classic protocol.
std::string migration_downgrade_yaml() {
  return R"(
name: downgrade
duration: 40s
drain: 20s
brokers: {count: 3, config: {group.consumer.heartbeat.interval.ms: 2s, group.consumer.min.heartbeat.interval.ms: 2s}}
topics: [{name: t, partitions: 12, replication_factor: 3}]
producers: [{name: p, topic: t, rate: 300/s, record_size: 200B, start: 1s}]
consumers:
  - name: app
    count: 3
    topic: t
    commit: sync-after-process
    processing_time: {distribution: exponential, mean: 1ms}
    config: {enable.auto.commit: false, auto.offset.reset: earliest, group.protocol: consumer}
    restart_config: {enable.auto.commit: false, auto.offset.reset: earliest,
                     partition.assignment.strategy: cooperative-sticky}
faults:
  - {kind: shutdown, at: 10s, duration: 1s, nodes: [app-0]}
  - {kind: shutdown, at: 16s, duration: 1s, nodes: [app-1]}
  - {kind: shutdown, at: 22s, duration: 1s, nodes: [app-2]}
)";
}

// Two static members on the consumer protocol restarted one by one onto the classic protocol
// with the same group.instance.id: each new process takes its predecessor's place.
std::string static_replacement_downgrade_yaml() {
  return R"(
name: static-downgrade
duration: 30s
drain: 15s
brokers: {count: 3, config: {group.consumer.heartbeat.interval.ms: 2s, group.consumer.min.heartbeat.interval.ms: 2s}}
topics: [{name: t, partitions: 6, replication_factor: 3}]
producers: [{name: p, topic: t, rate: 200/s, record_size: 200B, start: 1s}]
consumers:
  - name: app
    count: 2
    topic: t
    commit: sync-after-process
    config: {enable.auto.commit: false, auto.offset.reset: earliest, group.protocol: consumer,
             group.instance.id: "{name}"}
    restart_config: {enable.auto.commit: false, auto.offset.reset: earliest, group.instance.id: "{name}",
                     partition.assignment.strategy: cooperative-sticky}
faults:
  - {kind: shutdown, at: 10s, duration: 1s, nodes: [app-0]}
  - {kind: shutdown, at: 16s, duration: 1s, nodes: [app-1]}
)";
}

}  // namespace

TEST_CASE("a rolling restart onto group.protocol=consumer upgrades the classic group online and loses nothing",
          "[kip848-migration][consumer]") {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    INFO("seed " << seed);
    const auto run = run_scenario("kip848-online-upgrade", seed);
    CHECK(run.status == ksim::app::kExitOk);
    const auto& g = migration_group(run.report, "app");
    CHECK(g["unprocessed"] == 0);
    CHECK(g["protocol_upgrades"] == 1);
    CHECK(g["protocol_downgrades"] == 0);
    CHECK(g["members"].size() == 6);
    // Classic rebalances (the cooperative assignor) until the upgrade at app-0's return (16 s),
    // then the consumer group's, each finished; the classic members leaving the mixed group
    // (app-1 at 20 s, ...) are rebalances of the consumer group.
    int classic_after = 0, consumer_after = 0, classic_leaves = 0;
    for (const auto& r : g["rebalance_log"]) {
      CHECK_FALSE(r["duration_s"].is_null());
      const double started = r["started_s"].get<double>();
      const std::string protocol = r["protocol"].get<std::string>();
      if (started > 17.0) (protocol.starts_with("consumer") ? consumer_after : classic_after) += 1;
      const std::string trigger = r["trigger"].get<std::string>();
      if (started > 19.0 && trigger.find("left the group") != std::string::npos) ++classic_leaves;
    }
    CHECK(classic_after == 0);
    CHECK(consumer_after >= 1);
    CHECK(classic_leaves >= 1);
    CHECK(g["stop_the_world_partition_s"].get<double>() > 0.0);
  }
}

TEST_CASE("group.consumer.migration.policy disabled: the first consumer-protocol member gets GROUP_ID_NOT_FOUND",
          "[kip848-migration][consumer]") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    auto document = ksim::config::Document::load_file(std::string(KSIM_SOURCE_DIR) + "/scenarios/kip848-online-upgrade.yaml");
    document.apply_override("seed=" + std::to_string(seed));
    document.apply_override("brokers.config[group.consumer.migration.policy]=disabled");
    const auto scenario = ksim::app::read_scenario(document, ksim::app::expectation_catalogue());
    ksim::app::Cluster cluster(scenario, ksim::app::RunOptions{});
    cluster.run();
    CHECK(cluster.group_conversions().empty());
    // app-0, back at 16 s on the consumer protocol, is refused and its client stops (a fatal error).
    bool refused = false;
    for (const auto& e : cluster.consumption().consumer_events) {
      if (e.consumer == 0 && e.kind == ksim::models::ConsumerEventKind::Fenced) {
        refused = true;
        CHECK(e.at >= ksim::seconds(16));
        CHECK(e.at <= ksim::seconds(17));
      }
    }
    CHECK(refused);
    const auto report = ksim::app::make_report(cluster, 0);
    CHECK_FALSE(report.expectations_held());  // protocol_upgrades: 1 is not met
  }
}

TEST_CASE("the reverse rolling restart downgrades the group when its last consumer-protocol member leaves",
          "[kip848-migration][consumer]") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    const auto report = ksim::testing::run_inline(migration_downgrade_yaml(), seed);
    const auto& g = report.kafka->groups.at(0);
    CHECK(g.report.unprocessed == 0);
    CHECK(g.protocol_upgrades() == 0);
    REQUIRE(g.protocol_downgrades() == 1);
    // app-2, the last on the consumer protocol, leaves at 22 s: the two classic members remain.
    CHECK(g.conversions[0].at >= ksim::seconds(22));
    CHECK(g.conversions[0].at <= ksim::seconds(23));
    CHECK(g.conversions[0].members == 2);
    CHECK(g.report.rebalances.back().protocol == "cooperative-sticky");
  }
}

TEST_CASE("a classic static member replacing the last consumer-protocol member downgrades the group at once",
          "[kip848-migration][consumer]") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    const auto report = ksim::testing::run_inline(static_replacement_downgrade_yaml(), seed);
    const auto& g = report.kafka->groups.at(0);
    CHECK(g.report.unprocessed == 0);
    CHECK(g.report.stops.empty());
    // app-0 back at 11 s replaces a consumer-protocol member while app-1 is one: no downgrade.
    // app-1 back at 17 s replaces the last one (validateOnlineDowngradeWithReplacedMemberId): the
    // group is classic from its JoinGroup on, without a rebalance. Before, it stayed a consumer
    // group of classic members (no consumer-protocol member was left to leave).
    REQUIRE(g.protocol_downgrades() == 1);
    CHECK(g.conversions[0].at >= ksim::seconds(17));
    CHECK(g.conversions[0].at < ksim::seconds(18));
    CHECK(g.conversions[0].members == 2);
    CHECK(g.conversions[0].trigger.find("took static member app-1's place") != std::string::npos);
    for (const auto& r : g.report.rebalances) {
      INFO(r.trigger);
      CHECK(r.trigger.find("downgrade") == std::string::npos);
      CHECK(r.started < ksim::seconds(17));  // the classic group is stable from the conversion on
    }
  }
  // With downgrades off the group stays a consumer group, its classic members reading on.
  const auto kept = ksim::testing::run_inline(static_replacement_downgrade_yaml(), 1,
                                              {"brokers.config[group.consumer.migration.policy]=upgrade"});
  CHECK(kept.kafka->groups.at(0).protocol_downgrades() == 0);
  CHECK(kept.kafka->groups.at(0).report.unprocessed == 0);
}

TEST_CASE("restart_config sets the restarted consumer's request.timeout.ms and backoffs", "[kip848-migration][consumer]") {
  auto document = ksim::config::Document::from_string(static_replacement_downgrade_yaml(), "inline.yaml");
  for (const char* o : {"consumers.0.restart_config[request.timeout.ms]=20000", "consumers.0.restart_config[retry.backoff.ms]=200",
                        "consumers.0.restart_config[reconnect.backoff.ms]=100"}) {
    document.apply_override(o);
  }
  const auto scenario = ksim::app::read_scenario(document, ksim::app::expectation_catalogue());
  ksim::app::Cluster cluster(scenario, ksim::app::RunOptions{});
  const auto& consumer = *cluster.consumers().at(0);
  CHECK(consumer.timeouts().request_timeout == ksim::seconds(30));  // the first process: config's
  CHECK(consumer.timeouts().retry_backoff == ksim::milliseconds(100));
  cluster.run();
  // The process started at 11 s is a new client: every config from restart_config.
  CHECK(consumer.config().request_timeout == ksim::seconds(20));
  CHECK(consumer.timeouts().request_timeout == ksim::seconds(20));
  CHECK(consumer.timeouts().retry_backoff == ksim::milliseconds(200));
  CHECK(consumer.timeouts().reconnect_backoff == ksim::milliseconds(100));
}
