// Fetch sessions (models/broker/fetch_session.hpp) are the simulator's economy: a
// leader skips the partitions of a fetch that cannot have changed. Reading
// every partition instead must give the very same run, trace hash and all.
#include <catch2/catch.hpp>

#include "app/harness/cluster.hpp"
#include "app/report/report.hpp"
#include "app/scenario/config_reader.hpp"

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

}  // namespace

TEST_CASE("fetch sessions change nothing in a run", "[fetch_sessions]") {
  // Leader changes, unclean elections, truncation, crashes with power loss,
  // transactions (read_committed) and rebalances all move partitions in and out of quiet.
  const std::vector<std::string> scenarios{"quickstart", "chaos", "txn-chaos", "unclean-election",
                                           "rebalance-scale-out", "acks1-leader-crash", "page-cache-miss"};
  for (const std::string& name : scenarios) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      INFO(name << " seed " << seed);
      CHECK(trace_hash(name, seed, true) == trace_hash(name, seed, false));
    }
  }
}

TEST_CASE("fetch sessions change nothing with thousands of partitions", "[fetch_sessions]") {
  const std::vector<std::string> small{"topics.0.partitions=2000", "duration=3s", "drain=2s"};
  CHECK(trace_hash("partition_sweep", 1, true, small) == trace_hash("partition_sweep", 1, false, small));
  const std::vector<std::string> failover{"topics.0.partitions=600"};
  CHECK(trace_hash("failover_vs_partitions", 1, true, failover) == trace_hash("failover_vs_partitions", 1, false, failover));
}
