#include <catch2/catch.hpp>

#include <string>

#include "models/protocol/record_format.hpp"
#include "tests/support/scenario_runner.hpp"

using namespace ksim;
using namespace ksim::models;

// The expected sizes are Kafka 3.9.0's own (kafka-clients, jshell):
// DefaultRecord.sizeInBytes, Records.LOG_OVERHEAD + LegacyRecord.recordSize,
// AbstractRecords.estimateSizeInBytesUpperBound.
TEST_CASE("record sizes are those of Kafka's record formats", "[record_format]") {
  const RecordShape no_key_100{-1, 100};
  CHECK(record_bytes_in_batch(RecordFormat::V2, no_key_100, 0, 0) == 109);
  CHECK(record_bytes_in_batch(RecordFormat::V2, {4, 100}, 63, milliseconds(63)) == 113);
  CHECK(record_bytes_in_batch(RecordFormat::V2, {4, 100}, 64, milliseconds(64)) == 115);  // two-byte varints
  CHECK(record_bytes_in_batch(RecordFormat::V2, {-1, 1000}, 200, seconds(10)) == 1012);
  CHECK(record_bytes_in_batch(RecordFormat::V2, {3, 20}, 8192, 0) == 32);
  CHECK(record_bytes_in_batch(RecordFormat::V2, {-1, 0}, 0, 0) == 7);
  CHECK(record_bytes_in_batch(RecordFormat::V2, {4, 100}, 63, milliseconds(63) + 999'999) == 113);  // whole milliseconds
  CHECK(record_bytes_in_batch(RecordFormat::V0, no_key_100, 50, seconds(1)) == 126);  // no deltas in v0
  CHECK(record_bytes_in_batch(RecordFormat::V1, {4, 100}, 0, 0) == 138);
  CHECK(batch_header_bytes(RecordFormat::V2) == 61);
  CHECK(batch_header_bytes(RecordFormat::V0) == 0);
  CHECK(batch_header_bytes(RecordFormat::V1) == 0);
  CHECK(batch_bytes_upper_bound(RecordFormat::V2, no_key_100) == 186);
  CHECK(batch_bytes_upper_bound(RecordFormat::V0, no_key_100) == 126);
}

TEST_CASE("message.format.version names select the formats of Kafka's ApiVersion", "[record_format]") {
  CHECK(record_format_of_version("0.8.0") == RecordFormat::V0);
  CHECK(record_format_of_version("0.8.2") == RecordFormat::V0);
  CHECK(record_format_of_version("0.8.2.2") == RecordFormat::V0);  // ApiVersion keeps three segments of 0.x
  CHECK(record_format_of_version("0.9.0") == RecordFormat::V0);
  CHECK(record_format_of_version("0.10.0-IV0") == RecordFormat::V1);
  CHECK(record_format_of_version("0.10.2") == RecordFormat::V1);
  CHECK(record_format_of_version("0.11.0") == RecordFormat::V2);
  CHECK(record_format_of_version("1.1") == RecordFormat::V2);
  CHECK(record_format_of_version("2.8.1") == RecordFormat::V2);
  CHECK(record_format_of_version("3.9") == RecordFormat::V2);
  for (const char* bad : {"", "0.8", "0.7.0", "0.12.0", "2.9", "4.0", "latest", "0.8.2x", "1", "0.10.0-IV", "0..8.2", "3.0."}) {
    INFO(bad);
    CHECK_FALSE(record_format_of_version(bad).has_value());
  }
}

namespace {

const std::string kOneProducer = R"(
duration: 2s
brokers: {count: 1, config: {log.message.format.version: "FORMAT"}}
topics: [{name: t, partitions: 1, replication_factor: 1}]
producers:
  - {name: p, rate: 1000/s, arrival: constant, record_size: 100B, defaults: pre-3.0}
)";

std::string one_producer(const std::string& format) {
  std::string yaml = kOneProducer;
  yaml.replace(yaml.find("FORMAT"), 6, format);
  return yaml;
}

std::uint64_t log_bytes(const app::RunReport& report) {
  std::uint64_t bytes = 0;
  for (const auto& d : report.kafka->log_dirs) bytes += d.stats.bytes;
  return bytes;
}

}  // namespace

TEST_CASE("a log holds its records in the topic's format: 0.8's 26 bytes each, or v2's batches", "[record_format][kafka]") {
  const app::RunReport v0 = ksim::testing::run_inline(one_producer("0.8.2"));
  const std::uint64_t records = v0.kafka->delivery.acknowledged;
  REQUIRE(records > 1000);
  CHECK(log_bytes(v0) == records * 126);
  // linger.ms=0 at 1,000 records/s: a batch per record, 61 + 109 bytes each.
  const app::RunReport v2 = ksim::testing::run_inline(one_producer("3.0"));
  REQUIRE(v2.kafka->delivery.acknowledged == records);
  CHECK(log_bytes(v2) == records * 170);
  // The throughput in bytes is the application's: the values.
  CHECK(v0.kafka->bytes_per_s == Approx(v2.kafka->bytes_per_s));
}

TEST_CASE("batch.size counts the record format's bytes, the batch header included", "[record_format][kafka]") {
  // 8,196 bytes hold 65 records of 126 bytes (v0), or 61 + 74 of 110-111 bytes (v2).
  for (const auto& [format, per_batch] : {std::pair{"0.8.2", 65}, std::pair{"3.0", 74}}) {
    INFO(format);
    const app::RunReport report = ksim::testing::run_inline(one_producer(format), 1,
        {"producers.0.config[batch.size]=8196", "producers.0.config[linger.ms]=1s", "producers.0.rate=100000/s",
         "producers.0.config[buffer.memory]=64MiB"});
    const std::uint64_t records = report.kafka->delivery.acknowledged;
    REQUIRE(records > 10000);
    // Full batches but perhaps the last: requests (one batch each, one partition) ~ records / per_batch.
    CHECK(report.kafka->producer_requests == (records + per_batch - 1) / per_batch);
  }
}

TEST_CASE("an idempotent producer cannot write to a topic of format v0 or v1", "[record_format][scenario]") {
  std::string yaml = one_producer("0.10.2");
  yaml.replace(yaml.find(", defaults: pre-3.0"), 19, "");
  const std::string error = ksim::testing::scenario_error(yaml);
  CHECK_THAT(error, Catch::Contains("UNSUPPORTED_FOR_MESSAGE_FORMAT"));
  CHECK_THAT(error, Catch::Contains("enable.idempotence: false"));
  CHECK_THAT(ksim::testing::scenario_error(one_producer("0.8")), Catch::Contains("log.message.format.version"));
  CHECK(ksim::testing::scenario_error(one_producer("0.11.0")) == "no error");
}
