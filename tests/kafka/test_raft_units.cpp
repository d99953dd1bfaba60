// The pieces of the Raft core one by one: the log's epochs, divergence and
// durability (ReplicatedLog, MockLog), the leader's high watermark
// (LeaderState), the roles' transitions (QuorumState) and the messages' API keys.
#include <catch2/catch.hpp>

#include <map>
#include <optional>
#include <utility>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "models/protocol/kafka_messages.hpp"
#include "models/raft/raft_leader_state.hpp"
#include "models/raft/raft_log.hpp"
#include "models/raft/raft_messages.hpp"
#include "models/raft/raft_role.hpp"

using namespace ksim;
using namespace ksim::models;

namespace raft_units_test {

struct Bytes final : RaftRecord {
  std::uint64_t size_bytes() const override { return 10; }
};

// A log with one batch of `n` records per (epoch, n).
RaftLog log_of(const std::vector<std::pair<Epoch, int>>& batches) {
  RaftLog log;
  for (const auto& [epoch, n] : batches) {
    std::vector<RaftRecordPtr> records;
    for (int i = 0; i < n; ++i) records.push_back(std::make_shared<Bytes>());
    log.append_batch(epoch, records);
  }
  return log;
}

// EpochEndOffset as a pair, to compare.
std::pair<Epoch, Offset> ends(std::optional<EpochEndOffset> e) {
  return e ? std::pair(e->epoch, e->end_offset) : std::pair(Epoch{-1}, Offset{-1});
}

}  // namespace raft_units_test

using raft_units_test::ends;
using raft_units_test::log_of;

TEST_CASE("raft log: where each epoch ends, and where a fetcher's log diverges", "[raft]") {
  // Offsets 0-2 in epoch 1, 3-4 in epoch 3, 5 in epoch 4.
  const RaftLog log = log_of({{1, 3}, {3, 2}, {4, 1}});
  CHECK(log.end_offset() == 6);
  CHECK(log.last_epoch() == 4);
  CHECK(ends(log.end_offset_for_epoch(1)) == std::pair(1, Offset{3}));
  CHECK(ends(log.end_offset_for_epoch(2)) == std::pair(1, Offset{3}));  // the largest epoch not above 2
  CHECK(ends(log.end_offset_for_epoch(3)) == std::pair(3, Offset{5}));
  CHECK(ends(log.end_offset_for_epoch(4)) == std::pair(4, Offset{6}));
  CHECK(ends(log.end_offset_for_epoch(0)) == std::pair(0, Offset{0}));
  // A fetch that matches: its last epoch ends at or after its offset here.
  CHECK_FALSE(log.diverging_epoch(0, 0));
  CHECK_FALSE(log.diverging_epoch(3, 1));
  CHECK_FALSE(log.diverging_epoch(6, 4));
  // A fetcher with epoch 2 entries (never here) up to 5: it keeps epoch 1's, to 3.
  CHECK(ends(log.diverging_epoch(5, 2)) == std::pair(1, Offset{3}));
  // A fetcher ahead in epoch 1: truncate to where epoch 1 ends.
  CHECK(ends(log.diverging_epoch(4, 1)) == std::pair(1, Offset{3}));
  CHECK(ends(log.diverging_epoch(7, 4)) == std::pair(4, Offset{6}));
}

TEST_CASE("raft log: a follower truncates to the leader's diverging epoch", "[raft]") {
  // Follower: epoch 1 to 3, then an uncommitted epoch 2 tail to 6.
  RaftLog follower = log_of({{1, 3}, {2, 3}});
  // The leader says: your epoch 2 is not mine; my largest epoch below is 1, ending at 3.
  CHECK(follower.truncate_to_end_offset({1, 3}) == 3);
  CHECK(follower.end_offset() == 3);
  CHECK(follower.last_epoch() == 1);
  // The leader's epoch 1 ends earlier than this log's: truncate to the leader's end.
  RaftLog two_batches = log_of({{1, 2}, {1, 3}});
  CHECK(two_batches.truncate_to_end_offset({1, 2}) == 2);
  CHECK(two_batches.end_offset() == 2);
  // The leader's epoch 2 is not in this log: truncate to where its largest epoch below 2 ends.
  RaftLog skipped = log_of({{1, 2}, {3, 2}});
  CHECK(skipped.truncate_to_end_offset({2, 3}) == 2);
  CHECK(skipped.last_epoch() == 1);
}

TEST_CASE("raft log: a power loss keeps the flushed prefix, a truncation stays", "[raft]") {
  RaftLog log = log_of({{1, 2}, {1, 2}});
  log.flushed(4);
  std::vector<RaftRecordPtr> more{std::make_shared<raft_units_test::Bytes>()};
  log.append_batch(1, more);
  log.append_batch(2, more);
  CHECK(log.flushed_end_offset() == 4);
  log.lose_unflushed();
  CHECK(log.end_offset() == 4);
  CHECK(log.last_epoch() == 1);
  // A truncation below the flushed end lowers it.
  log.truncate_to(2);
  CHECK(log.flushed_end_offset() == 2);
  log.lose_unflushed();
  CHECK(log.end_offset() == 2);
}

TEST_CASE("raft log: a read returns whole batches up to its size", "[raft]") {
  const RaftLog log = log_of({{1, 3}, {1, 3}, {2, 1}});
  CHECK(log.read(0, 1).size() == 3);      // at least one whole batch
  CHECK(log.read(0, 35).size() == 6);     // the second batch passes 35 bytes, whole
  CHECK(log.read(3, 1'000).size() == 4);
  CHECK(log.read(7, 1'000).empty());
}

TEST_CASE("raft leader state: a majority's offset, once an entry of its epoch is in it", "[raft]") {
  // Voters 0 (the leader), 1, 2; the epoch starts at offset 10.
  RaftLeaderState leader(0, 5, 10, {0, 1, 2}, 0, seconds(2));
  CHECK_FALSE(leader.update_local(11));
  CHECK_FALSE(leader.high_watermark());
  CHECK_FALSE(leader.update_replica(1, 10, 0));  // a majority has 10: nothing of epoch 5 yet
  CHECK_FALSE(leader.high_watermark());
  CHECK(leader.update_replica(1, 11, 0));
  CHECK(leader.high_watermark() == 11);
  // An observer's fetch counts for nothing.
  CHECK_FALSE(leader.update_replica(7, 50, 0));
  CHECK(leader.fetch_offset(7) == 50);
  CHECK(leader.update_local(20) == false);        // the leader alone is not a majority
  CHECK(leader.update_replica(2, 15, 0));          // 0 at 20, 2 at 15: a majority at 15
  CHECK(leader.high_watermark() == 15);
  CHECK_FALSE(leader.update_replica(2, 12, 0));   // never back
  CHECK(leader.high_watermark() == 15);
  CHECK(leader.voters_by_descending_fetch_offset() == std::vector<RaftNodeId>{2, 1});
}

TEST_CASE("raft leader state: a leader without fetches from a majority must resign", "[raft]") {
  RaftLeaderState leader(0, 1, 0, {0, 1, 2, 3, 4}, 0, seconds(2));
  CHECK(leader.check_quorum_deadline() == milliseconds(3000));
  leader.update_replica(1, 0, seconds(1));
  CHECK(leader.check_quorum_deadline() == milliseconds(3000));  // one other voter is not enough of 5
  leader.update_replica(2, 0, seconds(2));
  CHECK(leader.check_quorum_deadline() == milliseconds(5000));
  RaftLeaderState alone(0, 1, 0, {0}, 0, seconds(2));
  CHECK(alone.check_quorum_deadline() == kNever);
}

TEST_CASE("raft roles: the transitions of Kafka's QuorumState, no others", "[raft]") {
  using enum RaftRole;
  // QuorumState's class comment and transitionTo* checks, with Voted as its own role.
  const std::map<RaftRole, std::set<RaftRole>> may_follow{
      {Unattached, {Unattached, Voted, Candidate, Leader, Follower, Resigned}},
      {Voted, {Unattached}},
      {Candidate, {Unattached, Voted, Candidate, Follower, Resigned}},
      {Leader, {Candidate}},
      {Follower, {Unattached, Voted, Candidate, Leader, Follower, Resigned}},
      {Resigned, {Leader}},
  };
  for (const auto& [to, from_set] : may_follow) {
    for (const RaftRole from : {Unattached, Voted, Candidate, Leader, Follower, Resigned}) {
      INFO(std::string(to_string(from)) + " -> " + std::string(to_string(to)));
      CHECK(legal(from, to) == from_set.contains(from));
    }
  }
}

TEST_CASE("raft messages: Kafka's API keys, and a metadata fetch told apart from a partition fetch", "[raft]") {
  CHECK(static_cast<int>(VoteRequest{}.api_key()) == 52);
  CHECK(static_cast<int>(BeginQuorumEpochRequest{}.api_key()) == 53);
  CHECK(static_cast<int>(EndQuorumEpochResponse{}.api_key()) == 54);
  CHECK(static_cast<int>(MetadataFetchRequest{}.api_key()) == 1);
  CHECK(to_string(ApiKey::Vote) == "Vote");
  CHECK(to_string(ApiKey::BeginQuorumEpoch) == "BeginQuorumEpoch");
  CHECK(to_string(ApiKey::EndQuorumEpoch) == "EndQuorumEpoch");
  CHECK(VoteResponse{}.is_response());
  CHECK(is_raft_message(MetadataFetchRequest{}));
  CHECK(is_raft_message(MetadataFetchResponse{}));
  CHECK(is_raft_message(VoteRequest{}));
  CHECK_FALSE(is_raft_message(FetchRequest{}));
  CHECK_FALSE(is_raft_message(FetchResponse{}));
  CHECK_FALSE(is_raft_message(ProduceRequest{}));
  MetadataFetchRequest fetch;
  fetch.source = 4;
  CHECK(raft_header(fetch).source == 4);
  // A response's size counts its records and one batch header per batch.
  MetadataFetchResponse response;
  auto record = std::make_shared<raft_units_test::Bytes>();
  response.entries = {{0, 1, record, false}, {1, 1, record, true}};
  CHECK(response.size_bytes() == MetadataFetchResponse{}.size_bytes() + 20 + kRaftBatchHeaderBytes);
}
