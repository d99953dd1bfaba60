// Fetch sessions (models/broker/fetch_session.hpp) are the simulator's economy: a
// leader skips the partitions of a fetch that cannot have changed. Reading
// every partition instead must give the very same run, trace hash and all.
#include <catch2/catch.hpp>

#include "app/harness/cluster.hpp"
#include "app/report/report.hpp"
#include "app/scenario/config_reader.hpp"
#include "tests/support/sanitized_build.hpp"

namespace {

std::uint64_t trace_hash(const std::string& name, std::uint64_t seed, bool fetch_sessions,
                         const std::vector<std::string>& overrides = {}) {
  auto document = ksim::config::Document::load_file(std::string(KSIM_SOURCE_DIR) + "/scenarios/" + name + ".yaml");
  document.apply_override("seed=" + std::to_string(seed));
  for (const auto& o : overrides) document.apply_override(o);
  ksim::app::Scenario scenario = ksim::app::read_scenario(document, ksim::app::expectation_catalogue());
  scenario.kafka->broker.fetch_sessions = fetch_sessions;
  ksim::app::Cluster cluster(scenario, ksim::app::RunOptions{});
  cluster.run();
  return ksim::app::make_report(cluster, 0).trace_hash;
}

// Leader changes, unclean elections, truncation, crashes with power loss,
// transactions (read_committed) and rebalances all move partitions in and out of quiet.
// Seeds 1-3 (the sanitizer build: seed 1), one test case per scenario.
void same_with_and_without(const std::string& name) {
  const std::uint64_t seeds = ksim::testing::kSanitizedBuild ? 1 : 3;
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    INFO(name << " seed " << seed);
    CHECK(trace_hash(name, seed, true) == trace_hash(name, seed, false));
  }
}

}  // namespace

TEST_CASE("fetch sessions change nothing in a run: quickstart, chaos", "[fetch_sessions]") {
  same_with_and_without("quickstart");
  same_with_and_without("chaos");
}

TEST_CASE("fetch sessions change nothing in a run: transactions", "[fetch_sessions]") {
  same_with_and_without("txn-chaos");
}

TEST_CASE("fetch sessions change nothing in a run: unclean election, truncation", "[fetch_sessions]") {
  same_with_and_without("unclean-election");
  same_with_and_without("acks1-leader-crash");
}

TEST_CASE("fetch sessions change nothing in a run: rebalances, page cache misses", "[fetch_sessions]") {
  same_with_and_without("rebalance-scale-out");
  same_with_and_without("page-cache-miss");
}

// A follower's fetch from its crashed incarnation's connection, delayed by a latency spike, arrived
// after its new session had found the partition quiet and took the follower's position back; unless
// that counts as a change (Broker::update_follower), the new session kept skipping the partition and
// the high watermark stayed behind for the rest of the run (seed 152: the transform never finished).
TEST_CASE("fetch sessions change nothing when a follower's old fetch takes its position back", "[fetch_sessions]") {
  CHECK(trace_hash("eos-transform", 152, true) == trace_hash("eos-transform", 152, false));
}

TEST_CASE("fetch sessions change nothing with thousands of partitions", "[fetch_sessions]") {
  const std::string partitions = ksim::testing::kSanitizedBuild ? "500" : "2000";
  const std::vector<std::string> small{"topics.0.partitions=" + partitions, "duration=3s", "drain=2s"};
  CHECK(trace_hash("partition_sweep", 1, true, small) == trace_hash("partition_sweep", 1, false, small));
}

TEST_CASE("fetch sessions change nothing in a failover of hundreds of partitions", "[fetch_sessions]") {
  const std::vector<std::string> failover{ksim::testing::kSanitizedBuild ? "topics.0.partitions=200"
                                                                          : "topics.0.partitions=600"};
  CHECK(trace_hash("failover_vs_partitions", 1, true, failover) == trace_hash("failover_vs_partitions", 1, false, failover));
}
