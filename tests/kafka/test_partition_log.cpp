#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <functional>

#include "models/log/partition_log.hpp"

using namespace ksim::models;

namespace {

RecordBatch batch_of(std::int32_t records, std::uint64_t bytes = 100) {
  RecordBatch batch;
  batch.record_count = records;
  batch.bytes = bytes;
  return batch;
}

// A batch as a follower would fetch it: offsets and epoch already set.
RecordBatch fetched(Offset base, std::int32_t records, Epoch epoch, std::uint64_t bytes = 100) {
  RecordBatch batch = batch_of(records, bytes);
  batch.base_offset = base;
  batch.leader_epoch = epoch;
  return batch;
}

// Runs `action` in a child process, silenced and without Catch's signal handlers:
// true if the child died of a failed assertion (SIGABRT).
bool aborts(const std::function<void()>& action) {
  const pid_t child = fork();
  if (child == 0) {
    std::signal(SIGABRT, SIG_DFL);
    const int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd >= 0) {
      dup2(null_fd, STDOUT_FILENO);
      dup2(null_fd, STDERR_FILENO);
    }
    action();
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

using EpochCache = std::vector<std::pair<Epoch, Offset>>;

// Epoch 0 at [0, 10), epoch 2 at [10, 15), epoch 5 at [15, 25): batches of 5 records.
PartitionLog log_with_epochs_0_2_5() {
  PartitionLog log;
  log.append_as_leader(batch_of(5), 0);
  log.append_as_leader(batch_of(5), 0);
  log.append_as_leader(batch_of(5), 2);
  log.append_as_leader(batch_of(5), 5);
  log.append_as_leader(batch_of(5), 5);
  return log;
}

}  // namespace

TEST_CASE("an empty log has no offsets, no epochs and no bytes", "[log]") {
  PartitionLog log;
  CHECK(log.empty());
  CHECK(log.log_end_offset() == 0);
  CHECK(log.high_watermark() == 0);
  CHECK(log.latest_epoch() == -1);
  CHECK(log.size_bytes() == 0);
  CHECK_FALSE(log.end_offset_for_epoch(0).has_value());
  CHECK(log.read(0, 1000).empty());
}

TEST_CASE("leader appends assign consecutive offsets and stamp the leader epoch", "[log]") {
  PartitionLog log;
  RecordBatch unstamped = batch_of(3, 70);
  unstamped.base_offset = 99;
  unstamped.leader_epoch = 42;
  const RecordBatch& first = log.append_as_leader(unstamped, 1);
  CHECK(first.base_offset == 0);
  CHECK(first.leader_epoch == 1);
  const RecordBatch& second = log.append_as_leader(batch_of(4, 30), 1);
  CHECK(second.base_offset == 3);
  CHECK(second.last_offset() == 6);
  CHECK(log.log_end_offset() == 7);
  CHECK(log.size_bytes() == 100);
  CHECK(log.batches().size() == 2);
}

TEST_CASE("the epoch cache gains an entry only when the epoch changes", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();
  CHECK(log.epoch_cache() == EpochCache{{0, 0}, {2, 10}, {5, 15}});
  CHECK(log.latest_epoch() == 5);
}

TEST_CASE("the end offset of the latest epoch is the log end offset", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();
  auto answer = log.end_offset_for_epoch(5);
  REQUIRE(answer.has_value());
  CHECK(answer->epoch == 5);
  CHECK(answer->end_offset == 25);
}

TEST_CASE("the end offset of a middle epoch is the start of the next cached epoch", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();
  auto first = log.end_offset_for_epoch(0);
  REQUIRE(first.has_value());
  CHECK(first->epoch == 0);
  CHECK(first->end_offset == 10);
  auto middle = log.end_offset_for_epoch(2);
  REQUIRE(middle.has_value());
  CHECK(middle->epoch == 2);
  CHECK(middle->end_offset == 15);
}

TEST_CASE("an epoch missing from the cache answers with the largest smaller epoch (KIP-279)", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();
  // A follower that appended in epoch 3 or 4 (never seen by this leader) learns that the
  // leader's epoch 2 ends at 15, and truncates there.
  for (Epoch missing : {3, 4}) {
    auto answer = log.end_offset_for_epoch(missing);
    REQUIRE(answer.has_value());
    CHECK(answer->epoch == 2);
    CHECK(answer->end_offset == 15);
  }
  auto after_zero = log.end_offset_for_epoch(1);
  REQUIRE(after_zero.has_value());
  CHECK(after_zero->epoch == 0);
  CHECK(after_zero->end_offset == 10);
}

TEST_CASE("an epoch newer than the latest cached one ends at the log end offset", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();
  auto answer = log.end_offset_for_epoch(9);
  REQUIRE(answer.has_value());
  CHECK(answer->epoch == 5);
  CHECK(answer->end_offset == 25);
}

TEST_CASE("an epoch older than the first cached one has no end offset", "[log]") {
  PartitionLog log;
  log.append_as_leader(batch_of(5), 3);
  CHECK_FALSE(log.end_offset_for_epoch(2).has_value());
  CHECK_FALSE(log.end_offset_for_epoch(-1).has_value());
  CHECK(log.end_offset_for_epoch(3).has_value());
}

TEST_CASE("truncating inside a batch rounds down to the batch's base offset", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();  // batches at 0, 5, 10, 15, 20
  log.truncate_to(17);
  CHECK(log.log_end_offset() == 15);
  CHECK(log.batches().size() == 3);
  CHECK(log.batches().back().base_offset == 10);
  CHECK(log.size_bytes() == 300);
}

TEST_CASE("truncating at a batch boundary keeps every batch below it", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();
  log.truncate_to(20);
  CHECK(log.log_end_offset() == 20);
  CHECK(log.batches().size() == 4);
  CHECK(log.size_bytes() == 400);
  CHECK(log.epoch_cache() == EpochCache{{0, 0}, {2, 10}, {5, 15}});
}

TEST_CASE("truncating at or beyond the log end offset changes nothing", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();
  log.truncate_to(25);
  log.truncate_to(40);
  CHECK(log.log_end_offset() == 25);
  CHECK(log.batches().size() == 5);
  CHECK(log.size_bytes() == 500);
}

TEST_CASE("truncating away the start of an epoch removes it from the cache", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();
  log.truncate_to(15);
  CHECK(log.epoch_cache() == EpochCache{{0, 0}, {2, 10}});
  CHECK(log.latest_epoch() == 2);
  auto answer = log.end_offset_for_epoch(2);
  REQUIRE(answer.has_value());
  CHECK(answer->end_offset == 15);

  log.truncate_to(12);  // inside the only epoch-2 batch
  CHECK(log.epoch_cache() == EpochCache{{0, 0}});
  log.truncate_to(0);
  CHECK(log.epoch_cache().empty());
  CHECK(log.empty());
  CHECK(log.size_bytes() == 0);
}

TEST_CASE("after truncation an epoch can start again at the new end", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();
  log.truncate_to(10);
  log.append_as_follower(fetched(10, 5, 3));
  CHECK(log.epoch_cache() == EpochCache{{0, 0}, {3, 10}});
}

TEST_CASE("truncation caps the high watermark and the flushed offset at the new end", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();
  log.set_high_watermark(22);
  log.mark_flushed(24);
  log.truncate_to(13);
  CHECK(log.log_end_offset() == 10);
  CHECK(log.high_watermark() == 10);
  CHECK(log.flushed_offset() == 10);

  log.set_high_watermark(5);
  log.mark_flushed(5);  // already flushed beyond: no effect
  log.truncate_to(10);
  CHECK(log.high_watermark() == 5);
  CHECK(log.flushed_offset() == 10);
}

TEST_CASE("the high watermark can be set anywhere up to the log end offset", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();
  log.set_high_watermark(25);
  CHECK(log.high_watermark() == 25);
  log.set_high_watermark(7);
  CHECK(log.high_watermark() == 7);
}

TEST_CASE("the flushed offset only grows and never passes the log end offset", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();
  CHECK(log.flushed_offset() == 0);
  CHECK(log.unflushed_records() == 25);
  log.mark_flushed(10);
  CHECK(log.flushed_offset() == 10);
  CHECK(log.unflushed_records() == 15);
  log.mark_flushed(4);
  CHECK(log.flushed_offset() == 10);
  log.mark_flushed(1000);
  CHECK(log.flushed_offset() == 25);
  CHECK(log.unflushed_records() == 0);
}

TEST_CASE("a power loss keeps only the flushed prefix", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();
  log.mark_flushed(15);
  log.set_high_watermark(20);
  log.lose_unflushed();
  CHECK(log.log_end_offset() == 15);
  CHECK(log.high_watermark() == 15);
  CHECK(log.flushed_offset() == 15);
  CHECK(log.size_bytes() == 300);
  CHECK(log.latest_epoch() == 2);
  CHECK(log.unflushed_records() == 0);
}

TEST_CASE("a power loss with a flush inside a batch loses that whole batch", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();
  log.mark_flushed(12);
  log.lose_unflushed();
  CHECK(log.log_end_offset() == 10);
  CHECK(log.flushed_offset() == 10);
  CHECK(log.latest_epoch() == 0);
}

TEST_CASE("reads stop before max_bytes is exceeded", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();  // 100 bytes per batch
  auto two = log.read(5, 250);
  REQUIRE(two.size() == 2);
  CHECK(two[0].base_offset == 5);
  CHECK(two[1].base_offset == 10);
  CHECK(log.read(5, 300).size() == 3);
  CHECK(log.read(0, 1'000'000).size() == 5);
}

TEST_CASE("a read returns at least one batch even if it is larger than max_bytes", "[log]") {
  PartitionLog log;
  log.append_as_leader(batch_of(1, 5000), 0);
  log.append_as_leader(batch_of(1, 10), 0);
  auto one = log.read(0, 100);
  REQUIRE(one.size() == 1);
  CHECK(one[0].bytes == 5000);
  CHECK(log.read(0, 0).size() == 1);
}

TEST_CASE("a read at the log end offset returns nothing", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();
  CHECK(log.read(25, 1000).empty());
}

TEST_CASE("a read with an upper bound returns only batches ending before it", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();
  auto below_hw = log.read(0, 1000, 12);  // the batch [10, 15) crosses the bound
  REQUIRE(below_hw.size() == 2);
  CHECK(below_hw.back().next_offset() == 10);
  CHECK(log.read(0, 1000, 15).size() == 3);
  CHECK(log.read(10, 1000, 12).empty());  // not even one batch beyond the bound
}

TEST_CASE("batch_at finds the batch containing an offset", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();
  const RecordBatch* inside = log.batch_at(12);
  REQUIRE(inside != nullptr);
  CHECK(inside->base_offset == 10);
  REQUIRE(log.batch_at(15) != nullptr);
  CHECK(log.batch_at(15)->base_offset == 15);
  REQUIRE(log.batch_at(24) != nullptr);
  CHECK(log.batch_at(24)->base_offset == 20);
  CHECK(log.batch_at(25) == nullptr);
  CHECK(log.batch_at(-1) == nullptr);
}

TEST_CASE("a follower stores fetched batches with their offsets and epochs", "[log]") {
  PartitionLog log;
  log.append_as_follower(fetched(0, 4, 1));
  log.append_as_follower(fetched(4, 2, 1));
  log.append_as_follower(fetched(6, 3, 4));
  CHECK(log.log_end_offset() == 9);
  CHECK(log.batches()[2].leader_epoch == 4);
  CHECK(log.size_bytes() == 300);
  CHECK(log.epoch_cache() == EpochCache{{1, 0}, {4, 6}});
}

TEST_CASE("a follower's copy answers epoch queries like the leader's log", "[log]") {
  PartitionLog leader = log_with_epochs_0_2_5();
  PartitionLog follower;
  for (const RecordBatch& batch : leader.read(0, 1'000'000)) follower.append_as_follower(batch);
  CHECK(follower.epoch_cache() == leader.epoch_cache());
  CHECK(follower.log_end_offset() == leader.log_end_offset());
  CHECK(follower.end_offset_for_epoch(3)->end_offset == leader.end_offset_for_epoch(3)->end_offset);
}

TEST_CASE("a follower append that is not contiguous is a broken invariant", "[log]") {
  PartitionLog log;
  log.append_as_follower(fetched(0, 4, 1));
  CHECK(aborts([&] { log.append_as_follower(fetched(5, 1, 1)); }));  // a gap
  CHECK(aborts([&] { log.append_as_follower(fetched(3, 1, 1)); }));  // an overlap
  CHECK_FALSE(aborts([&] { log.append_as_follower(fetched(4, 1, 1)); }));
  CHECK(log.log_end_offset() == 4);  // the children's appends did not touch this log
}

TEST_CASE("a high watermark beyond the log end offset is a broken invariant", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();
  CHECK(aborts([&] { log.set_high_watermark(26); }));
  CHECK(aborts([&] { log.set_high_watermark(-1); }));
  CHECK_FALSE(aborts([&] { log.set_high_watermark(25); }));
}

TEST_CASE("a read from inside a batch returns that whole batch, a read past the end is a broken invariant", "[log]") {
  PartitionLog log = log_with_epochs_0_2_5();
  const auto batches = log.read(7, 1000);
  REQUIRE_FALSE(batches.empty());
  CHECK(batches.front().base_offset <= 7);
  CHECK(batches.front().next_offset() > 7);
  CHECK(aborts([&] { (void)log.read(26, 1000); }));
  CHECK_FALSE(aborts([&] { (void)log.read(5, 1000); }));
}
