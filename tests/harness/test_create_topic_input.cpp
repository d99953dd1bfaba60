// The create_topic operation (docs/scenarios.md#operations): read, or refused
// with its place in the file and the reason.
#include <catch2/catch.hpp>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::parse_scenario;
using ksim::testing::scenario_error;

namespace {

std::string with_created_topic(const std::string& operations, const std::string& config = "{auto.create.topics.enable: false}",
                               const std::string& top = "") {
  return top + "brokers: {count: 3, config: " + config + R"(}
topics:
  - {name: orders, partitions: 4, replication_factor: 3}
  - {name: audit, partitions: 1, replication_factor: 1}
producers:
  - {name: app, topic: orders, rate: 100/s}
operations:
)" + operations;
}

}  // namespace

TEST_CASE("create_topic: names a topic of topics:, which the cluster then does not start with", "[create-topic][input]") {
  const auto s = parse_scenario(with_created_topic("  - {at: 5s, kind: create_topic, topic: orders}\n"));
  REQUIRE(s.kafka);
  REQUIRE(s.kafka->operations.size() == 1);
  CHECK(s.kafka->operations[0].kind == ksim::app::OperationSpec::Kind::CreateTopic);
  CHECK(s.kafka->operations[0].topic == 0);
  CHECK(s.kafka->operations[0].at == ksim::seconds(5));
  CHECK_FALSE(s.kafka->topic_defaults.auto_create_topics);
  // A topic no client uses needs nothing of auto.create.topics.enable.
  const auto unused = parse_scenario(with_created_topic("  - {at: 5s, kind: create_topic, topic: audit}\n", "{}"));
  CHECK(unused.kafka->topic_defaults.auto_create_topics);
}

TEST_CASE("create_topic: bad input is refused with its place and a reason", "[create-topic][input]") {
  // Kafka's default auto.create.topics.enable=true would have the producer's metadata request create it first.
  CHECK_THAT(scenario_error(with_created_topic("  - {at: 5s, kind: create_topic, topic: orders}\n", "{}")),
             Catch::Contains("test.yaml:") && Catch::Contains("producer entry 'app'") &&
                 Catch::Contains("auto.create.topics.enable") && Catch::Contains("num.partitions"));
  CHECK_THAT(scenario_error(with_created_topic("  - {at: 5s, kind: create_topic, topic: orders}\n"
                                               "  - {at: 9s, kind: create_topic, topic: orders}\n")),
             Catch::Contains("'orders' is created by the operation at line"));
  CHECK_THAT(scenario_error(with_created_topic("  - {at: 5s, kind: create_topic, topic: order}\n")),
             Catch::Contains("did you mean 'orders'"));
  CHECK_THAT(scenario_error(with_created_topic("  - {at: 5s, kind: create_topic}\n")),
             Catch::Contains("topic") && Catch::Contains("required"));
  CHECK_THAT(scenario_error(with_created_topic("  - {at: 5s, kind: create_topic, topic: orders, throttle: 1MB/s}\n")),
             Catch::Contains("throttle"));
  // ZooKeeper-era clusters create topics too (zk_topics.cpp).
  CHECK(parse_scenario(with_created_topic("  - {at: 5s, kind: create_topic, topic: orders}\n",
                                          "{auto.create.topics.enable: false}", "kafka_version: \"2.8\"\n"))
            .kafka->operations.size() == 1);
}

TEST_CASE("create: auto takes the brokers' num.partitions and default.replication.factor, and refuses its own",
          "[auto-create][input]") {
  const std::string base = R"(brokers: {count: 3, config: {num.partitions: 4, default.replication.factor: 2}}
topics:
  - {name: orders, create: auto}
producers:
  - {name: app, topic: orders, rate: 100/s}
)";
  const auto s = parse_scenario(base);
  REQUIRE(s.kafka);
  CHECK(s.kafka->topics[0].auto_created);
  CHECK(s.kafka->topics[0].partitions == 4);
  CHECK(s.kafka->topics[0].replication_factor == 2);
  CHECK_THAT(scenario_error("brokers: {count: 3}\ntopics:\n  - {name: orders, create: auto, partitions: 6}\n"),
             Catch::Contains("partitions") && Catch::Contains("num.partitions"));
  CHECK_THAT(scenario_error("brokers: {count: 3}\ntopics:\n  - {name: orders, create: auto, config: {retention.ms: 1000}}\n"),
             Catch::Contains("config"));
  CHECK_THAT(scenario_error("brokers: {count: 3, config: {auto.create.topics.enable: false}}\n"
                            "topics:\n  - {name: orders, create: auto}\n"),
             Catch::Contains("nothing would create it"));
  CHECK_THAT(scenario_error("brokers: {count: 2, config: {default.replication.factor: 3}}\n"
                            "topics:\n  - {name: orders, create: auto}\n"),
             Catch::Contains("INVALID_REPLICATION_FACTOR"));
  CHECK_THAT(scenario_error("brokers: {count: 3}\ntopics:\n  - {name: orders, create: later}\n"),
             Catch::Contains("start") && Catch::Contains("auto"));
  CHECK(parse_scenario("kafka_version: \"2.8\"\nbrokers: {count: 3}\ntopics:\n  - {name: orders, create: auto}\n")
            .kafka->topics[0].auto_created);
  CHECK_THAT(scenario_error(base + "operations:\n  - {at: 5s, kind: create_topic, topic: orders}\n"),
             Catch::Contains("created automatically"));
}
