// A ZooKeeper-era broker restarted while its previous process is still
// registered. The controller keeps the pushes it has not had answered and
// sends them again to the new process. From 2.0 (KAFKA-6772) a broker reads
// no request before it registers: KafkaServer.startup starts the socket
// server's processors last. From 2.2 (KIP-380) a push carries the broker
// epoch it was meant for, and the broker refuses one older than its own
// registration (KafkaApis.isBrokerEpochStale, STALE_BROKER_EPOCH).
#include <catch2/catch.hpp>

#include <string>
#include <variant>
#include <vector>

#include "app/harness/cluster.hpp"
#include "tests/support/scenario_runner.hpp"

namespace {

// broker-1 crashes at 10 s and restarts at 11 s, within its ZooKeeper session
// (6 s before 2.5); broker-2's controlled shutdown at 10.2 s makes the
// controller push new leaderships to every registered broker, broker-1 too.
// broker-1's host cannot reach ZooKeeper from 10.9 s to 11.5 s, so its new
// process registers only once that ends and the old session has expired.
const std::string kBounce = R"(
duration: 20s
drain: 5s
network: {racks: [a, b, c]}
brokers: {count: 3}
topics: [{name: t, partitions: 6, replication_factor: 3}]
producers:
  - name: p
    topic: t
    rate: 500/s
    record_size: 200B
    start: 1s
    config: {acks: all, enable.idempotence: true}
faults:
  - {kind: crash, at: 10s, duration: 1s, nodes: [broker-1]}
  - {kind: shutdown, at: 10200ms, duration: 30s, nodes: [broker-2]}
  - {kind: partition, at: 10900ms, duration: 600ms, nodes: [broker-1], other_nodes: [zookeeper]}
)";

struct BounceRun {
  std::vector<ksim::SimTime> role_changes;  // broker-1's BecameLeader and BecameFollower after its restart
  std::vector<ksim::models::StalePushRefused> refused;  // by broker-1
  ksim::app::RunReport report;
};

BounceRun bounce_run(const std::string& release) {
  auto document = ksim::config::Document::from_string(kBounce, "bounce.yaml");
  document.apply_override("kafka_version=" + release);
  const auto scenario = ksim::app::read_scenario(document, ksim::app::expectation_catalogue());
  ksim::app::Cluster cluster(scenario, ksim::app::RunOptions{});
  BounceRun run;
  cluster.model_events()->subscribe([&](ksim::SimTime now, const ksim::Node& from, const ksim::models::ModelEvent& e) {
    if (from.name() != "broker-1") return;
    if (const auto* refused = std::get_if<ksim::models::StalePushRefused>(&e)) run.refused.push_back(*refused);
    const bool role = std::holds_alternative<ksim::models::BecameLeader>(e) ||
                      std::holds_alternative<ksim::models::BecameFollower>(e);
    if (role && now >= ksim::seconds(11)) run.role_changes.push_back(now);
  });
  cluster.run();
  run.report = ksim::app::make_report(cluster, 0);
  return run;
}

// Its first leaderships come from pushes read once it registered, after the old session expired (16 s);
// nothing acknowledged is lost.
void check_served_once_registered(const BounceRun& run) {
  REQUIRE_FALSE(run.role_changes.empty());
  CHECK(run.role_changes.front() > ksim::seconds(16));
  REQUIRE(run.report.kafka);
  CHECK(run.report.kafka->delivery.acknowledged > 8000);
  CHECK(run.report.kafka->delivery.exactly_once());
}

}  // namespace

TEST_CASE("zookeeper era from 2.2: a restarted broker applies no push before it registers and refuses its "
          "previous process's after (KAFKA-6772 and KIP-380)",
          "[zookeeper][system][bounce]") {
  const BounceRun run = bounce_run("2.4");
  check_served_once_registered(run);
  // A push queued for the old process, resent after the registration, is refused.
  REQUIRE_FALSE(run.refused.empty());
  for (const auto& refused : run.refused) CHECK(refused.push_epoch < refused.broker_epoch);
}

TEST_CASE("zookeeper era 2.0 and 2.1: a restarted broker applies no push before it registers and pushes carry "
          "no broker epoch",
          "[zookeeper][system][bounce]") {
  const BounceRun run = bounce_run("2.0");
  check_served_once_registered(run);
  CHECK(run.refused.empty());
}

TEST_CASE("zookeeper era before 2.0: a restarted broker serves at once and applies its previous process's pushes",
          "[zookeeper][system][bounce]") {
  const BounceRun run = bounce_run("1.1");
  // The controller's pushes for the old process, resent within 100 ms of the restart, are applied while the
  // new process cannot reach ZooKeeper, unregistered (Kafka 1.1's socket server processes requests first).
  REQUIRE_FALSE(run.role_changes.empty());
  CHECK(run.role_changes.front() < ksim::milliseconds(11500));
  CHECK(run.refused.empty());
}
