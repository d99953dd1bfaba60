// The partition unit without a cluster, in the style of Kafka's PartitionTest:
// leadership, follower fetch state, ISR expansion and shrinking (KIP-497's
// maximal ISR), the high watermark and min.insync.replicas.
#include <catch2/catch.hpp>

#include "models/broker/partition.hpp"

using namespace ksim;
using namespace ksim::models;

namespace {

constexpr BrokerId kLeader = 0;
const TopicPartition kTp{0, 0};

PartitionState leader_state(std::vector<BrokerId> isr, Epoch leader_epoch = 1, Epoch partition_epoch = 1) {
  PartitionState s;
  s.partition = kTp;
  s.replicas = {0, 1, 2};
  s.isr = std::move(isr);
  s.leader = kLeader;
  s.leader_epoch = leader_epoch;
  s.partition_epoch = partition_epoch;
  return s;
}

RecordBatch batch(std::int32_t records) {
  RecordBatch b;
  b.record_count = records;
  b.bytes = 100 * static_cast<std::uint64_t>(records);
  return b;
}

// A leader of {0, 1, 2} with `records` records appended in epoch 1.
Partition leader_with(std::int32_t records, std::vector<BrokerId> isr = {0, 1, 2}) {
  Partition p(kTp, kLeader);
  p.make_leader(leader_state(std::move(isr)), seconds(1));
  if (records > 0) p.append_as_leader(batch(records));
  return p;
}

}  // namespace

TEST_CASE("a new leader's followers start caught up and unknown, holding the high watermark", "[partition]") {
  Partition p = leader_with(10);
  CHECK(p.is_leader());
  CHECK(p.log().log_end_offset() == 10);
  REQUIRE(p.follower(1));
  CHECK(p.follower(1)->log_end_offset == -1);
  CHECK(p.follower(1)->last_caught_up == seconds(1));
  CHECK_FALSE(p.follower(kLeader));
  CHECK_FALSE(p.maybe_advance_high_watermark());  // followers not heard from yet
  CHECK(p.log().high_watermark() == 0);
  CHECK_FALSE(p.broken_invariant());
}

TEST_CASE("the high watermark is the smallest log end offset of the ISR", "[partition]") {
  Partition p = leader_with(10);
  CHECK(p.update_follower_fetch_state(1, 10, seconds(2)));
  CHECK_FALSE(p.maybe_advance_high_watermark());  // follower 2 still unknown
  CHECK(p.update_follower_fetch_state(2, 4, seconds(2)));
  CHECK(p.maybe_advance_high_watermark());
  CHECK(p.log().high_watermark() == 4);
  CHECK_FALSE(p.update_follower_fetch_state(2, 4, seconds(3)));  // the same position: not moved
  CHECK(p.update_follower_fetch_state(2, 10, seconds(3)));
  CHECK(p.maybe_advance_high_watermark());
  CHECK(p.log().high_watermark() == 10);
  CHECK_FALSE(p.maybe_advance_high_watermark());
  CHECK_FALSE(p.broken_invariant());
}

TEST_CASE("a follower outside the ISR does not hold the high watermark back", "[partition]") {
  Partition p = leader_with(10, {0, 1});
  p.update_follower_fetch_state(1, 10, seconds(2));
  p.update_follower_fetch_state(2, 0, seconds(2));
  CHECK(p.maybe_advance_high_watermark());
  CHECK(p.log().high_watermark() == 10);
}

TEST_CASE("the high watermark stays while the ISR is below min.insync.replicas (KAFKA-15583)", "[partition]") {
  Partition p = leader_with(10, {0});
  p.update_follower_fetch_state(1, 10, seconds(2));
  CHECK_FALSE(p.maybe_advance_high_watermark(2));  // the ISR {0} is below 2
  CHECK(p.log().high_watermark() == 0);
  CHECK(p.maybe_advance_high_watermark(1));  // at min.insync.replicas=1 it moves
  CHECK(p.log().high_watermark() == 10);
  // min.insync.replicas above the replication factor counts as the replication factor.
  Partition all = leader_with(10);
  all.update_follower_fetch_state(1, 10, seconds(2));
  all.update_follower_fetch_state(2, 10, seconds(2));
  CHECK(all.maybe_advance_high_watermark(5));
  CHECK(all.log().high_watermark() == 10);
}

TEST_CASE("a follower is caught up if it fetched from the leader's end, or from where the end was at its last fetch",
          "[partition]") {
  Partition p = leader_with(10);
  p.update_follower_fetch_state(1, 10, seconds(5));
  CHECK(p.follower(1)->last_caught_up == seconds(5));
  p.append_as_leader(batch(5));                       // the end moves to 15
  p.update_follower_fetch_state(1, 10, seconds(6));   // from where the end was at its previous fetch
  CHECK(p.follower(1)->last_caught_up == seconds(5));  // caught up as of that previous fetch
  p.update_follower_fetch_state(1, 12, seconds(7));   // neither the end (15) nor the end at its last fetch (15)
  CHECK(p.follower(1)->last_caught_up == seconds(5));
  p.update_follower_fetch_state(1, 15, seconds(8));
  CHECK(p.follower(1)->last_caught_up == seconds(8));
}

TEST_CASE("a follower joins the ISR once it reaches the high watermark and the start of the leader's epoch",
          "[partition]") {
  Partition p = leader_with(10, {0, 1});
  p.update_follower_fetch_state(1, 10, seconds(2));
  p.maybe_advance_high_watermark();
  REQUIRE(p.log().high_watermark() == 10);
  const std::vector<BrokerId> live{0, 1, 2};
  p.update_follower_fetch_state(2, 6, seconds(2));
  CHECK_FALSE(p.isr_with(2, live));  // below the high watermark
  p.update_follower_fetch_state(2, 10, seconds(3));
  CHECK_FALSE(p.isr_with(2, {0, 1}));  // KIP-841: not a live broker
  const auto expanded = p.isr_with(2, live);
  REQUIRE(expanded);
  CHECK(*expanded == std::vector<BrokerId>{0, 1, 2});
  CHECK_FALSE(p.isr_with(1, live));  // already in
}

TEST_CASE("a follower from before the leader's epoch must reach the epoch's start to join", "[partition]") {
  Partition p(kTp, kLeader);
  p.make_leader(leader_state({0, 1}, 1), seconds(1));
  p.append_as_leader(batch(10));                          // epoch 1: offsets 0-9
  p.make_leader(leader_state({0, 1}, 2, 2), seconds(2));  // epoch 2 starts at 10
  p.append_as_leader(batch(10));
  REQUIRE(p.log().high_watermark() == 0);  // follower 1 not heard from in this epoch
  p.update_follower_fetch_state(2, 8, seconds(3));
  CHECK_FALSE(p.isr_with(2, {0, 1, 2}));  // at the high watermark, but short of the epoch's start
  p.update_follower_fetch_state(2, 10, seconds(4));
  CHECK(p.isr_with(2, {0, 1, 2}));
}

TEST_CASE("KIP-497: a pending ISR change counts in the maximal ISR and blocks another", "[partition]") {
  Partition p = leader_with(10, {0, 1});
  p.update_follower_fetch_state(1, 10, seconds(2));
  p.update_follower_fetch_state(2, 0, seconds(2));
  p.begin_isr_change({0, 1, 2});
  CHECK(p.isr_change_pending());
  CHECK(p.maximal_isr() == std::vector<BrokerId>{0, 1, 2});
  CHECK(p.enough_replicas(3, true));
  CHECK_FALSE(p.maybe_advance_high_watermark());  // the pending member at 0 holds it
  CHECK_FALSE(p.isr_without_lagging(seconds(300), seconds(30)));  // no second change while one is in flight
  PartitionState committed = leader_state({0, 1, 2}, 1, 2);
  p.update_state(committed);  // the controller committed it
  CHECK_FALSE(p.isr_change_pending());
  CHECK(p.state().isr == std::vector<BrokerId>{0, 1, 2});
}

TEST_CASE("an answer to an ISR change no longer pending is ignored: the pending addition still holds the high watermark",
          "[partition]") {
  // chaos.yaml seed 100165: a shrink dropping 2 is in flight when the
  // controller drops 2 itself (2 restarted); 2 catches up and the leader
  // proposes adding it back; 2 falls behind; the shrink's refusal arrives,
  // then the addition is committed. Acting on the refusal would have let the
  // high watermark pass 2, which the controller then puts in the ISR.
  Partition p = leader_with(10);
  p.update_follower_fetch_state(1, 10, seconds(2));
  p.update_follower_fetch_state(2, 10, seconds(2));
  REQUIRE(p.maybe_advance_high_watermark());
  const IsrProposal shrink = p.begin_isr_change({0, 1});
  CHECK(shrink == IsrProposal{{0, 1}, 1, 1});
  p.update_state(leader_state({0, 1}, 1, 2));  // the controller's own change, a newer partition epoch
  CHECK_FALSE(p.isr_change_pending());          // the state is committed (Partition.makeLeader)
  CHECK_FALSE(p.answers_pending(shrink));
  const auto expanded = p.isr_with(2, {0, 1, 2});
  REQUIRE(expanded);
  const IsrProposal expand = p.begin_isr_change(*expanded);
  CHECK(expand == IsrProposal{{0, 1, 2}, 1, 2});
  p.append_as_leader(batch(10));
  p.update_follower_fetch_state(1, 20, seconds(3));  // 2 stays at 10: partitioned away
  CHECK_FALSE(p.maybe_advance_high_watermark());     // the maximal ISR has 2
  CHECK_FALSE(p.answers_pending(shrink));            // the shrink's refusal: out of date, ignored
  CHECK(p.answers_pending(expand));
  p.update_state(leader_state({0, 1, 2}, 1, 3));     // the addition committed
  CHECK_FALSE(p.isr_change_pending());
  CHECK_FALSE(p.maybe_advance_high_watermark());
  CHECK(p.log().high_watermark() == 10);             // never above 2's log end
}

TEST_CASE("followers that have not caught up for replica.lag.time.max.ms leave the ISR, the leader never does",
          "[partition]") {
  Partition p = leader_with(10);
  p.update_follower_fetch_state(1, 10, seconds(20));
  CHECK_FALSE(p.isr_without_lagging(seconds(30), seconds(30)));  // both caught up within 30s (2 at start, 1s)
  const auto kept = p.isr_without_lagging(seconds(32), seconds(30));
  REQUIRE(kept);
  CHECK(*kept == std::vector<BrokerId>{0, 1});
}

TEST_CASE("min.insync.replicas counts the maximal ISR", "[partition]") {
  Partition p = leader_with(0, {0});
  CHECK(p.enough_replicas(1, true));
  CHECK_FALSE(p.enough_replicas(2, true));
}

TEST_CASE("older partition states are stale, a new leader epoch or a stopped replica is new", "[partition]") {
  Partition p = leader_with(0);
  CHECK(p.is_stale(leader_state({0, 1, 2}, 0, 5)));
  CHECK(p.is_stale(leader_state({0, 1, 2}, 1, 0)));
  CHECK_FALSE(p.is_stale(leader_state({0, 1}, 1, 2)));
  CHECK_FALSE(p.is_new_epoch(leader_state({0, 1}, 1, 2)));
  CHECK(p.is_new_epoch(leader_state({0, 1}, 2, 2)));
  p.go_offline();
  CHECK(p.is_new_epoch(leader_state({0, 1}, 1, 2)));
  CHECK_FALSE(p.follower(1));
}

TEST_CASE("a follower's high watermark follows the leader's up to its own log end", "[partition]") {
  Partition p(kTp, 1);
  PartitionState s = leader_state({0, 1, 2});
  p.make_follower(s);
  RecordBatch b = batch(5);
  b.base_offset = 0;
  b.leader_epoch = 1;
  p.append_as_follower(b);
  p.follow_high_watermark(9);
  CHECK(p.log().high_watermark() == 5);
  p.follow_high_watermark(3);
  CHECK(p.log().high_watermark() == 3);
  CHECK_FALSE(p.follower(0));
  CHECK_FALSE(p.maybe_advance_high_watermark());  // only a leader moves it
  CHECK_FALSE(p.broken_invariant());
}

TEST_CASE("a crash forgets the role, the state, the followers and a pending change, and keeps the log", "[partition]") {
  Partition p = leader_with(10);
  p.update_follower_fetch_state(1, 10, seconds(2));
  p.update_follower_fetch_state(2, 10, seconds(2));
  p.maybe_advance_high_watermark();
  p.begin_isr_change({0, 1});
  p.reset_process_state();
  CHECK(p.role() == Partition::Role::None);
  CHECK_FALSE(p.isr_change_pending());
  CHECK_FALSE(p.follower(1));
  CHECK(p.state().leader == kNoBroker);
  CHECK(p.log().log_end_offset() == 10);
  CHECK(p.log().high_watermark() == 10);
  CHECK_FALSE(p.broken_invariant());
}

// Partition.makeLeader records leaderEpochStartOffsetOpt (the log end offset)
// only for a new leader epoch; ListOffsets(latest) answers OFFSET_NOT_AVAILABLE
// while the high watermark is below it (Partition.fetchOffsetForTimestamp).
TEST_CASE("a leader's epoch start offset is its log end offset when the epoch began", "[partition]") {
  Partition p(kTp, kLeader);
  CHECK(p.epoch_start_offset() == -1);  // not a leader
  p.make_follower(leader_state({0, 1, 2}));
  p.append_as_follower([] {
    RecordBatch b = batch(10);
    b.base_offset = 0;
    b.leader_epoch = 1;
    return b;
  }());
  p.make_leader(leader_state({0, 1, 2}, 2, 2), seconds(1));
  CHECK(p.epoch_start_offset() == 10);
  CHECK(p.log().high_watermark() < p.epoch_start_offset());  // the lagging-HW window
  p.append_as_leader(batch(5));
  p.make_leader(leader_state({0, 1}, 2, 3), seconds(2));  // the same epoch, a new ISR
  CHECK(p.epoch_start_offset() == 10);
  p.make_leader(leader_state({0, 1}, 3, 4), seconds(3));
  CHECK(p.epoch_start_offset() == 15);
  p.make_follower(leader_state({0, 1}, 4, 5));
  CHECK(p.epoch_start_offset() == -1);
}

// Partition.makeLeader / Replica.resetReplicaState(isNewLeader = false): a
// leader re-elected in a new epoch (the ZooKeeper-era controller bumps the
// leader epoch when it shrinks the ISR) keeps what it knows of its followers'
// logs, so the smaller ISR moves the high watermark at once.
TEST_CASE("a leader re-elected in a new epoch keeps its followers' log ends", "[partition]") {
  Partition p = leader_with(10);
  p.update_follower_fetch_state(1, 10, seconds(2));
  p.update_follower_fetch_state(2, 5, seconds(2));
  p.maybe_advance_high_watermark();
  REQUIRE(p.log().high_watermark() == 5);
  p.make_leader(leader_state({0, 1}, 2, 2), seconds(3));  // follower 2 left the ISR, in epoch 2
  REQUIRE(p.follower(1));
  CHECK(p.follower(1)->log_end_offset == 10);
  CHECK(p.follower(1)->last_caught_up == seconds(3));  // in the ISR: caught up as of the election
  CHECK(p.follower(2)->last_caught_up == 0);           // out of it: not brought back before a fetch
  CHECK(p.maybe_advance_high_watermark());
  CHECK(p.log().high_watermark() == 10);
  // A leader new to the partition knows nothing of its followers (isNewLeader).
  Partition fresh(kTp, kLeader);
  fresh.make_leader(leader_state({0, 1}, 2, 2), seconds(3));
  CHECK(fresh.follower(1)->log_end_offset == -1);
}
