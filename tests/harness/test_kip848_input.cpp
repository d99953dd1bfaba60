// group.protocol: consumer (KIP-848) in scenarios: where the release has it,
// what it refuses with it, and the brokers' group.consumer.* configs.
#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::parse_scenario;
using ksim::testing::scenario_error;

namespace {

// A cluster with one topic, and `extra` after it.
std::string kip848_with(const std::string& extra) { return "brokers: {count: 3}\ntopics: [{name: t, partitions: 3}]\n" + extra; }

std::string kip848_consumer(const std::string& config) {
  return kip848_with("consumers: [{name: c, topic: t, config: {" + config + "}}]\n");
}

}  // namespace

TEST_CASE("group.protocol: consumer is read on 4.0+, classic stays the default", "[kip848][releases]") {
  const auto scenario = parse_scenario(kip848_consumer("group.protocol: consumer, group.remote.assignor: range"));
  const auto& c = scenario.kafka->consumers.at(0).config;
  CHECK(c.consumer_protocol);
  CHECK(c.remote_assignor == "range");
  CHECK_FALSE(parse_scenario(kip848_consumer("group.id: g")).kafka->consumers.at(0).config.consumer_protocol);
  CHECK(scenario_error("kafka_version: \"4.0\"\n" + kip848_consumer("group.protocol: consumer")) == "no error");
}

TEST_CASE("group.protocol: consumer is refused where it cannot run", "[kip848][releases]") {
  CHECK_THAT(scenario_error("kafka_version: \"3.9\"\n" + kip848_consumer("group.protocol: consumer")),
             Catch::Contains("group.protocol: not in Kafka 3.9: KIP-848"));
  CHECK_THAT(scenario_error(kip848_consumer("group.protocol: consumer, session.timeout.ms: 10s")),
             Catch::Contains("session.timeout.ms: not supported with group.protocol: consumer"));
  CHECK_THAT(scenario_error(kip848_consumer("group.protocol: consumer, partition.assignment.strategy: range")),
             Catch::Contains("partition.assignment.strategy: not supported with group.protocol: consumer"));
  CHECK_THAT(scenario_error(kip848_consumer("group.protocol: consumer, group.remote.assignor: unifrom")),
             Catch::Contains("did you mean 'uniform'?"));
  CHECK_THAT(scenario_error(kip848_consumer("group.remote.assignor: uniform")),
             Catch::Contains("group.remote.assignor: is for group.protocol: consumer"));
  CHECK_THAT(scenario_error("kafka_version: \"3.9\"\n" +
                            kip848_with("consumers: [{name: c, topic: t, kafka_version: \"4.0\", "
                                        "config: {group.protocol: consumer}}]\n")),
             Catch::Contains("needs brokers with KIP-848 (4.0+); the cluster runs 3.9"));
}

TEST_CASE("the brokers' group.consumer.* configs", "[kip848][releases]") {
  const auto scenario = parse_scenario(
      "brokers: {count: 3, config: {group.consumer.heartbeat.interval.ms: 2s, group.consumer.session.timeout.ms: 20s, "
      "group.consumer.min.heartbeat.interval.ms: 2s, group.consumer.min.session.timeout.ms: 20s, "
      "group.consumer.assignors: [range, uniform]}}\ntopics: [{name: t, partitions: 3}]\n");
  const auto& g = scenario.kafka->broker.group_coordinator;
  CHECK(g.consumer_heartbeat_interval == ksim::seconds(2));
  CHECK(g.consumer_session_timeout == ksim::seconds(20));
  CHECK(g.consumer_assignors == std::vector<std::string>{"range", "uniform"});
  CHECK_THAT(scenario_error("kafka_version: \"3.9\"\nbrokers: {count: 3, config: {group.consumer.session.timeout.ms: 20s}}\n"
                            "topics: [{name: t, partitions: 3}]\n"),
             Catch::Contains("group.consumer.session.timeout.ms: not in Kafka 3.9: KIP-848"));
  CHECK_THAT(scenario_error("brokers: {count: 3, config: {group.consumer.assignors: sticky}}\ntopics: [{name: t, partitions: 3}]\n"),
             Catch::Contains("unknown assignor 'sticky'"));
}

TEST_CASE("KIP-848's online migration in scenarios: mixed groups, restart_config, the migration policy",
          "[kip848-migration][releases]") {
  // One group may mix the protocols (the coordinator migrates it online).
  CHECK(scenario_error(kip848_with("consumers: [{name: a, topic: t, config: {group.id: g}},\n"
                                   "  {name: b, topic: t, config: {group.id: g, group.protocol: consumer}}]\n")) == "no error");
  const auto scenario = parse_scenario(kip848_with(
      "consumers: [{name: c, count: 2, topic: t, config: {partition.assignment.strategy: cooperative-sticky},\n"
      "  restart_config: {group.protocol: consumer, max.poll.records: 50}}]\n"));
  const auto& c = scenario.kafka->consumers.at(0);
  CHECK_FALSE(c.config.consumer_protocol);
  REQUIRE(c.restart_config);
  CHECK(c.restart_config->consumer_protocol);
  CHECK(c.restart_config->max_poll_records == 50);
  CHECK(c.restart_config->group_id == "c");
  CHECK(scenario.kafka->broker.group_coordinator.consumer_migration_policy ==
        ksim::models::GroupCoordinatorConfig::MigrationPolicy::Bidirectional);  // Kafka 4.0's default
  CHECK_THAT(scenario_error(kip848_with("consumers: [{name: c, topic: t, restart_config: {group.id: other}}]\n")),
             Catch::Contains("must be the consumers' group.id"));
  // A restarted consumer is a new client: its timeouts may change too.
  const auto timeouts = parse_scenario(kip848_with(
      "consumers: [{name: c, topic: t, restart_config: {request.timeout.ms: 5s, retry.backoff.ms: 300}}]\n"));
  CHECK(timeouts.kafka->consumers.at(0).restart_config->request_timeout == ksim::seconds(5));
  CHECK(timeouts.kafka->consumers.at(0).restart_config->retry_backoff == ksim::milliseconds(300));
  CHECK(timeouts.kafka->consumers.at(0).config.request_timeout == ksim::seconds(30));
  CHECK_THAT(scenario_error(kip848_with("consumers: [{name: c, topic: t, restart_config: {group.protocol: consumer, "
                                        "session.timeout.ms: 10s}}]\n")),
             Catch::Contains("session.timeout.ms: not supported with group.protocol: consumer"));
  CHECK_THAT(scenario_error("kafka_version: \"3.9\"\n" +
                            kip848_with("consumers: [{name: c, topic: t, restart_config: {group.protocol: consumer}}]\n")),
             Catch::Contains("group.protocol: not in Kafka 3.9: KIP-848"));
  const auto disabled = parse_scenario(
      "brokers: {count: 3, config: {group.consumer.migration.policy: disabled, group.consumer.max.size: 10, "
      "group.max.size: 20}}\ntopics: [{name: t, partitions: 3}]\n");
  const auto& g = disabled.kafka->broker.group_coordinator;
  CHECK(g.consumer_migration_policy == ksim::models::GroupCoordinatorConfig::MigrationPolicy::Disabled);
  CHECK(g.consumer_max_size == 10);
  CHECK(g.classic_max_size == 20);
  CHECK_THAT(scenario_error("brokers: {count: 3, config: {group.consumer.migration.policy: sideways}}\n"
                            "topics: [{name: t, partitions: 3}]\n"),
             Catch::Contains("group.consumer.migration.policy"));
  CHECK_THAT(scenario_error("kafka_version: \"3.9\"\nbrokers: {count: 3, config: {group.consumer.migration.policy: upgrade}}\n"
                            "topics: [{name: t, partitions: 3}]\n"),
             Catch::Contains("group.consumer.migration.policy: not in Kafka 3.9: KIP-848"));
}

// GroupCoordinatorConfig and ShareGroupConfig: a broker refuses to start with a
// heartbeat, session or lock outside its *.min.* / *.max.* bounds, which a
// user may move (found running ksim's scenarios on real Kafka 4.4).
TEST_CASE("group timings below Kafka's configurable floors are refused, naming the floor", "[kip848][share][releases]") {
  const std::pair<const char*, const char*> refused[] = {
      {"group.consumer.heartbeat.interval.ms: 2s",
       "group.consumer.heartbeat.interval.ms is below group.consumer.min.heartbeat.interval.ms"},
      {"group.consumer.session.timeout.ms: 90s", "group.consumer.session.timeout.ms is above group.consumer.max.session.timeout.ms"},
      {"group.share.record.lock.duration.ms: 10s",
       "group.share.record.lock.duration.ms is below group.share.min.record.lock.duration.ms"},
      {"group.consumer.min.heartbeat.interval.ms: 10s",
       "group.consumer.heartbeat.interval.ms is below group.consumer.min.heartbeat.interval.ms"},
      {"group.consumer.min.heartbeat.interval.ms: 20s",
       "group.consumer.max.heartbeat.interval.ms: must be at least group.consumer.min.heartbeat.interval.ms"},
  };
  for (const auto& [config, error] : refused) {
    INFO(config);
    CHECK_THAT(scenario_error(std::string("brokers: {count: 3, config: {") + config + "}}\ntopics: [{name: t, partitions: 3}]\n"),
               Catch::Contains(error));
  }
  // Lowered with its floor, as the scenarios that time out in seconds do: accepted.
  const auto scenario = parse_scenario(
      "brokers: {count: 3, config: {group.share.record.lock.duration.ms: 10s, group.share.min.record.lock.duration.ms: 10s}}\n"
      "topics: [{name: t, partitions: 3}]\n");
  CHECK(scenario.kafka->broker.group_coordinator.share_record_lock_duration == ksim::seconds(10));
}
