// The report's partition costs: files, memory maps and per-partition state
// on the brokers, and the clients' buffers, against Kafka's docs/ops.html limits.
#include <sstream>

#include <catch2/catch.hpp>

#include "app/report/report.hpp"
#include "tests/support/scenario_runner.hpp"

using namespace ksim;
using namespace ksim::app;
using ksim::testing::run_inline;

TEST_CASE("every replica costs a segment file and two memory maps, and past vm.max_map_count the report warns",
          "[kafka][partition-costs]") {
  const std::string yaml = R"(
duration: 1s
drain: 0s
brokers: {count: 1}
topics: [{name: t, partitions: 33000, replication_factor: 1}]
producers: [{name: p, rate: 100/s, record_size: 100B}]
)";
  const RunReport report = run_inline(yaml);
  const PartitionCosts& c = report.kafka->partition_costs;
  CHECK(c.replicas == 33000);
  CHECK(c.segments == 33000);  // each log far below log.segment.bytes
  CHECK(c.segment_files == 33000);
  CHECK(c.memory_maps == 66000);
  CHECK(c.memory_maps_of_limit > 1.0);
  CHECK(c.index_mapped_bytes == 33000ULL * 2 * (10ULL << 20));
  std::ostringstream text;
  print_report(report, text);
  CHECK_THAT(text.str(), Catch::Contains("66000 memory maps exceed vm.max_map_count's default 65530"));
  const std::string smaller = std::string(yaml).replace(yaml.find("33000"), 5, "32000");
  std::ostringstream fits;
  print_report(run_inline(smaller), fits);
  CHECK_THAT(fits.str(), !Catch::Contains("exceed vm.max_map_count"));
}

TEST_CASE("followers' fetchers list every partition they follow, and the consumer's buffer holds what poll() has not taken",
          "[kafka][partition-costs]") {
  const RunReport report = run_inline(R"(
duration: 5s
drain: 2s
brokers: {count: 3}
topics: [{name: t, partitions: 30, replication_factor: 3}]
producers: [{name: p, rate: 5000/s, record_size: 1KB, keys: {distribution: uniform, count: 1000}}]
consumers:
  - {name: slow, processing_time: 1ms, config: {auto.offset.reset: earliest}}
)");
  const PartitionCosts& c = report.kafka->partition_costs;
  // 30 partitions x 3 replicas on 3 brokers, and __consumer_offsets' 50 (RF 3).
  CHECK(c.replicas == 80);
  CHECK(c.fetcher_partitions >= 53);  // each broker leads about a third and follows the rest
  CHECK(c.fetcher_partitions <= 54);
  CHECK(c.producer_state_entries > 0);       // the idempotent producer, on the partitions its broker leads
  // A consumer processing 1,000 records/s of 5,000 holds fetched data: at
  // most max.partition.fetch.bytes (1 MiB) for each of its 30 partitions.
  CHECK(c.consumer_fetch_buffer_peak_bytes > 1'000'000);
  CHECK(c.consumer_fetch_buffer_peak_bytes <= 30ULL << 20);
}
