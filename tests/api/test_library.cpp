// ksim as a library, through include/ksim only, as a user's own test uses it.
#include <catch2/catch.hpp>

#include <chrono>

#include "ksim/ksim.hpp"

using namespace std::chrono_literals;

namespace {

ksim::Scenario quickstart() { return ksim::Scenario::load(std::string(KSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml"); }

}  // namespace

TEST_CASE("the library runs a scenario as ksim run does, with the same trace hash", "[api]") {
  ksim::Scenario s = quickstart();
  s.set("duration", "6s").set("drain", "3s").seed(3);
  ksim::Cluster a(s);
  a.run();
  ksim::Cluster b(s);
  b.run();
  const ksim::Report ra = a.report();
  CHECK(ra.seed == 3);
  CHECK(ra.trace_hash == b.report().trace_hash);
  CHECK(ra.trace_hash.size() == 16);
  CHECK(ra.simulated == 9s);
  REQUIRE(ra.delivery);
  CHECK(ra.delivery->acknowledged > 0);
  CHECK(ra.delivery->exactly_once);
  CHECK(ra.groups.at("analytics").duplicates == 0);
  CHECK(ra.json.find("\"trace_hash\":\"" + ra.trace_hash + "\"") != std::string::npos);
  CHECK(ra.text.find("delivery: exactly-once") != std::string::npos);
}

TEST_CASE("at-least-once and exactly-once told apart by the library: retries without idempotence duplicate",
          "[api]") {
  ksim::Scenario retries = ksim::Scenario::load(std::string(KSIM_SOURCE_DIR) + "/scenarios/retries-duplicates.yaml");
  ksim::Cluster plain(retries);
  plain.run();
  const ksim::Report without = plain.report();
  REQUIRE(without.delivery);
  CHECK(without.delivery->at_least_once);
  CHECK_FALSE(without.delivery->exactly_once);
  CHECK(without.delivery->duplicated > 0);

  retries.set("producers.0.config[enable.idempotence]", "true");
  ksim::Cluster idempotent(retries);
  idempotent.run();
  CHECK(idempotent.report().delivery->exactly_once);
}

TEST_CASE("safety then liveness: faults, heal, converge, assert", "[api]") {
  ksim::Scenario s = quickstart();
  s.set("duration", "10s");
  ksim::Cluster cluster(s);
  cluster.run_until(9s);  // the quickstart's first fault, a network partition at 8s, has fired
  CHECK(cluster.now() == 9s);
  cluster.heal();
  const ksim::Liveness live = cluster.run_until_quiet(60s);
  INFO(live.pending);
  REQUIRE(live);
  CHECK(live.at >= 10s);
  const ksim::Report report = cluster.report();
  CHECK(report.delivery->exactly_once);
  CHECK(report.invariants.empty());
  CHECK(report.expectations_held);
}

TEST_CASE("a bad key is a ScenarioError with file, line and a suggestion, the scenario stays as it was", "[api]") {
  ksim::Scenario s = ksim::Scenario::parse("brokers: {count: 3}\ntopics: [{name: t}]\n", "mine.yaml");
  CHECK_THROWS_WITH(s.set("brokers.cont", "4"), Catch::Contains("did you mean 'count'"));
  CHECK_THROWS_AS(ksim::Scenario::parse("duration: ten\n", "bad.yaml"), ksim::ScenarioError);
  CHECK_THROWS_WITH(ksim::Scenario::parse("seed: 1\nnetwork:\n  jiter: 5ms\n", "bad.yaml"),
                    Catch::StartsWith("bad.yaml:3:3: network.jiter"));
  s.seed(9);
  CHECK(s.seed() == 9);
}
