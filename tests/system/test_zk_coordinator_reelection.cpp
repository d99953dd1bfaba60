// With ZooKeeper, the controller bumps the leader epoch of every partition
// whose ISR loses a failed broker, and sends the unchanged leader a
// LeaderAndIsr. Kafka's coordinators do not hear of it:
// ReplicaManager.makeLeaders passes on to KafkaApis.onLeadershipChange only
// partitions whose leader is new (Partition.makeLeader's isNewLeader). ksim's
// transaction coordinator loaded __transaction_state again each time (as a
// KRaft broker's does at a higher epoch, TransactionCoordinator.onElection),
// and its group coordinator the groups, forgetting rebalances in progress.
#include <catch2/catch.hpp>

#include <string>
#include <variant>
#include <vector>

#include "app/harness/cluster.hpp"
#include "tests/support/scenario_runner.hpp"

namespace {

// tx-1's transactions live on __transaction_state partition 20, led by
// broker-1 with broker-2 in its ISR. broker-2 crashes for longer than its
// ZooKeeper session (18 s on 2.8): when the session expires the controller
// removes it from the ISRs at a new leader epoch.
const std::string kTxnReelection = R"(
duration: 40s
drain: 10s
network: {racks: [a, b, c]}
brokers: {count: 3}
topics: [{name: t, partitions: 3, replication_factor: 3}]
producers:
  - name: tx
    topic: t
    rate: 200/s
    record_size: 200B
    start: 1s
    records_per_transaction: 20
    config: {transactional.id: "tx-1", acks: all, enable.idempotence: true}
faults:
  - {kind: crash, at: 10s, duration: 25s, nodes: [broker-2]}
)";

struct ReelectionRun {
  std::vector<ksim::SimTime> txn_loads;           // of partition 20
  std::vector<std::int32_t> leader_epochs;       // partition 20's BecameLeader on broker-1
  ksim::app::RunReport report;
};

ReelectionRun txn_reelection_run(const std::string& release) {
  auto document = ksim::config::Document::from_string(kTxnReelection, "txn-reelection.yaml");
  document.apply_override("kafka_version=" + release);
  const auto scenario = ksim::app::read_scenario(document, ksim::app::expectation_catalogue());
  ksim::app::Cluster cluster(scenario, ksim::app::RunOptions{});
  ReelectionRun run;
  cluster.model_events()->subscribe([&](ksim::SimTime now, const ksim::Node& from, const ksim::models::ModelEvent& e) {
    if (const auto* load = std::get_if<ksim::models::TxnLoadStarted>(&e); load && load->partition == 20) {
      run.txn_loads.push_back(now);
    }
    const auto* leader = std::get_if<ksim::models::BecameLeader>(&e);
    if (leader && from.name() == "broker-1" && leader->partition.partition == 20 && leader->partition.topic != 0) {
      run.leader_epochs.push_back(leader->epoch);
    }
  });
  cluster.run();
  run.report = ksim::app::make_report(cluster, 0);
  return run;
}

}  // namespace

TEST_CASE("zookeeper era: a coordinator given a new leader epoch while it leads does not load its partition again",
          "[zookeeper][system][coordinator-reelection]") {
  const ReelectionRun run = txn_reelection_run("2.8");
  // The precondition: broker-1 led partition 20 from the start and was told so again at a higher epoch.
  REQUIRE(run.leader_epochs.size() >= 2);
  CHECK(run.leader_epochs.back() > run.leader_epochs.front());
  // Loaded with records only by a reload (the first load, at the start, finds the partition empty).
  CHECK(run.txn_loads.empty());
  REQUIRE(run.report.kafka);
  CHECK(run.report.kafka->delivery.acknowledged > 4000);
  CHECK(run.report.kafka->delivery.exactly_once());
}
