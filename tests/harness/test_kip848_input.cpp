// group.protocol: consumer (KIP-848) in scenarios: where the release has it,
// what it refuses with it, and the brokers' group.consumer.* configs.
#include <catch2/catch.hpp>

#include <string>

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
  CHECK_THAT(scenario_error(kip848_with("consumers: [{name: a, topic: t, config: {group.id: g}},\n"
                                        "  {name: b, topic: t, config: {group.id: g, group.protocol: consumer}}]\n")),
             Catch::Contains("mixes group.protocol classic and consumer"));
  CHECK_THAT(scenario_error("kafka_version: \"3.9\"\n" +
                            kip848_with("consumers: [{name: c, topic: t, kafka_version: \"4.0\", "
                                        "config: {group.protocol: consumer}}]\n")),
             Catch::Contains("needs brokers with KIP-848 (4.0+); the cluster runs 3.9"));
}

TEST_CASE("the brokers' group.consumer.* configs", "[kip848][releases]") {
  const auto scenario = parse_scenario(
      "brokers: {count: 3, config: {group.consumer.heartbeat.interval.ms: 2s, group.consumer.session.timeout.ms: 20s, "
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
