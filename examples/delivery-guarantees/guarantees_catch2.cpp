// Which delivery guarantee does our producer's configuration give when the
// network stalls for longer than request.timeout.ms? Catch2 v2 tests on ksim.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <chrono>

#include <ksim/ksim.hpp>

using namespace std::chrono_literals;

TEST_CASE("without idempotence, retries of late requests write records twice: at-least-once, not exactly-once") {
  ksim::Scenario payments = ksim::Scenario::load(PAYMENTS_SCENARIO);
  payments.set("producers.0.config[enable.idempotence]", "false");
  ksim::Cluster cluster(payments);
  cluster.run();
  const ksim::Report report = cluster.report();
  INFO(report.text);
  REQUIRE(report.delivery);
  CHECK(report.delivery->acknowledged > 0);
  CHECK(report.delivery->at_least_once);
  CHECK(report.delivery->duplicated > 0);
  CHECK_FALSE(report.delivery->exactly_once);
  CHECK(report.invariants.empty());
}

TEST_CASE("with idempotence, the broker drops the retried copies: exactly-once, over several seeds") {
  for (const std::uint64_t seed : {1, 2, 3}) {
    ksim::Scenario payments = ksim::Scenario::load(PAYMENTS_SCENARIO);
    payments.set("producers.0.config[enable.idempotence]", "true").seed(seed);
    ksim::Cluster cluster(payments);
    cluster.run_until(15s);  // the faults
    cluster.heal();
    const ksim::Liveness live = cluster.run_until_quiet(60s);
    INFO("seed " << seed << ": " << live.pending);
    REQUIRE(live);
    const ksim::Report report = cluster.report();
    CHECK(report.delivery->exactly_once);
    CHECK(report.delivery->duplicated == 0);
    CHECK(report.invariants.empty());
  }
}
