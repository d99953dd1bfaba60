// The ZooKeeper-era controller's pushes (LeaderAndIsr, UpdateMetadata) lost
// with their connection: Kafka's ControllerChannelManager.RequestSendThread
// keeps each request until its broker answers, reconnecting and sending it
// again every 100 ms until the broker leaves the live set. ksim forgot a push
// whose connection was lost, so a broker could miss a leadership for good.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_scenario;

// Found by ksim explore of chaos.yaml on 2.8 (run 406 of root seed 77):
// broker-1, restarted within its old ZooKeeper session, refuses connections
// while it retries its registration. When the old session expires its new
// registration is created; the controller sees broker-1 bounced and elects it
// leader of six partitions (ISR {1}) before broker-1's side has the answer to
// its registration, so broker-1 refuses the push's connection. Without the
// resend the six partitions stay offline to the end.
TEST_CASE("zookeeper era: a push lost with its connection to a broker is sent again until answered",
          "[zookeeper][system]") {
  const auto run = run_scenario(
      "chaos", 6027135205344170678ULL,
      {"kafka_version=2.8", "producers.0.config[acks]=all", "producers.0.config[enable.idempotence]=true",
       "nemesis={start: 1s, end: 30s, crash: {rate: 0.156540168/s, duration: {distribution: uniform, min: 100ms, "
       "max: 1660610351ns}, targets: [brokers]}, pause: {rate: 0.130367095/s, duration: {distribution: uniform, "
       "min: 100ms, max: 2982699445ns}, targets: [brokers]}, partition: {rate: 0.144608959/s, duration: "
       "{distribution: uniform, min: 100ms, max: 4393646559ns}, targets: [brokers]}, latency_spike: {rate: "
       "0.114722516/s, duration: {distribution: uniform, min: 100ms, max: 5706046791ns}, extra: 3379610224ns}}"});
  CHECK(run.report["offline_partitions"].empty());  // six, before
  CHECK(run.report["delivery"]["verdict"] == "exactly-once");
  CHECK(run.report["delivery"]["unavailable"] == 0);
  CHECK(run.report["delivery"]["acknowledged"].get<int>() > 17902);
  CHECK(run.report["invariant_violations"] == 0);
}
