// replicas_agree_on_committed_prefix's comparison of two logs
// (models/check/replica_agreement.hpp), without a cluster.
#include <catch2/catch.hpp>

#include "models/check/replica_agreement.hpp"

using namespace ksim;
using namespace ksim::models;

namespace {

RecordBatch batch(std::int32_t records, std::uint64_t first_record, std::uint32_t writer = 1) {
  RecordBatch b;
  b.record_count = records;
  b.bytes = 100;
  b.writer = writer;
  b.first_record = first_record;
  return b;
}

// A leader's log: batches of 5 records in `epoch`, from record `first` on.
PartitionLog leader_log(int batches, Epoch epoch = 1, std::uint64_t first = 0) {
  PartitionLog log;
  for (int i = 0; i < batches; ++i) log.append_as_leader(batch(5, first + 5 * static_cast<std::uint64_t>(i)), epoch);
  return log;
}

// A follower's copy of `leader` up to `upto` (a batch boundary).
PartitionLog copy_of(const PartitionLog& leader, Offset upto) {
  PartitionLog log;
  for (const RecordBatch& b : leader.batches()) {
    if (b.base_offset < upto) log.append_as_follower(b);
  }
  return log;
}

}  // namespace

TEST_CASE("replicas that hold the leader's batches below both high watermarks agree", "[invariants][divergence]") {
  PartitionLog leader = leader_log(4);  // offsets 0-19
  leader.set_high_watermark(20);
  PartitionLog follower = copy_of(leader, 15);
  follower.set_high_watermark(10);
  CHECK_FALSE(committed_divergence(leader, 0, follower, 1));
  PartitionLog empty;
  CHECK_FALSE(committed_divergence(leader, 0, empty, 2));  // a shorter log is no divergence
}

TEST_CASE("an uncommitted tail from an older epoch is no divergence, a committed one is", "[invariants][divergence]") {
  PartitionLog old_leader = leader_log(2, 1);  // epoch 1: offsets 0-9
  PartitionLog new_leader = copy_of(old_leader, 5);
  new_leader.append_as_leader(batch(5, 100, 2), 2);  // epoch 2 writes offsets 5-9 differently
  new_leader.set_high_watermark(10);
  old_leader.set_high_watermark(5);  // its offsets 5-9 were never committed: KIP-101 truncates them
  CHECK_FALSE(committed_divergence(new_leader, 1, old_leader, 0));
  old_leader.set_high_watermark(10);  // before KIP-101, or after a power loss: it counts them committed
  const auto d = committed_divergence(new_leader, 1, old_leader, 0);
  REQUIRE(d);
  CHECK(d->offset == 5);
  CHECK(d->detail.find("leader 1 has offsets 5-9 of leader epoch 2") != std::string::npos);
  CHECK(d->detail.find("broker 0 has offsets 5-9 of leader epoch 1") != std::string::npos);
}
