// Where a producer sends keyless records (producer audit items 5 and 6):
// Kafka's built-in partitioner (KIP-794, BuiltInPartitioner) picks the
// partition when a record is appended, among the partitions with a leader
// (Cluster.availablePartitionsForTopic), and with adaptive partitioning
// (partitioner.adaptive.partitioning.enable, on by default) draws partitions
// with longer queues less often. Records with keys go where their key says.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "app/harness/cluster.hpp"
#include "tests/support/scenario_runner.hpp"

using ksim::app::Cluster;
using ksim::app::RunOptions;
using ksim::seconds;

namespace {

// Records the producer handed to partitions 2 and 5 (led by broker-2), and
// to all partitions, between `from` and `to`.
struct Share {
  std::uint64_t broker2 = 0, all = 0;
  double fraction() const { return all ? static_cast<double>(broker2) / static_cast<double>(all) : 0.0; }
};

Share share_between(const std::string& yaml, std::uint64_t seed, ksim::SimTime from, ksim::SimTime to) {
  const std::string with_seed = yaml + "seed: " + std::to_string(seed) + "\n";
  const ksim::app::Scenario scenario = ksim::testing::parse_scenario(with_seed);
  Cluster cluster(scenario, RunOptions{});  // it keeps a reference to the scenario
  auto counts = [&] {
    Share s;
    for (const auto& [key, records] : cluster.history().produced) {
      s.all += records;
      if (key.second.partition % 3 == 2) s.broker2 += records;
    }
    return s;
  };
  cluster.run_until(from);
  const Share before = counts();
  cluster.run_until(to);
  const Share after = counts();
  cluster.run();
  return {after.broker2 - before.broker2, after.all - before.all};
}

// Six partitions of one replica, two per broker; broker-2 leads 2 and 5.
const char* kBroker2Down = R"(
duration: 20s
drain: 10s
brokers: {count: 3}
topics: [{name: t, partitions: 6, replication_factor: 1, assignment: [[0], [1], [2], [0], [1], [2]]}]
producers:
  - {name: p, topic: t, rate: 2000/s, record_size: 100B, KEYS config: {acks: 1}}
faults:
  - {kind: shutdown, at: 5s, duration: 10s, nodes: [broker-2]}
)";

std::string with_keys(const char* yaml, const std::string& keys) {
  std::string s = yaml;
  s.replace(s.find("KEYS "), 5, keys);
  return s;
}

}  // namespace

// Broker-2 stops and its partitions have no leader (one replica each): once
// the producer's metadata says so, keyless records go only to the four
// partitions with one; keyed records still go to theirs and wait.
TEST_CASE("keyless records go only to partitions with a leader, keyed ones to their key's", "[kafka][producer]") {
  const Share keyless = share_between(with_keys(kBroker2Down, ""), 1, seconds(6), seconds(14));
  CHECK(keyless.all > 15000);
  CHECK(keyless.broker2 == 0);
  const Share keyed = share_between(with_keys(kBroker2Down, "keys: {distribution: uniform},"), 1, seconds(6), seconds(14));
  CHECK(keyed.fraction() > 0.28);
  CHECK(keyed.fraction() < 0.38);
  // Before the fault both spread over all six.
  const Share early = share_between(with_keys(kBroker2Down, ""), 1, seconds(1), seconds(5));
  CHECK(early.fraction() > 0.2);
}

// Broker-2 pauses for 3 s: the batches of its partitions queue in the
// producer (five requests in flight, then nothing leaves). Without adaptive
// partitioning they get more than their third (0.46 in these seeds): the
// sticky partitioner leaves a partition after batch.size bytes only once its
// last batch is full (enableSwitch), which on the other partitions linger.ms
// sends early, and here waits to fill. Adaptive partitioning weighs each
// partition max + 1 - queue, and 2 and 5 get less than a third (0.22).
TEST_CASE("adaptive partitioning sends fewer keyless records to a stalled broker's partitions", "[kafka][producer]") {
  const std::string yaml = R"(
duration: 12s
drain: 10s
brokers: {count: 3}
topics: [{name: t, partitions: 6, replication_factor: 1, assignment: [[0], [1], [2], [0], [1], [2]]}]
producers:
  - {name: p, topic: t, rate: 4000/s, record_size: 100B, config: {acks: 1, ADAPTIVE}}
faults:
  - {kind: pause, at: 5s, duration: 3s, nodes: [broker-2]}
)";
  auto with = [&](const std::string& adaptive) {
    std::string s = yaml;
    s.replace(s.find("ADAPTIVE"), 8, "partitioner.adaptive.partitioning.enable: " + adaptive);
    return s;
  };
  Share adaptive, sticky_only;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const Share a = share_between(with("true"), seed, seconds(5), seconds(8));
    const Share o = share_between(with("false"), seed, seconds(5), seconds(8));
    adaptive.broker2 += a.broker2, adaptive.all += a.all;
    sticky_only.broker2 += o.broker2, sticky_only.all += o.all;
  }
  INFO("adaptive " << adaptive.fraction() << ", without " << sticky_only.fraction());
  CHECK(sticky_only.fraction() > 0.38);
  CHECK(adaptive.fraction() < 0.3);
}
