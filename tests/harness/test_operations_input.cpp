// The scenario's `operations:` (docs/scenarios.md#operations): each key read or
// refused with its place in the file, and what the reader makes of it.
#include <catch2/catch.hpp>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::parse_scenario;
using ksim::testing::scenario_error;

namespace {

std::string with_operations(const std::string& operations, const std::string& top = "") {
  return top + R"(
brokers: {count: 4}
topics:
  - {name: orders, partitions: 2, replication_factor: 3}
operations:
)" + operations;
}

}  // namespace

TEST_CASE("operations: a reassignment and a cancellation are read in time order", "[kip455][input]") {
  const auto s = parse_scenario(with_operations(R"(
  - {at: 5s, kind: cancel_reassignment, topic: orders, partitions: [1]}
  - {at: 2s, kind: reassign_partitions, topic: orders, replicas: {0: [3, 1, 2], 1: [2, 3]}, throttle: 10MB/s}
)"));
  REQUIRE(s.kafka);
  const auto& ops = s.kafka->operations;
  REQUIRE(ops.size() == 2);
  CHECK(ops[0].kind == ksim::app::OperationSpec::Kind::ReassignPartitions);
  CHECK(ops[0].at == ksim::seconds(2));
  REQUIRE(ops[0].replicas.size() == 2);
  CHECK(ops[0].replicas[0].first == 0);
  CHECK(ops[0].replicas[0].second == std::vector<ksim::models::BrokerId>{3, 1, 2});
  CHECK(ops[0].replicas[1].second == std::vector<ksim::models::BrokerId>{2, 3});
  CHECK(ops[0].throttle == Approx(10e6));
  CHECK(ops[1].kind == ksim::app::OperationSpec::Kind::CancelReassignment);
  CHECK(ops[1].partitions == std::vector<std::int32_t>{1});
}

TEST_CASE("operations: bad input is refused with its place and a reason", "[kip455][input]") {
  CHECK_THAT(scenario_error(with_operations("  - {at: 2s, topic: orders, replicas: {0: [1]}}\n")),
             Catch::Contains("kind") && Catch::Contains("is required"));
  CHECK_THAT(scenario_error(with_operations("  - {at: 2s, kind: move, topic: orders}\n")),
             Catch::Contains("reassign_partitions"));
  CHECK_THAT(scenario_error(with_operations("  - {at: 2s, kind: reassign_partitions, topic: order, replicas: {0: [1]}}\n")),
             Catch::Contains("unknown topic 'order'") && Catch::Contains("did you mean 'orders'"));
  CHECK_THAT(scenario_error(with_operations("  - {at: 2s, kind: reassign_partitions, topic: orders, replicas: {2: [1]}}\n")),
             Catch::Contains("not a partition of the topic (0 to 1)"));
  CHECK_THAT(scenario_error(with_operations("  - {at: 2s, kind: reassign_partitions, topic: orders, replicas: {0: [4]}}\n")),
             Catch::Contains("test.yaml:"));
  CHECK_THAT(scenario_error(with_operations("  - {at: 2s, kind: reassign_partitions, topic: orders, replicas: {0: [1, 1]}}\n")),
             Catch::Contains("broker listed twice"));
  CHECK_THAT(scenario_error(with_operations("  - {at: 2s, kind: reassign_partitions, topic: orders, replicas: {0: []}}\n")),
             Catch::Contains("needs at least one broker"));
  CHECK_THAT(scenario_error(with_operations("  - {at: 2s, kind: reassign_partitions, topic: orders}\n")),
             Catch::Contains("replicas") && Catch::Contains("is required"));
  CHECK_THAT(scenario_error(with_operations("  - {at: 2s, kind: cancel_reassignment, topic: orders}\n")),
             Catch::Contains("partitions") && Catch::Contains("is required"));
  CHECK_THAT(scenario_error(with_operations("  - {at: 2s, kind: cancel_reassignment, topic: orders, partitions: [0], throttle: 1MB/s}\n")),
             Catch::Contains("throttle"));
  CHECK_THAT(scenario_error(with_operations("  - {at: 99s, kind: cancel_reassignment, topic: orders, partitions: [0]}\n",
                                            "duration: 10s\ndrain: 5s\n")),
             Catch::Contains("after the run's end"));
  // A ZooKeeper-era cluster reassigns through its controller (zk_reassignment.cpp); before KIP-455 (2.4)
  // nothing can cancel a reassignment.
  CHECK(parse_scenario(with_operations("  - {at: 2s, kind: cancel_reassignment, topic: orders, partitions: [0]}\n",
                                       "kafka_version: \"2.8\"\n"))
            .kafka->operations.size() == 1);
  CHECK_THAT(scenario_error(with_operations("  - {at: 2s, kind: cancel_reassignment, topic: orders, partitions: [0]}\n",
                                            "kafka_version: \"2.3\"\n")),
             Catch::Contains("needs KIP-455 (Kafka 2.4)"));
  CHECK_THAT(scenario_error("rpc: {servers: 1, clients: 1}\noperations:\n  - {at: 1s, kind: cancel_reassignment}\n"),
             Catch::Contains("no brokers"));
}

TEST_CASE("operations: a decommission names a broker of the cluster", "[kip455][input]") {
  const auto s = parse_scenario(with_operations("  - {at: 3s, kind: decommission_broker, broker: 1, throttle: 5MB/s}\n"));
  REQUIRE(s.kafka->operations.size() == 1);
  CHECK(s.kafka->operations[0].kind == ksim::app::OperationSpec::Kind::DecommissionBroker);
  CHECK(s.kafka->operations[0].broker == 1);
  CHECK(s.kafka->operations[0].throttle == Approx(5e6));
  CHECK_THAT(scenario_error(with_operations("  - {at: 3s, kind: decommission_broker, broker: 4}\n")),
             Catch::Contains("broker"));
  CHECK_THAT(scenario_error(with_operations("  - {at: 3s, kind: decommission_broker}\n")),
             Catch::Contains("broker") && Catch::Contains("required"));
  CHECK_THAT(scenario_error(with_operations("  - {at: 3s, kind: decommission_broker, broker: 1, topic: orders}\n")),
             Catch::Contains("topic"));
}

TEST_CASE("operations: add_broker gives the next broker ids in time order, which later operations may name",
          "[kip455][input][add-broker]") {
  const auto s = parse_scenario(with_operations(R"(
  - {at: 9s, kind: generate_reassignment, throttle: 5MB/s}
  - {at: 8s, kind: add_broker, rack: r2}
  - {at: 4s, kind: add_broker}
  - {at: 9s, kind: reassign_partitions, topic: orders, replicas: {0: [5, 4, 1]}}
)", "network: {racks: [r1, r2, r3]}\n"));
  const auto& ops = s.kafka->operations;
  REQUIRE(ops.size() == 4);
  using Kind = ksim::app::OperationSpec::Kind;
  CHECK(ops[0].kind == Kind::AddBroker);  // 4 s: the first added, broker 4, the round robin's rack (4 % 3)
  CHECK(ops[0].broker == 4);
  CHECK(ops[0].rack == "r2");
  CHECK(ops[1].kind == Kind::AddBroker);
  CHECK(ops[1].broker == 5);
  CHECK(ops[1].rack == "r2");
  CHECK(ops[2].kind == Kind::GenerateReassignment);  // default --broker-list: every broker running at 9 s
  CHECK(ops[2].brokers == std::vector<ksim::models::BrokerId>{0, 1, 2, 3, 4, 5});
  CHECK(ops[2].throttle == Approx(5e6));
  CHECK(ksim::app::broker_total(*s.kafka) == 6);
  CHECK(ksim::app::brokers_present_at(*s.kafka, ksim::seconds(5)) == std::vector<ksim::models::BrokerId>{0, 1, 2, 3, 4});
  // The added brokers are nodes (and fault targets) of the cluster from the start.
  const auto nodes = ksim::app::node_placements(s);
  CHECK(std::count_if(nodes.begin(), nodes.end(), [](const auto& n) { return n.group == "brokers"; }) == 6);
}

TEST_CASE("operations: an added broker is named only from its addition on, and bad add_broker and "
          "generate_reassignment items are refused",
          "[kip455][input][add-broker]") {
  const std::string add = "  - {at: 10s, kind: add_broker}\n";
  CHECK_THAT(scenario_error(with_operations(add + "  - {at: 5s, kind: reassign_partitions, topic: orders, "
                                                  "replicas: {0: [4, 1, 2]}}\n")),
             Catch::Contains("operations.1.replicas.0: broker 4 is added at 10s (add_broker), after this operation at 5s"));
  CHECK_THAT(scenario_error(with_operations(add + "  - {at: 5s, kind: decommission_broker, broker: 4}\n")),
             Catch::Contains("broker 4 is added at 10s"));
  CHECK_THAT(scenario_error(with_operations(add + "  - {at: 5s, kind: generate_reassignment, brokers: [0, 4, 1]}\n")),
             Catch::Contains("operations.1.brokers: broker 4 is added at 10s"));
  CHECK_THAT(scenario_error(with_operations("  - {at: 5s, kind: reassign_partitions, topic: orders, replicas: {0: [4]}}\n")),
             Catch::Contains("operations.0.replicas.0.0: must be between 0 and 3, got 4"));  // no add_broker
  CHECK_THAT(scenario_error(with_operations("  - {at: 5s, kind: add_broker, rack: r9}\n")),
             Catch::Contains("operations.0.rack: 'r9' is not one of network.racks"));
  CHECK_THAT(scenario_error(with_operations("  - {at: 5s, kind: add_broker, broker: 7}\n")),
             Catch::Contains("operations.0.broker"));  // the id is the next one, not chosen
  CHECK_THAT(scenario_error(with_operations("  - {at: 5s, kind: generate_reassignment, brokers: [0, 1]}\n")),
             Catch::Contains("topic 'orders' has replication factor 3: the list needs at least that many brokers"));
  CHECK_THAT(scenario_error(with_operations("  - {at: 5s, kind: generate_reassignment, brokers: [0, 1, 1]}\n")),
             Catch::Contains("broker listed twice"));
  // ZooKeeper-era clusters add brokers too: the new process registers in ZooKeeper.
  CHECK(parse_scenario(with_operations("  - {at: 5s, kind: add_broker}\n", "kafka_version: \"2.8\"\n")).kafka->operations.size() == 1);
}

TEST_CASE("operations: internal_topics adds the internal topics to a decommission, which must fit on the others",
          "[kip455][input]") {
  const std::string group = "consumers: [{name: g, topic: orders}]\n";
  const auto s = ksim::testing::parse_scenario(
      group + with_operations("  - {at: 3s, kind: decommission_broker, broker: 1, internal_topics: true}\n"));
  CHECK(s.kafka->operations[0].internal_topics);
  // Three brokers: __consumer_offsets has replication factor 3 (offsets.topic.replication.factor), and two are left.
  CHECK_THAT(scenario_error(group + R"(
brokers: {count: 3}
topics: [{name: orders, partitions: 2, replication_factor: 2}]
operations: [{at: 3s, kind: decommission_broker, broker: 1, internal_topics: true}]
)"),
             Catch::Contains("operations.0.broker: topic '__consumer_offsets' has replication factor 3: the other "
                             "brokers cannot hold it"));
  CHECK(scenario_error(group + R"(
brokers: {count: 3}
topics: [{name: orders, partitions: 2, replication_factor: 2}]
operations: [{at: 3s, kind: decommission_broker, broker: 1}]
)") == "no error");
}
