// An offset commit whose write to __consumer_offsets times out
// (offsets.commit.timeout.ms, 5 s) because a follower of the group's partition
// stopped while still in its ISR. Before 4.0 the classic coordinator answers
// REQUEST_TIMED_OUT (GroupMetadataManager.storeOffsets passes it through);
// from 4.0 the coordinator runtime answers COORDINATOR_NOT_AVAILABLE. Either
// way the consumer looks its coordinator up again
// (ConsumerCoordinator.OffsetCommitResponseHandler: markCoordinatorUnknown)
// and commits again. ksim answered COORDINATOR_NOT_AVAILABLE on every release,
// and its consumer retried a REQUEST_TIMED_OUT without a lookup.
#include <catch2/catch.hpp>

#include <string>
#include <variant>
#include <vector>

#include "app/harness/cluster.hpp"
#include "tests/support/scenario_runner.hpp"

namespace {

// The group's offsets partition (39 for group "reader") has all three brokers
// in its ISR; the topic read has one replica per partition, so records keep
// coming from brokers 0 and 2 while broker-1 is paused, and the consumer keeps
// committing. Broker-1 stays in the offsets partition's ISR until it is fenced
// (broker.session.timeout.ms, 9 s) or drops out (ZooKeeper-era
// replica.lag.time.max.ms), past the commit's 5 s.
const std::string kCommitTimeout = R"(
duration: 30s
drain: 10s
network: {racks: [a, b, c]}
brokers: {count: 3}
topics: [{name: t, partitions: 3, replication_factor: 1}]
producers:
  - {name: p, topic: t, rate: 200/s, record_size: 200B, start: 1s}
consumers:
  - name: reader
    topic: t
    commit: sync-after-process
    processing_time: 1ms
    config: {enable.auto.commit: false, auto.offset.reset: earliest}
faults:
  - {kind: pause, at: 10s, duration: 8s, nodes: [broker-1]}
)";

struct CommitTimeoutRun {
  std::vector<std::string> lost;  // why reader-0 lost its coordinator, in order
  ksim::SimTime first_lost_at = ksim::kNever;
  ksim::SimTime found_again_at = ksim::kNever;
  ksim::app::RunReport report;
};

CommitTimeoutRun commit_timeout_run(const std::string& release) {
  auto document = ksim::config::Document::from_string(kCommitTimeout, "commit-timeout.yaml");
  document.apply_override("kafka_version=" + release);
  const auto scenario = ksim::app::read_scenario(document, ksim::app::expectation_catalogue());
  ksim::app::Cluster cluster(scenario, ksim::app::RunOptions{});
  CommitTimeoutRun run;
  cluster.model_events()->subscribe([&](ksim::SimTime now, const ksim::Node& from, const ksim::models::ModelEvent& e) {
    if (from.name() != "reader-0") return;
    if (const auto* lost = std::get_if<ksim::models::CoordinatorLost>(&e)) {
      run.lost.emplace_back(lost->reason);
      if (run.first_lost_at == ksim::kNever) run.first_lost_at = now;
    }
    if (std::holds_alternative<ksim::models::CoordinatorFound>(e) && run.first_lost_at != ksim::kNever &&
        run.found_again_at == ksim::kNever) {
      run.found_again_at = now;
    }
  });
  cluster.run();
  run.report = ksim::app::make_report(cluster, 0);
  return run;
}

void check_commit_timeout(const CommitTimeoutRun& run, const std::string& reason) {
  REQUIRE_FALSE(run.lost.empty());
  CHECK(run.lost.front() == reason);
  CHECK(run.first_lost_at >= ksim::seconds(15));  // the commit sent as the pause began, 5 s on
  CHECK(run.first_lost_at < ksim::seconds(16));
  CHECK(run.found_again_at != ksim::kNever);  // looked up again
  REQUIRE(run.report.kafka);
  const auto& group = run.report.kafka->groups.at(0).report;
  CHECK(group.failed_commits > 0);
  CHECK(group.unprocessed == 0);
  CHECK(group.processed > 5000);
}

}  // namespace

TEST_CASE("a timed-out offset commit: REQUEST_TIMED_OUT before 4.0, and the consumer looks its coordinator up again",
          "[consumer][group-commit-timeout]") {
  check_commit_timeout(commit_timeout_run("3.9"), "REQUEST_TIMED_OUT");
  check_commit_timeout(commit_timeout_run("2.8"), "REQUEST_TIMED_OUT");
}

TEST_CASE("a timed-out offset commit: COORDINATOR_NOT_AVAILABLE from 4.0 (the coordinator runtime)",
          "[consumer][group-commit-timeout]") {
  check_commit_timeout(commit_timeout_run("4.0"), "COORDINATOR_NOT_AVAILABLE");
}
