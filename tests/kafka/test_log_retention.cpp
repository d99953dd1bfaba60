// Segments and retention of a PartitionLog: rolls on segment.bytes and
// segment.ms (LogSegment.shouldRoll), deletion of whole segments from the
// oldest only below the high watermark (UnifiedLog.deleteOldSegments), the
// log start offset, and the memory of deleted batches.
#include <catch2/catch.hpp>

#include "models/log/partition_log.hpp"

using namespace ksim;
using namespace ksim::models;

namespace {

// A batch of `records` records, `bytes` long, stamped at `at` (its CreateTime).
RecordBatch retention_batch(std::int32_t records, std::uint64_t bytes, SimTime at) {
  RecordBatch batch;
  batch.record_count = records;
  batch.bytes = bytes;
  batch.create_time = at;
  return batch;
}

// A log of `count` batches of 10 records and 100 bytes, one a second from t=0, all committed.
PartitionLog retention_log(const LogConfig& config, int count) {
  PartitionLog log;
  log.configure(&config);
  for (int i = 0; i < count; ++i) log.append_as_leader(retention_batch(10, 100, seconds(i)), 1);
  log.set_high_watermark(log.log_end_offset());
  return log;
}

}  // namespace

TEST_CASE("a log rolls a new segment when the next batch would pass segment.bytes", "[log][retention]") {
  LogConfig config;
  config.segment_bytes = 250;  // two 100-byte batches fit, a third does not
  const PartitionLog log = retention_log(config, 5);
  REQUIRE(log.segments().size() == 3);
  CHECK(log.segments()[0].base_offset == 0);
  CHECK(log.segments()[0].bytes == 200);
  CHECK(log.segments()[1].base_offset == 20);
  CHECK(log.segments()[2].base_offset == 40);
  CHECK(log.segments()[2].bytes == 100);
  CHECK(log.size_bytes() == 500);
}

TEST_CASE("a log rolls when a batch's timestamp is segment.ms past its segment's first", "[log][retention]") {
  LogConfig config;
  config.segment_ms = milliseconds(2500);
  const PartitionLog log = retention_log(config, 6);  // batches at 0s .. 5s
  REQUIRE(log.segments().size() == 2);
  CHECK(log.segments()[1].base_offset == 30);  // the batch at 3s is more than 2.5s after the one at 0s
  CHECK(log.segments()[1].first_timestamp == seconds(3));
  CHECK(log.segments()[0].largest_timestamp == seconds(2));
  // With Kafka's defaults nothing rolls.
  const PartitionLog defaults = retention_log(LogConfig{}, 6);
  CHECK(defaults.segments().size() == 1);
}

TEST_CASE("retention.ms deletes whole segments older than it, and moves the log start offset", "[log][retention]") {
  LogConfig config;
  config.segment_bytes = 250;
  config.retention_ms = seconds(3);
  PartitionLog log = retention_log(config, 6);  // segments [0,20) at 0-1s, [20,40) at 2-3s, [40,60) at 4-5s
  CHECK(log.delete_old_segments(seconds(4)).empty());  // the newest batch of the first is at 1s: 3s old, not more
  const auto deleted = log.delete_old_segments(seconds(5));
  REQUIRE(deleted.size() == 1);
  CHECK(deleted[0].reason == SegmentDeletion::RetentionMs);
  CHECK(deleted[0].segments == 1);
  CHECK(deleted[0].bytes == 200);
  CHECK(deleted[0].log_start_before == 0);
  CHECK(deleted[0].log_start_after == 20);
  CHECK(deleted[0].batches.size() == 2);
  CHECK(log.log_start_offset() == 20);
  CHECK(log.size_bytes() == 400);
  CHECK(log.batches().front().base_offset == 20);
  CHECK(log.batch_at(5) == nullptr);
  CHECK(log.batch_at(25) != nullptr);
}

TEST_CASE("retention never deletes at or past the high watermark", "[log][retention]") {
  LogConfig config;
  config.segment_bytes = 250;
  config.retention_ms = seconds(1);
  PartitionLog log = retention_log(config, 6);
  log.truncate_to(60);
  log.set_high_watermark(25);  // inside the second segment [20, 40)
  log.delete_old_segments(seconds(100));
  CHECK(log.log_start_offset() == 20);  // the first segment ends at 20 <= HW; the second ends at 40 > HW
  CHECK(log.log_start_offset() <= log.high_watermark());
  log.set_high_watermark(60);
  log.delete_old_segments(seconds(100));
  // Everything expired and is below the HW: the active segment goes too, after an empty one is rolled at the LEO.
  CHECK(log.log_start_offset() == 60);
  CHECK(log.log_end_offset() == 60);
  CHECK(log.empty());
  REQUIRE(log.segments().size() == 1);
  CHECK(log.segments()[0].base_offset == 60);
  CHECK(log.segments()[0].bytes == 0);
  CHECK(log.size_bytes() == 0);
  // The empty active segment is never deleted, and appends go on from the LEO.
  CHECK(log.delete_old_segments(seconds(200)).empty());
  log.append_as_leader(retention_batch(5, 100, seconds(200)), 1);
  CHECK(log.batches().front().base_offset == 60);
}

TEST_CASE("retention.bytes deletes the oldest segments while the log stays at or over it without them",
          "[log][retention]") {
  LogConfig config;
  config.segment_bytes = 250;
  config.retention_bytes = 250;
  PartitionLog log = retention_log(config, 5);  // 200 + 200 + 100 bytes
  const auto deleted = log.delete_old_segments(seconds(5));
  REQUIRE(deleted.size() == 1);
  CHECK(deleted[0].reason == SegmentDeletion::RetentionBytes);
  CHECK(deleted[0].segments == 1);  // 500 - 200 = 300 >= 250; without the second too, 100 < 250
  CHECK(log.size_bytes() == 300);
  CHECK(log.log_start_offset() == 20);
  CHECK(log.delete_old_segments(seconds(5)).empty());  // 300 - 200 < 250: the next stays
}

TEST_CASE("the log start offset never goes back, and the high watermark never below it", "[log][retention]") {
  LogConfig config;
  config.segment_bytes = 150;  // one batch per segment
  config.retention_bytes = 0;
  PartitionLog log = retention_log(config, 0);
  Offset before = 0;
  for (int i = 0; i < 50; ++i) {
    log.append_as_leader(retention_batch(10, 100, seconds(i)), 1);
    if (i % 3 == 0) log.set_high_watermark(log.log_end_offset());
    log.delete_old_segments(seconds(i));
    CHECK(log.log_start_offset() >= before);
    CHECK(log.log_start_offset() <= log.high_watermark());
    CHECK(log.high_watermark() <= log.log_end_offset());
    before = log.log_start_offset();
  }
  CHECK(before > 0);
  // A high watermark below the log start (a follower told a lagging leader's) is raised to it, as Kafka's.
  log.set_high_watermark(0);
  CHECK(log.high_watermark() == log.log_start_offset());
}

TEST_CASE("deleted batches leave memory", "[log][retention]") {
  LogConfig config;
  config.segment_bytes = 1000;  // ten batches per segment
  config.retention_bytes = 2000;
  PartitionLog log = retention_log(config, 0);
  for (int i = 0; i < 100000; ++i) {
    log.append_as_leader(retention_batch(1, 100, seconds(i)), 1);
    log.set_high_watermark(log.log_end_offset());
    if (i % 100 == 0) log.delete_old_segments(seconds(i));
  }
  CHECK(log.log_start_offset() > 99000);
  CHECK(log.batches().size() < 200);
  CHECK(log.batch_slots() < 1000);  // not the 100,000 batches written
  // Reads still find what is left.
  const auto read = log.read(log.log_start_offset(), 1 << 20);
  CHECK(read.front().base_offset == log.log_start_offset());
  CHECK(read.back().next_offset() == log.log_end_offset());
}

TEST_CASE("a follower takes its leader's log start offset up to its own high watermark", "[log][retention]") {
  LogConfig config;
  config.segment_bytes = 250;
  PartitionLog log = retention_log(config, 6);
  log.set_high_watermark(30);
  CHECK(log.maybe_increment_log_start_offset(40));  // capped at the HW
  CHECK(log.log_start_offset() == 30);
  CHECK_FALSE(log.maybe_increment_log_start_offset(10));
  const auto deleted = log.delete_old_segments(0);
  REQUIRE(deleted.size() == 1);
  CHECK(deleted[0].reason == SegmentDeletion::LogStartOffset);
  CHECK(deleted[0].log_start_after == 30);  // the segment [0, 20) went; [20, 40) holds the log start
  CHECK(log.segments().front().base_offset == 20);
}

TEST_CASE("truncating fully starts the log again at an offset", "[log][retention]") {
  PartitionLog log = retention_log(LogConfig{}, 3);
  CHECK(log.truncate_fully_and_start_at(500) == 300);
  CHECK(log.log_start_offset() == 500);
  CHECK(log.log_end_offset() == 500);
  CHECK(log.high_watermark() == 500);
  CHECK(log.epoch_cache().empty());
  log.append_as_follower([] {
    RecordBatch b = retention_batch(10, 100, 0);
    b.base_offset = 500;
    b.leader_epoch = 3;
    return b;
  }());
  CHECK(log.log_end_offset() == 510);
  CHECK(log.epoch_cache().front() == std::pair<Epoch, Offset>{3, 500});
}
