// Retention and segments over a cluster: scenarios/retention-slow-consumer.yaml
// (a consumer behind a 20-second retention.ms) and scenarios/retention-bytes.yaml
// (retention.bytes caps each partition), over a few seeds; the scenario keys'
// errors; and that Kafka's defaults delete nothing.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::run_scenario;
using ksim::testing::ScenarioRun;
using ksim::testing::scenario_error;

namespace {

const nlohmann::json& retention_group(const ScenarioRun& run) { return run.report["groups"][0]; }
std::uint64_t retention_count(const nlohmann::json& section, const char* field) {
  return section[field].get<std::uint64_t>();
}
// The bytes of every log dir, summed over the brokers.
std::uint64_t log_dir_bytes(const ScenarioRun& run) {
  std::uint64_t total = 0;
  for (const auto& dir : run.report["log_dirs"]) total += dir["bytes"].get<std::uint64_t>();
  return total;
}

}  // namespace

TEST_CASE("retention-slow-consumer: records expire before the slow consumer reads them, none is lost",
          "[scenarios][retention]") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    const ScenarioRun run = run_scenario("retention-slow-consumer", seed);
    CHECK(run.status == ksim::app::kExitOk);
    const auto& delivery = run.report["delivery"];
    CHECK(retention_count(delivery, "lost") == 0);
    CHECK(retention_count(delivery, "expired") > 0);
    const auto& group = retention_group(run);
    CHECK(retention_count(group, "expired_before_consumed") > 0);
    CHECK(retention_count(group, "uncommitted_seen") == 0);
    // The consumer jumped to the log start (auto.offset.reset=earliest) after an OFFSET_OUT_OF_RANGE:
    // every record it skipped is one retention deleted, none skipped by a reset to `latest`.
    for (const auto& cause : group["unprocessed_causes"]) CHECK(cause["cause"].get<std::string>().find("latest") == std::string::npos);
    // What the producers wrote minus what retention deleted is what the logs hold: far less than written.
    CHECK(log_dir_bytes(run) < retention_count(delivery, "acknowledged") * 1024 * 3);
  }
}

TEST_CASE("retention-slow-consumer with auto.offset.reset=none: no committed offset, the consumer stops at once",
          "[scenarios][retention]") {
  // Kafka's NoOffsetForPartitionException: `none` needs a committed offset to start from. (Past one,
  // an OFFSET_OUT_OF_RANGE below the log start stops it too: models/client/consumer/consumer.cpp.)
  const ScenarioRun run =
      run_scenario("retention-slow-consumer", 1, {"consumers.0.config[auto.offset.reset]=none", "expect={}"});
  CHECK(retention_count(retention_group(run), "processed") == 0);
  // Every record was deleted unread, and the checker says expired, not unprocessed, for those retention took.
  CHECK(retention_count(retention_group(run), "expired_before_consumed") ==
        retention_count(run.report["delivery"], "expired"));
  CHECK(retention_count(run.report["delivery"], "lost") == 0);
}

TEST_CASE("retention-bytes: each partition's log stays near retention.bytes, nothing lost, nothing expires unread",
          "[scenarios][retention]") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    const ScenarioRun run = run_scenario("retention-bytes", seed);
    CHECK(run.status == ksim::app::kExitOk);
    const auto& delivery = run.report["delivery"];
    CHECK(retention_count(delivery, "lost") == 0);
    CHECK(retention_count(delivery, "expired") > 0);
    CHECK(retention_count(retention_group(run), "expired_before_consumed") == 0);
    CHECK(retention_count(retention_group(run), "unprocessed") == 0);
    // 2 partitions x 3 replicas, each at most retention.bytes (8 MiB) plus a segment and the active one's growth.
    CHECK(log_dir_bytes(run) <= 6 * (8 + 2) * (1ULL << 20));
    CHECK(log_dir_bytes(run) >= 6 * 6 * (1ULL << 20));
  }
}

TEST_CASE("without retention settings the same run deletes nothing", "[scenarios][retention]") {
  const ScenarioRun run = run_scenario("retention-bytes", 1, {"topics.0.config={}", "expect={}"});
  CHECK(retention_count(run.report["delivery"], "expired") == 0);
  CHECK(log_dir_bytes(run) > 6 * 50 * (1ULL << 20));  // about 59 s x 1,600 records/s x 1 KB on every replica
}

TEST_CASE("retention keys refuse bad values with the key named", "[scenarios][retention]") {
  const std::string head = "brokers: {count: 1}\ntopics: [{name: t, partitions: 1, replication_factor: 1, config: {";
  CHECK_THAT(scenario_error(head + "segment.bytes: 10}}]\n"), Catch::Contains("segment.bytes"));
  CHECK_THAT(scenario_error(head + "retention.ms: -5}}]\n"), Catch::Contains("retention.ms"));
  CHECK_THAT(scenario_error(head + "cleanup.policy: shred}}]\n"), Catch::Contains("cleanup.policy"));
  CHECK(scenario_error(head + "retention.ms: -1, retention.bytes: -1, cleanup.policy: \"delete,compact\"}}]\n") ==
        "no error");
}

TEST_CASE("segment.bytes is at least 1 MiB from Kafka 4.1 and 14 bytes before, as LogConfig says", "[scenarios][retention]") {
  const std::string topic = "brokers: {count: 1}\ntopics: [{name: t, partitions: 1, replication_factor: 1, config: {";
  CHECK_THAT(scenario_error(topic + "segment.bytes: 512KiB}}]\n"), Catch::Contains("1MiB") && Catch::Contains("4.1"));
  CHECK(scenario_error(topic + "segment.bytes: 1MiB}}]\n") == "no error");
  CHECK(scenario_error("kafka_version: \"4.0\"\n" + topic + "segment.bytes: 512KiB}}]\n") == "no error");
  CHECK_THAT(scenario_error("brokers: {count: 1, config: {log.segment.bytes: 64KB}}\n"), Catch::Contains("log.segment.bytes"));
}

TEST_CASE("a follower down past its leader's log start starts again there and catches up", "[scenarios][retention]") {
  // retention-bytes with broker-2 down from 10 s to 40 s: by its return retention has deleted the leaders'
  // segments past its log end, so its fetch is answered OFFSET_OUT_OF_RANGE with the leader's log start, and it
  // starts again there (AbstractFetcherThread.handleOutOfRangeError). Before the fix of 2026-12-06 the answer
  // had two entries for the partition (the error with log start 0, then one without the error) and the
  // follower never moved: it stayed behind for the rest of the run.
  ksim::config::Document document =
      ksim::config::Document::load_file(std::string(KSIM_SOURCE_DIR) + "/scenarios/retention-bytes.yaml");
  document.apply_override("duration=70s");
  document.apply_override("faults=[{kind: crash, at: 10s, duration: 30s, nodes: [broker-2]}]");
  const ksim::app::Scenario scenario = ksim::app::read_scenario(document, ksim::app::expectation_catalogue());
  ksim::app::Cluster cluster(scenario, ksim::app::RunOptions{});
  cluster.run();
  for (std::int32_t p = 0; p < 2; ++p) {
    INFO("partition " << p);
    const ksim::models::TopicPartition tp{0, p};
    const ksim::models::PartitionLog* returned = cluster.brokers()[2]->log(tp);
    REQUIRE(returned != nullptr);
    CHECK(returned->log_start_offset() > 0);  // it started again at a leader's log start
    for (const ksim::models::Broker* b : cluster.brokers()) {
      if (!b->is_leader(tp)) continue;
      CHECK(returned->log_end_offset() == b->log(tp)->log_end_offset());  // and caught up
    }
  }
}
