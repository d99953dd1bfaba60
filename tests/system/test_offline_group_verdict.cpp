// A group's verdict when partitions of its topic end offline: found by
// ksim explore of jbod-rebalance.yaml (replication factor 1: a full disk
// takes its log dir, and the dir's partitions, offline for good). Every
// record the group had read of them used to count as "uncommitted seen",
// a verdict of none for a group that did nothing wrong.
#include <catch2/catch.hpp>

#include "app/report/report.hpp"
#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_inline;

namespace {

const std::string kOfflineDirGroup = R"(
duration: 12s
drain: 2s
brokers:
  count: 1
  log_dirs: [{path: /a}, {path: /b}]
topics: [{name: t, partitions: 4, replication_factor: 1}]
producers:
  - {name: p, topic: t, rate: 1000/s, record_size: 100B}
consumers:
  - {name: readers, topic: t, count: 1, config: {auto.offset.reset: earliest}}
)";

}  // namespace

TEST_CASE("records a group read of partitions offline at the end are unavailable: the verdict is incomplete",
          "[kafka][disks][checker]") {
  const auto run = run_inline(kOfflineDirGroup + "faults:\n  - {kind: disk_full, at: 6s, duration: 1s, nodes: [broker-0], log_dir: /b}\n");
  REQUIRE(run.kafka);
  REQUIRE(run.kafka->groups.size() == 1);
  const auto& group = run.kafka->groups.front();
  const auto& r = group.report;
  CHECK(r.offline_partitions == 2);  // /b's two partitions
  CHECK(r.unavailable_seen > 0);     // read before the dir failed
  CHECK(r.uncommitted_seen == 0);
  CHECK(r.duplicated == 0);
  CHECK(r.unprocessed == 0);  // of the two partitions still online
  CHECK(group.consumption().verdict() == "incomplete");
  CHECK(run.kafka->delivery.unavailable > 0);
  CHECK(run.kafka->delivery.lost == 0);

  SECTION("without the fault the group's verdict is exactly-once") {
    const auto clean = run_inline(kOfflineDirGroup);
    REQUIRE(clean.kafka);
    const auto& g = clean.kafka->groups.front();
    CHECK(g.report.offline_partitions == 0);
    CHECK(g.report.unavailable_seen == 0);
    CHECK(g.consumption().verdict() == "exactly-once");
  }
}
