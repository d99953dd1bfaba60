// group.max.size (KIP-389) and group.consumer.max.size (KIP-848): a group
// with more consumers than its brokers allow refuses the extra member with
// GROUP_MAX_SIZE_REACHED under both protocols, and that member's application
// stops (its poll() throws), named in the report with its time and error
// (scenarios/group-max-size.yaml). A static member back with a new process
// counts as a new member: a full group refuses it too (before KAFKA-20601).
// The configs come with their releases.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_inline;
using ksim::testing::run_scenario;
using ksim::testing::scenario_error;

namespace {

const nlohmann::json& max_size_group(const nlohmann::json& report, const std::string& name) {
  for (const auto& g : report["groups"]) {
    if (g["group"] == name) return g;
  }
  FAIL("no group " << name);
  return report["groups"][0];
}

// Three static members, group.max.size (or group.consumer.max.size) 3; app-1 is shut down at 10 s
// and back at 11 s (a static member sends no LeaveGroup on the classic protocol, leaves with
// epoch -2 on the consumer protocol: either way it keeps its place until its session expires).
std::string full_static_group_yaml(bool consumer_protocol) {
  return std::string(R"(
name: full-static-group
duration: 25s
drain: 10s
brokers: {count: 3, config: {group.max.size: 3, group.consumer.max.size: 3}}
topics: [{name: t, partitions: 6, replication_factor: 3}]
producers: [{name: p, topic: t, rate: 200/s, record_size: 200B, start: 1s}]
consumers:
  - name: app
    count: 3
    topic: t
    commit: sync-after-process
    config: {enable.auto.commit: false, auto.offset.reset: earliest, group.instance.id: "{name}")") +
         (consumer_protocol ? ", group.protocol: consumer" : "") + R"(}
faults:
  - {kind: shutdown, at: 10s, duration: 1s, nodes: [app-1]}
)";
}

}  // namespace

TEST_CASE("a group with group.max.size below its consumer count refuses the extra member under both protocols",
          "[group-max-size][consumer]") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    const auto run = run_scenario("group-max-size", seed);
    CHECK(run.status == ksim::app::kExitOk);
    for (const char* name : {"classic", "modern"}) {
      INFO(name);
      const auto& g = max_size_group(run.report, name);
      CHECK(g["members"].size() == 4);
      CHECK(g["unprocessed"] == 0);  // the three members read everything
      REQUIRE(g["stopped"] == 1);
      const auto& stop = g["stopped_members"][0];
      const std::string request = std::string(name) == "classic" ? "JoinGroup" : "ConsumerGroupHeartbeat";
      CHECK(stop["reason"] == request + ": GROUP_MAX_SIZE_REACHED");
      CHECK(stop["member"].get<std::string>().starts_with(name));
      CHECK(stop["at_s"].get<double>() < 5.0);  // at its first join
      // The refused member never owned a partition; the rebalances end, its own time in them too.
      CHECK(g["member_rebalance_max_s"].get<double>() < 10.0);
      for (const auto& r : g["rebalance_log"]) CHECK(r["members"].get<int>() <= 3);
    }
  }
}

TEST_CASE("without group.max.size the same groups take all four members", "[group-max-size][consumer]") {
  const auto run = run_scenario("group-max-size", 1,
                                {"brokers.config[group.max.size]=100", "brokers.config[group.consumer.max.size]=100"});
  CHECK(run.status != ksim::app::kExitOk);  // stopped: 1 is not met
  for (const char* name : {"classic", "modern"}) {
    INFO(name);
    const auto& g = max_size_group(run.report, name);
    CHECK(g["stopped"] == 0);
    CHECK(g["stopped_members"].empty());
    CHECK(g["unprocessed"] == 0);
  }
}

TEST_CASE("a full group refuses a static member back with a new process (before KAFKA-20601)", "[group-max-size][consumer]") {
  for (const bool consumer_protocol : {false, true}) {
    INFO((consumer_protocol ? "consumer protocol" : "classic protocol"));
    const auto report = run_inline(full_static_group_yaml(consumer_protocol), 1);
    const auto& g = report.kafka->groups.at(0);
    REQUIRE(g.report.stops.size() == 1);
    CHECK(g.report.stops[0].member == "app-1");
    CHECK(g.report.stops[0].at >= ksim::seconds(11));
    CHECK(g.report.stops[0].at < ksim::seconds(12));
    CHECK(g.report.stops[0].reason.ends_with("GROUP_MAX_SIZE_REACHED"));
    // Its old place is freed when its session expires (45 s, past the run), so app-1's partitions
    // have no live owner from 10 s on; the run ends before anyone takes them, and the checker says why.
    CHECK(g.report.unprocessed > 0);
    CHECK(g.report.unreached == g.report.unprocessed);
    REQUIRE(g.report.unprocessed_causes.size() == 1);
    CHECK_THAT(g.report.unprocessed_causes[0].cause,
               Catch::StartsWith("not read: the member that last owned its partition, app-1, stopped at 11.") &&
                   Catch::Contains("GROUP_MAX_SIZE_REACHED) and no other took the partition by the end"));
  }
  // One place more: the static member takes its old place again.
  const auto report = run_inline(full_static_group_yaml(false), 1, {"brokers.config[group.max.size]=4"});
  CHECK(report.kafka->groups.at(0).report.stops.empty());
  CHECK(report.kafka->groups.at(0).report.unprocessed == 0);
}

TEST_CASE("group.max.size comes with KIP-389 (2.2), group.consumer.max.size with KIP-848 (4.0)", "[group-max-size][releases]") {
  const std::string base = R"(
brokers: {count: 1, config: {MAXSIZE: 3}}
topics: [{name: t, partitions: 1, replication_factor: 1}]
consumers: [{name: c, topic: t}]
)";
  const auto with = [&](const std::string& version, const std::string& key) {
    std::string yaml = "kafka_version: \"" + version + "\"" + base;
    yaml.replace(yaml.find("MAXSIZE"), 7, key);
    return yaml;
  };
  CHECK_THAT(scenario_error(with("2.1", "group.max.size")), Catch::Contains("group.max.size: not in Kafka 2.1: KIP-389"));
  CHECK(scenario_error(with("2.2", "group.max.size")) == "no error");
  CHECK_THAT(scenario_error(with("3.9", "group.consumer.max.size")), Catch::Contains("not in Kafka 3.9: KIP-848"));
  CHECK(scenario_error(with("4.0", "group.consumer.max.size")) == "no error");
}
