// Preferred leader election (auto.leader.rebalance.enable, KRaft's
// QuorumController.maybeBalancePartitionLeaders): a broker that crashed and
// came back gets its preferred leaderships back once it is in the ISR,
// leader.imbalance.check.interval.seconds after the imbalance began; not
// with the balancing off.
#include <catch2/catch.hpp>

#include <string>

#include "app/harness/cluster.hpp"
#include "tests/support/scenario_runner.hpp"

namespace {

std::string restarted_broker(bool rebalance) {
  return std::string(R"(
name: leader-balance-test
duration: 40s
drain: 5s
brokers:
  count: 3
  config: {leader.imbalance.check.interval.seconds: 10, auto.leader.rebalance.enable: )") +
         (rebalance ? "true" : "false") + R"(}
topics:
  - {name: orders, partitions: 3, replication_factor: 3, assignment: [[0, 1, 2], [1, 2, 0], [2, 0, 1]]}
producers:
  - {name: app, topic: orders, rate: 2000/s, record_size: 200B}
faults:
  - {kind: crash, at: 5s, duration: 5s, nodes: [broker-0]}
)";
}

}  // namespace

TEST_CASE("a restarted broker gets its preferred leaderships back", "[leader-balance][system]") {
  for (const bool rebalance : {true, false}) {
    INFO("auto.leader.rebalance.enable " << rebalance);
    const auto scenario = ksim::testing::parse_scenario(restarted_broker(rebalance));
    ksim::app::Cluster cluster(scenario, ksim::app::RunOptions{});
    cluster.run();
    const auto report = ksim::app::make_report(cluster, 0);
    REQUIRE(report.kafka);
    CHECK(report.kafka->delivery.lost == 0);
    CHECK(report.kafka->invariant_violations == 0);
    // Partition 0's leadership moved to broker 1 at the crash; broker 0 is back in the ISR by ~11 s.
    CHECK(cluster.brokers()[0]->is_leader({0, 0}) == rebalance);
    CHECK(report.kafka->controller.preferred_elections == (rebalance ? 1U : 0U));
  }
}
