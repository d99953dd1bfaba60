// Log compaction of a PartitionLog (cleanup.policy=compact), after Kafka's
// LogCleaner: the cleanable range (LogCleanerManager.cleanableOffsets: never
// the active segment, never past the last stable offset, never a segment
// newer than min.compaction.lag.ms), the dirty ratio, the latest record of
// each key kept with offsets unchanged, tombstones until their delete horizon
// (KIP-534), the offset map's capacity, and a follower appending past the gaps.
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include "models/coordinator/coordinator_records.hpp"
#include "models/log/partition_log.hpp"

using namespace ksim;
using namespace ksim::models;

namespace {

// One record per batch, 100 bytes, one a second from t=0: record i has key keys[i] (negative: a tombstone of -k-1).
struct CompactionFixture {
  LogConfig config;
  std::vector<RecordKey> keys;
  PartitionLog log;

  explicit CompactionFixture(LogConfig c) : config(c) {
    config.compact_enabled = true;
    config.delete_enabled = false;
    log.configure(&config);
  }
  void write(std::int64_t key, bool tombstone = false) {
    RecordBatch b;
    b.record_count = 1;
    b.bytes = 100;
    b.writer = 0;
    b.first_record = keys.size();
    b.create_time = seconds(static_cast<std::int64_t>(keys.size()));
    keys.push_back({key, tombstone});
    log.append_as_leader(b, 1);
    log.set_high_watermark(log.log_end_offset());
  }
  RecordKeyOf key_of() const {
    return [this](const RecordBatch& b, std::int32_t i) { return keys[b.first_record + static_cast<std::uint64_t>(i)]; };
  }
  CleanerStats clean(SimTime now, std::size_t map_keys = 1000) {
    return log.clean(log_to_clean(log, log.high_watermark(), now), key_of(), map_keys, now);
  }
  std::vector<Offset> offsets() const {
    std::vector<Offset> out;
    for (const RecordBatch& b : log.batches()) {
      for (std::int32_t i = 0; i < b.record_count; ++i) out.push_back(b.base_offset + i);
    }
    return out;
  }
};

LogConfig compaction_segments_of(std::uint64_t bytes) {
  LogConfig c;
  c.segment_bytes = bytes;
  return c;
}

}  // namespace

TEST_CASE("the cleanable range ends at the active segment and at the last stable offset", "[log][compaction]") {
  CompactionFixture f(compaction_segments_of(250));  // two records a segment
  for (int i = 0; i < 7; ++i) f.write(i % 2);        // segments at 0, 2, 4, 6 (active)
  LogToClean ltc = log_to_clean(f.log, f.log.high_watermark(), seconds(100));
  CHECK(ltc.first_dirty_offset == 0);
  CHECK(ltc.first_uncleanable_offset == 6);  // the active segment's base
  CHECK(ltc.clean_bytes == 0);
  CHECK(ltc.cleanable_bytes == 600);
  CHECK(ltc.cleanable_ratio() == 1.0);
  // A last stable offset inside a segment: that whole segment is uncleanable (calculateCleanableBytes).
  ltc = log_to_clean(f.log, 3, seconds(100));
  CHECK(ltc.first_uncleanable_offset == 2);
  CHECK(ltc.cleanable_bytes == 200);
  // The active segment is never cleaned: it keeps its records whatever their keys.
  const CleanerStats stats = f.clean(seconds(100));
  CHECK(stats.end_offset == 6);
  CHECK(f.offsets() == std::vector<Offset>{4, 5, 6});
  CHECK(f.log.first_dirty_offset() == 6);
  CHECK(f.log.log_start_offset() == 0);  // compaction never moves the log start offset
  CHECK(f.log.log_end_offset() == 7);
}

TEST_CASE("cleaning keeps the latest record of each key at its offset, the gaps skipped by reads", "[log][compaction]") {
  CompactionFixture f(compaction_segments_of(250));
  for (const std::int64_t key : {1, 2, 1, 3, 2, 1, 4, 4, 9}) f.write(key);  // segments 0,2,4,6; active 8
  const CleanerStats stats = f.clean(seconds(100));
  CHECK(f.offsets() == std::vector<Offset>{3, 4, 5, 7, 8});
  CHECK(stats.records_removed == 4);
  CHECK(stats.bytes_before == 800);
  CHECK(stats.bytes_after == 400);
  CHECK(f.log.size_bytes() == 500);
  CHECK(f.log.segments()[0].bytes == 0);
  CHECK(f.log.segments()[1].bytes == 100);
  // A read from a removed offset returns the next record there is (no OFFSET_OUT_OF_RANGE).
  const auto read = f.log.read(0, 1 << 20);
  REQUIRE(!read.empty());
  CHECK(read.front().base_offset == 3);
  CHECK(f.log.batch_at(1) == nullptr);
  // The removed records are reported, in offset order.
  REQUIRE(stats.removed.size() == 4);  // one run per batch of one record
  CHECK(stats.removed[0].base_offset == 0);
  CHECK(stats.removed[3].base_offset == 6);
  // A second cleaning with nothing new dirty removes nothing more, and the dirty ratio is then 0.
  CHECK(log_to_clean(f.log, f.log.high_watermark(), seconds(100)).cleanable_ratio() == 0.0);
}

TEST_CASE("a batch of several records is split where records are removed, offsets and record numbers kept",
          "[log][compaction]") {
  CompactionFixture f(compaction_segments_of(1000));
  RecordBatch b;
  b.record_count = 4;
  b.bytes = 400;
  b.base_sequence = 10;
  b.create_time = 0;
  f.keys = {{1, false}, {2, false}, {1, false}, {3, false}};
  f.log.append_as_leader(b, 1);
  f.keys.push_back({9, false});
  RecordBatch next;
  next.record_count = 1;
  next.bytes = 100;
  next.first_record = 4;
  next.create_time = seconds(1);
  f.config.segment_ms = milliseconds(500);  // the next batch rolls a segment
  f.log.append_as_leader(next, 1);
  f.log.set_high_watermark(f.log.log_end_offset());
  f.clean(seconds(10));
  REQUIRE(f.log.batches().size() == 2);
  const RecordBatch& run = f.log.batches()[0];
  CHECK(run.base_offset == 1);
  CHECK(run.record_count == 3);
  CHECK(run.first_record == 1);
  CHECK(run.base_sequence == 11);
  CHECK(run.bytes == 300);
}

TEST_CASE("a tombstone stays delete.retention.ms after its segment was first cleaned, then goes", "[log][compaction]") {
  LogConfig c = compaction_segments_of(250);
  c.delete_retention_ms = seconds(30);
  CompactionFixture f(c);
  f.write(1);
  f.write(1, true);  // deletes key 1
  f.write(2);
  f.write(2);
  f.write(3);  // active
  CleanerStats stats = f.clean(seconds(100));
  CHECK(f.offsets() == std::vector<Offset>{1, 3, 4});  // the tombstone stays, the value it deletes goes
  CHECK(stats.tombstones_removed == 0);
  CHECK(f.log.segments()[0].delete_horizon == seconds(130));
  // Before the horizon the next cleaning keeps it (new dirty data so the log is cleaned again).
  f.write(3);
  f.write(4);
  f.write(4);
  stats = f.clean(seconds(129));
  CHECK(std::find(f.offsets().begin(), f.offsets().end(), 1) != f.offsets().end());
  f.write(5);
  f.write(5);
  f.write(6);
  stats = f.clean(seconds(130));
  CHECK(stats.tombstones_removed == 1);
  CHECK(f.offsets().front() == 3);
  CHECK(f.log.log_start_offset() == 0);
}

TEST_CASE("min.compaction.lag.ms keeps segments with newer records out of the cleanable range", "[log][compaction]") {
  LogConfig c = compaction_segments_of(250);
  c.min_compaction_lag_ms = seconds(5);
  CompactionFixture f(c);
  for (int i = 0; i < 9; ++i) f.write(1);  // records at 0s .. 8s; segments 0,2,4,6, active 8
  // At 9s: segment 4 holds a record of 5s, not 5 seconds old.
  LogToClean ltc = log_to_clean(f.log, f.log.high_watermark(), seconds(9));
  CHECK(ltc.first_uncleanable_offset == 4);
  f.clean(seconds(9));
  CHECK(f.offsets() == std::vector<Offset>{3, 4, 5, 6, 7, 8});
  // Later all but the active segment may go.
  f.clean(seconds(20));
  CHECK(f.offsets() == std::vector<Offset>{7, 8});
}

TEST_CASE("the dirty ratio decides whether a log is cleanable, max.compaction.lag.ms forces it", "[log][compaction]") {
  CompactionFixture f(compaction_segments_of(250));
  for (int i = 0; i < 5; ++i) f.write(i);  // distinct keys: nothing to remove
  f.clean(seconds(10));
  CHECK(f.log.first_dirty_offset() == 4);
  for (int i = 5; i < 7; ++i) f.write(i);  // one more closed segment: dirty 200 of 600 bytes
  LogToClean ltc = log_to_clean(f.log, f.log.high_watermark(), seconds(10));
  CHECK(ltc.clean_bytes == 400);
  CHECK(ltc.cleanable_bytes == 200);
  CHECK(ltc.cleanable_ratio() == Approx(1.0 / 3));
  CHECK_FALSE(ltc.cleanable(f.config));  // under min.cleanable.dirty.ratio 0.5
  f.config.min_cleanable_dirty_ratio = 0.3;
  CHECK(ltc.cleanable(f.config));
  f.config.min_cleanable_dirty_ratio = 0.5;
  f.config.max_compaction_lag_ms = seconds(3);  // the dirty segment's first record (4s) is older than now - 3s
  ltc = log_to_clean(f.log, f.log.high_watermark(), seconds(10));
  CHECK(ltc.need_compaction_now);
  CHECK(ltc.cleanable(f.config));
}

TEST_CASE("a full offset map ends the cleaning at the last key it holds", "[log][compaction]") {
  CHECK(offset_map_keys(128ULL << 20, 1, 0.9) == 5'033'164);  // Kafka's defaults: 128 MiB, one thread
  CHECK(offset_map_keys(128ULL << 20, 2, 0.9) == 2'516'581);
  CompactionFixture f(compaction_segments_of(250));
  for (const std::int64_t key : {1, 2, 3, 1, 2, 3, 4}) f.write(key);
  const CleanerStats stats = f.clean(seconds(10), 2);  // room for keys 1 and 2 only
  CHECK(stats.map_full);
  CHECK(stats.end_offset == 2);  // the map ends with offset 1
  CHECK(f.log.first_dirty_offset() == 2);
  CHECK(f.offsets() == std::vector<Offset>{0, 1, 2, 3, 4, 5, 6});  // nothing below 2 is superseded within the map
}

TEST_CASE("a follower appends the batches of a compacted leader past their gaps", "[log][compaction]") {
  CompactionFixture leader(compaction_segments_of(250));
  for (const std::int64_t key : {1, 1, 1, 1, 2}) leader.write(key);
  leader.clean(seconds(10));
  LogConfig config = leader.config;
  PartitionLog follower;
  follower.configure(&config);
  for (const RecordBatch& b : leader.log.batches()) follower.append_as_follower(b);
  CHECK(follower.log_end_offset() == leader.log.log_end_offset());
  CHECK(follower.batches().size() == leader.log.batches().size());
  // A truncation below the cleaner's checkpoint takes it back.
  leader.log.truncate_to(3);
  CHECK(leader.log.first_dirty_offset() <= 3);
}

TEST_CASE("a cleaning computed from the log replaces its segments later, keeping what was appended meanwhile",
          "[log][compaction]") {
  // Cleaner.cleanSegments writes the cleaned segments, UnifiedLog.replaceSegments swaps them in: the
  // records appended in between (past the cleaned segments) stay, and the result is the one-step clean's.
  CompactionFixture two_step(compaction_segments_of(250));  // two records a segment
  CompactionFixture one_step(compaction_segments_of(250));
  for (int i = 0; i < 7; ++i) {
    two_step.write(i % 2);
    one_step.write(i % 2);
  }
  const PartitionLog& log = two_step.log;
  CleanedLog cleaned =
      log.compute_cleaning(log_to_clean(log, log.high_watermark(), seconds(100)), two_step.key_of(), 1000, seconds(100));
  CHECK(cleaned.cut == 6);
  CHECK(cleaned.log_rewrites == log.rewrites());
  CHECK(cleaned.stats.bytes_read == 600 + 600);  // the dirty section for the map, then the segments rewritten
  CHECK(cleaned.stats.records_read == 12);
  CHECK(two_step.offsets() == std::vector<Offset>{0, 1, 2, 3, 4, 5, 6});  // nothing replaced yet
  const CleanerStats reference = one_step.clean(seconds(100));
  for (int i = 0; i < 3; ++i) {
    two_step.write(i);
    one_step.write(i);
  }
  CHECK(cleaned.log_rewrites == log.rewrites());  // appends do not rewrite the log
  const CleanerStats stats = two_step.log.replace_cleaned(std::move(cleaned));
  CHECK(stats.records_removed == reference.records_removed);
  CHECK(stats.bytes_after == reference.bytes_after);
  CHECK(two_step.offsets() == one_step.offsets());
  CHECK(two_step.offsets() == std::vector<Offset>{4, 5, 6, 7, 8, 9});
  CHECK(log.size_bytes() == one_step.log.size_bytes());
  CHECK(log.first_dirty_offset() == 6);
  REQUIRE(log.segments().size() == one_step.log.segments().size());
  for (std::size_t i = 0; i < log.segments().size(); ++i) CHECK(log.segments()[i].bytes == one_step.log.segments()[i].bytes);
}

TEST_CASE("a truncation, a deletion or a moved log start rewrites the log, a cleaning computed before does not apply",
          "[log][compaction]") {
  // LogCleanerManager.abortCleaning: the cleaner compares the count before it replaces the segments.
  CompactionFixture f(compaction_segments_of(250));
  for (int i = 0; i < 7; ++i) f.write(i % 2);
  std::uint32_t before = f.log.rewrites();
  f.log.truncate_to(5);
  CHECK(f.log.rewrites() != before);
  before = f.log.rewrites();
  CHECK(f.log.maybe_increment_log_start_offset(2));
  CHECK(f.log.rewrites() != before);
  before = f.log.rewrites();
  CHECK_FALSE(f.log.delete_old_segments(seconds(100)).empty());  // the segment below the new log start goes
  CHECK(f.log.rewrites() != before);
  before = f.log.rewrites();
  f.clean(seconds(100));
  CHECK(f.log.rewrites() != before);
}

TEST_CASE("a run the cleaner keeps of a batch knows where it starts in the batch as written", "[log][compaction]") {
  // A coordinator's batch holds the records of one stored content (an offset commit of several
  // partitions): the loader reads the records of the content the run kept.
  CompactionFixture f(compaction_segments_of(150));  // a segment a batch
  RecordBatch three;
  three.record_count = 3;
  three.bytes = 100;
  three.first_record = f.keys.size();
  for (const std::int64_t key : {5, 6, 7}) f.keys.push_back({key, false});
  f.log.append_as_leader(three, 1);
  f.write(5);  // offset 3 supersedes offset 0
  f.write(7);  // offset 4 supersedes offset 2
  f.write(9);
  f.write(9);  // the active segment
  f.clean(seconds(100));
  const auto batches = f.log.batches();
  REQUIRE_FALSE(batches.empty());
  const RecordBatch& kept = batches.front();
  CHECK(kept.base_offset == 1);
  CHECK(kept.record_count == 1);
  CHECK(kept.run_start == 1);  // the second record of the batch as written
  CHECK(kept.first_record == three.first_record + 1);
  CHECK(f.offsets() == std::vector<Offset>{1, 3, 4, 5, 6});
}

TEST_CASE("coordinator records are keyed as Kafka keys them", "[log][compaction]") {
  // OffsetCommitKey (group, topic, partition), GroupMetadataKey (group), TransactionLogKey (id).
  CoordinatorRecordStore store;
  CoordinatorRecord commit;
  commit.group = "g";
  commit.offsets = {{{0, 0}, 10, 1}, {{0, 1}, 20, 1}};
  const std::uint64_t first = store.add(commit);
  commit.offsets = {{{0, 1}, 30, 1}};
  const std::uint64_t second = store.add(commit);
  commit.group = "h";
  const std::uint64_t other_group = store.add(commit);
  CoordinatorRecord meta;
  meta.group = "g";
  meta.metadata = GroupMetadataRecord{};
  const std::uint64_t metadata = store.add(meta);
  CoordinatorRecord txn;
  txn.group = "g";
  txn.transaction = TransactionRecord{};
  const std::uint64_t transaction = store.add(txn);
  CHECK(store.key(first, 1) == store.key(second, 0));  // the same partition of the same group
  CHECK(store.key(first, 0).key != store.key(first, 1).key);
  CHECK(store.key(other_group, 0).key != store.key(second, 0).key);
  CHECK(store.key(metadata, 0).key != store.key(first, 0).key);
  CHECK(store.key(transaction, 0).key != store.key(metadata, 0).key);  // a transactional.id named as a group
  CHECK_FALSE(store.key(first, 0).tombstone);
}
