// Tiered storage's logs (KIP-405): the remote log of a partition (segments
// added as copies finish, reads within one segment, expiration by
// retention.ms and retention.bytes moving the log start offset, overlapping
// copies of two leaders), and a local log that deletes only what the remote
// store holds (UnifiedLog.deletableSegments with remote storage).
#include <catch2/catch.hpp>

#include "models/log/partition_log.hpp"
#include "models/log/remote_log.hpp"

using namespace ksim;
using namespace ksim::models;

namespace {

// A remote segment of `count` one-record batches of 100 bytes from `base`, its largest timestamp `at`.
RemoteLogSegment remote_segment(Offset base, int count, SimTime at) {
  RemoteLogSegment s;
  s.base_offset = base;
  s.end_offset = base + count - 1;
  s.largest_timestamp = at;
  for (int i = 0; i < count; ++i) {
    RecordBatch b;
    b.base_offset = base + i;
    b.record_count = 1;
    b.bytes = 100;
    b.first_record = static_cast<std::uint64_t>(base + i);
    s.batches.push_back(b);
    s.bytes += 100;
  }
  return s;
}

// A tiered local log: `count` batches of 10 records and 100 bytes a second from t=0, two batches a segment, committed.
PartitionLog tiered_local_log(const LogConfig& config, int count) {
  PartitionLog log;
  log.configure(&config);
  for (int i = 0; i < count; ++i) {
    RecordBatch b;
    b.record_count = 10;
    b.bytes = 100;
    b.create_time = seconds(i);
    log.append_as_leader(b, 1);
  }
  log.set_high_watermark(log.log_end_offset());
  return log;
}

}  // namespace

TEST_CASE("a remote log grows by finished copies and reads within the segment holding the offset",
          "[log][tiered]") {
  RemotePartitionLog remote;
  CHECK(remote.highest_offset() == -1);
  CHECK(remote.log_start_offset() == 0);
  remote.add(remote_segment(0, 5, seconds(1)));
  remote.add(remote_segment(5, 5, seconds(2)));
  CHECK(remote.highest_offset() == 9);
  CHECK(remote.size_bytes() == 1000);
  // From the batch holding offset 3, up to 250 bytes, never past its segment's end.
  auto read = remote.read(3, 250);
  REQUIRE(read.size() == 2);
  CHECK(read.front().base_offset == 3);
  read = remote.read(3, 10'000);
  CHECK(read.size() == 2);  // offsets 3 and 4: the next segment waits for the next fetch
  CHECK(remote.read(4, 1).size() == 1);  // at least one batch
  CHECK(remote.read(10, 1000).empty());  // past what was copied
}

TEST_CASE("remote retention deletes the oldest segments past retention.ms or over retention.bytes",
          "[log][tiered]") {
  RemotePartitionLog remote;
  remote.add(remote_segment(0, 5, seconds(10)));
  remote.add(remote_segment(5, 5, seconds(20)));
  remote.add(remote_segment(10, 5, seconds(30)));
  SECTION("retention.ms: by each segment's largest timestamp, from the oldest") {
    const auto deleted = remote.expire(seconds(45), seconds(20), -1, 0);
    REQUIRE(deleted.size() == 2);  // 10 s and 20 s are at least 20 s old at 45 s; 30 s is not
    CHECK(remote.log_start_offset() == 10);
    CHECK(remote.size_bytes() == 500);
    CHECK(remote.read(7, 1000).empty());  // below the log start offset: gone
  }
  SECTION("retention.bytes counts the local segments not yet copied") {
    // 1,500 remote bytes and 600 only local, over a 1,200-byte retention: 900 breached, one
    // 500-byte segment fits in it and the next no longer does.
    const auto deleted = remote.expire(seconds(45), kNever, 1200, 600);
    CHECK(deleted.size() == 1);
    CHECK(remote.log_start_offset() == 5);
  }
  SECTION("no limit: nothing goes") {
    CHECK(remote.expire(seconds(1000), kNever, -1, 0).empty());
    CHECK(remote.log_start_offset() == 0);
  }
}

TEST_CASE("two leaders' overlapping copies give each batch once", "[log][tiered]") {
  RemotePartitionLog remote;
  remote.add(remote_segment(0, 5, seconds(1)));   // the old leader's segment: 0-4
  remote.add(remote_segment(3, 7, seconds(2)));   // the new leader's, rolled elsewhere: 3-9
  const auto batches = remote.batches_between(0, 10);
  REQUIRE(batches.size() == 10);
  for (std::size_t i = 0; i < batches.size(); ++i) CHECK(batches[i].base_offset == static_cast<Offset>(i));
  REQUIRE(remote.segment_containing(4) != nullptr);
  CHECK(remote.segment_containing(4)->base_offset == 0);
  CHECK(remote.segment_containing(7)->base_offset == 3);
}

TEST_CASE("a tiered local log deletes only segments the remote store holds to their end", "[log][tiered]") {
  LogConfig config;
  config.segment_bytes = 250;  // two batches a segment
  config.remote_storage_enable = true;
  config.retention_ms = seconds(600);
  config.local_retention_ms = seconds(5);
  PartitionLog log = tiered_local_log(config, 10);  // 5 segments of 20 offsets, the last one active
  REQUIRE(log.segments().size() == 5);
  SECTION("nothing copied: nothing deleted, whatever local.retention.ms says") {
    CHECK(log.delete_old_segments(seconds(100), -1).empty());
    CHECK(log.log_start_offset() == 0);
  }
  SECTION("the first two segments copied: those two go, the log start is the local one") {
    const auto deleted = log.delete_old_segments(seconds(100), 39);
    REQUIRE(deleted.size() == 1);
    CHECK(deleted[0].segments == 2);
    CHECK(log.log_start_offset() == 40);
  }
  SECTION("a copy ending inside a segment does not free it") {
    CHECK(log.delete_old_segments(seconds(100), 30).front().segments == 1);
    CHECK(log.log_start_offset() == 20);
  }
  SECTION("local.retention.ms, not retention.ms, decides: young segments stay even when copied") {
    CHECK(log.delete_old_segments(seconds(9), 79).front().log_start_after == 40);  // those of 0-3 s, over 5 s old at 9 s
  }
  SECTION("an active segment past local retention is rolled, so that it can be copied") {
    (void)log.delete_old_segments(seconds(100), 79);
    CHECK(log.segments().size() == 2);  // the old active segment, now rolled, and a new empty one
    CHECK(log.segments().back().base_offset == log.log_end_offset());
  }
}

TEST_CASE("local.retention.* of -2 is retention.* and without remote storage they are not read", "[log][tiered]") {
  LogConfig config;
  config.retention_ms = seconds(60);
  config.retention_bytes = 1000;
  config.local_retention_ms = seconds(5);
  config.local_retention_bytes = 10;
  CHECK(config.effective_local_retention_ms() == seconds(60));  // not tiered
  CHECK(config.effective_local_retention_bytes() == 1000);
  config.remote_storage_enable = true;
  CHECK(config.effective_local_retention_ms() == seconds(5));
  CHECK(config.effective_local_retention_bytes() == 10);
  config.local_retention_ms = LogConfig::kUseRetention;
  config.local_retention_bytes = LogConfig::kUseRetention;
  CHECK(config.effective_local_retention_ms() == seconds(60));
  CHECK(config.effective_local_retention_bytes() == 1000);
}
