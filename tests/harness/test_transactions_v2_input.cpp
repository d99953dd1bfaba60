// Transactions v2 (KIP-890 part 2) in scenarios: on where the cluster's
// feature and the producer's release both have it, and the configs of 4.0.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::parse_scenario;
using ksim::testing::scenario_error;

namespace {

std::string txn_cluster(const std::string& before, const std::string& producer_extra = "") {
  return before + "brokers: {count: 3}\ntopics: [{name: t, partitions: 3}]\n"
                  "producers: [{name: p, topic: t, config: {transactional.id: tx}" + producer_extra + "}]\n";
}

bool producer_v2(const std::string& yaml) { return parse_scenario(yaml).kafka->producers.at(0).config.transaction_v2; }

}  // namespace

TEST_CASE("transactions v2 needs the cluster's transaction.version 2 and a 4.0+ producer", "[kip-890][releases]") {
  CHECK(producer_v2(txn_cluster("")));  // 4.3: a new cluster has transaction.version=2
  CHECK(parse_scenario(txn_cluster("")).kafka->controller.transaction_version == 2);
  CHECK_FALSE(producer_v2(txn_cluster("kafka_version: \"3.9\"\n")));
  CHECK(parse_scenario(txn_cluster("kafka_version: \"3.9\"\n")).kafka->controller.transaction_version == 0);
  CHECK_FALSE(producer_v2(txn_cluster("controller: {features: {transaction.version: 1}}\n")));
  CHECK_FALSE(producer_v2(txn_cluster("kips: {KIP-890-part2: off}\n")));
  // A 3.9 client on a 4.3 cluster sends Produce v11 and EndTxn v4: v1.
  CHECK_FALSE(parse_scenario("brokers: {count: 3}\ntopics: [{name: t, partitions: 3}]\n"
                             "producers: [{name: p, topic: t, kafka_version: \"3.9\", config: {transactional.id: tx}}]\n")
                  .kafka->producers.at(0)
                  .config.transaction_v2);
}

TEST_CASE("the 4.0 configs of transactions v2 are refused before 4.0", "[kip-890][releases]") {
  CHECK_THAT(scenario_error(txn_cluster("kafka_version: \"3.9\"\ncontroller: {features: {transaction.version: 2}}\n")),
             Catch::Contains("transaction.version: not in Kafka 3.9"));
  CHECK_THAT(scenario_error(txn_cluster("controller: {features: {transaction.version: 3}}\n")),
             Catch::Contains("transaction.version"));
  const auto scenario = parse_scenario(
      "brokers: {count: 3, config: {add.partitions.to.txn.retry.backoff.ms: 5ms, "
      "add.partitions.to.txn.retry.backoff.max.ms: 1s}}\ntopics: [{name: t, partitions: 3}]\n");
  CHECK(scenario.kafka->broker.add_partitions_to_txn_retry_backoff == ksim::milliseconds(5));
  CHECK(scenario.kafka->broker.add_partitions_to_txn_retry_backoff_max == ksim::seconds(1));
  CHECK_THAT(scenario_error("kafka_version: \"3.9\"\nbrokers: {count: 3, config: {add.partitions.to.txn.retry.backoff.ms: 5ms}}\n"
                            "topics: [{name: t, partitions: 3}]\n"),
             Catch::Contains("add.partitions.to.txn.retry.backoff.ms: not in Kafka 3.9"));
}
