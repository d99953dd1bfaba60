// Unavailability for every incident (models/check/availability_tracker.hpp):
// a network partition that leaves a cut broker in the ISR stops acks=all
// writes of every partition it follows until it is fenced, though every
// partition keeps a leader; a crash stops reads of what it led; no fault,
// no unavailability.
#include <catch2/catch.hpp>

#include "tests/support/scenario_runner.hpp"

namespace {

const nlohmann::json& incident(const nlohmann::json& report, const std::string& fault) {
  for (const auto& i : report.at("availability").at("incidents")) {
    if (i.at("fault") == fault) return i;
  }
  FAIL("no incident of " << fault);
  throw;
}

}  // namespace

TEST_CASE("a cut broker in the ISR stops acks=all writes of the partitions it follows until it is fenced",
          "[availability]") {
  // The quickstart: broker-1 cut from everyone at 8s for 12s; RF 3, min ISR 2, acks=all.
  const auto run = ksim::testing::run_scenario("quickstart", 1, {"duration=14s"});
  const auto& cut = incident(run.report, "partition");
  CHECK(cut.at("at_s") == Approx(8.0));
  CHECK(cut.at("nodes") == nlohmann::json::array({"broker-1"}));
  const auto& writes = cut.at("writes");
  CHECK(writes.at("partitions") == 12);  // broker-1 holds a replica of each of the 12
  // Until the controller fences broker-1 (broker.session.timeout.ms, 9s) and the ISRs shrink.
  CHECK(writes.at("longest_s").get<double>() > 5.0);
  CHECK(writes.at("longest_s").get<double>() < 12.0);
  CHECK(writes.at("records_waited").get<std::uint64_t>() > 1000);
  // Reads stop only where broker-1 led: the others kept a reachable leader.
  const auto& reads = cut.at("reads");
  CHECK(reads.at("partitions").get<int>() > 0);
  CHECK(reads.at("partitions").get<int>() < 12);
  CHECK(run.report.at("availability").at("writes").at("longest_s") == writes.at("longest_s"));
}

TEST_CASE("acks=1 writes go on while a follower is cut off", "[availability]") {
  const auto run = ksim::testing::run_scenario("quickstart", 1, {"duration=14s", "producers.0.config[acks]=1",
                                                                 "producers.0.config[enable.idempotence]=false"});
  const auto& cut = incident(run.report, "partition");
  // Only the partitions broker-1 led stop taking writes (until new leaders are elected).
  CHECK(cut.at("writes").at("partitions") == cut.at("reads").at("partitions"));
}

TEST_CASE("no fault: every partition can be written and read throughout", "[availability]") {
  const auto run = ksim::testing::run_scenario("quickstart", 1, {"duration=6s", "faults=[]", "expect={}"});
  const auto& a = run.report.at("availability");
  CHECK(a.at("writes").at("partitions") == 0);
  CHECK(a.at("reads").at("partitions") == 0);
  CHECK(a.at("incidents").empty());
}

TEST_CASE("expect: bounds on unavailability are checked", "[availability]") {
  const auto held = ksim::testing::run_scenario("quickstart", 1, {"duration=14s", "expect.max_write_unavailable=15s"});
  const auto failed = ksim::testing::run_scenario("quickstart", 1, {"duration=14s", "expect.max_write_unavailable=1s"});
  CHECK(held.status == 0);
  CHECK(failed.status == 1);
}
