// What a group coordinator answers when its write to __consumer_offsets
// fails, before and after the coordinator runtime (4.0). The classic
// coordinator (GroupMetadataManager.storeGroup and storeOffsets, Scala) answered
// a rebalance whose assignment write timed out REBALANCE_IN_PROGRESS and passed
// an offset commit's REQUEST_TIMED_OUT through; the runtime answers both
// COORDINATOR_NOT_AVAILABLE (appendGroupMetadataErrorToResponseError,
// CoordinatorOperationExceptionHelper.handleOperationException).
#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "models/coordinator/group_coordinator.hpp"
#include "tests/support/coordinator_log.hpp"
#include "tests/support/fake_coordinator_host.hpp"

using namespace ksim;
using namespace ksim::models;

namespace {

// Appends fail with `append_error` once `failing` is set.
class FailingAppendHost : public ksim::testing::FakeCoordinatorHost<CoordinatorHost> {
 public:
  void coordinator_append(std::int32_t, std::uint64_t, std::function<void(Error)> done) override {
    done(failing ? append_error : Error::None);
  }
  bool failing = false;
  Error append_error = Error::RequestTimedOut;
};

struct WriteErrorFixture {
  explicit WriteErrorFixture(bool runtime) : coordinator(host, config(runtime), records, nullptr) {
    coordinator.load(0, log);
    host.queue.run_until(0);
  }
  static GroupCoordinatorConfig config(bool runtime) {
    GroupCoordinatorConfig c;
    c.offsets_topic_num_partitions = 1;
    c.group_initial_rebalance_delay = 0;
    c.coordinator_runtime = runtime;
    return c;
  }
  template <class Response>
  const Response& last() {
    const auto* r = ksim::testing::last_sent<Response>(host);
    REQUIRE(r != nullptr);
    return *r;
  }
  JoinGroupResponse join(const std::string& member) {
    coordinator.handle(1, ksim::testing::classic_join_request(++correlation, member, "a"));
    host.queue.run_until(host.queue.now());  // the initial delay (0), then the join completes
    return last<JoinGroupResponse>();
  }
  // A one-member group's leader, joined at generation 1, syncs its assignment.
  Error sync_assignment() {
    const std::string id = join("").member_id;  // KIP-394: MEMBER_ID_REQUIRED with the id to use
    const JoinGroupResponse joined = join(id);
    REQUIRE(joined.error == Error::None);
    REQUIRE(joined.leader == id);
    SyncGroupRequest r;
    r.correlation_id = ++correlation;
    r.group = "g";
    r.member = MemberIdentity{joined.generation, id, std::nullopt};
    r.assignment = Assignment{{id, {{0, 0}}}};
    coordinator.handle(1, r);
    return last<SyncGroupResponse>().error;
  }
  // A commit outside group membership (generation -1, no member id).
  Error commit() {
    OffsetCommitRequest r;
    r.correlation_id = ++correlation;
    r.group = "g";
    r.member = MemberIdentity{-1, "", std::nullopt};
    r.offsets = {{{0, 0}, 10, 0}};
    coordinator.handle(1, r);
    return last<OffsetCommitResponse>().first_error();
  }

  FailingAppendHost host;
  CoordinatorRecordStore records;
  PartitionLog log;
  GroupCoordinator coordinator;
  std::int64_t correlation = 0;
};

}  // namespace

TEST_CASE("group write errors: a timed-out offset commit is REQUEST_TIMED_OUT before 4.0 and COORDINATOR_NOT_AVAILABLE from 4.0",
          "[coordinator][group-write-errors]") {
  WriteErrorFixture classic(false), runtime(true);
  CHECK(classic.commit() == Error::None);
  classic.host.failing = runtime.host.failing = true;
  CHECK(classic.commit() == Error::RequestTimedOut);
  CHECK(runtime.commit() == Error::CoordinatorNotAvailable);
}

TEST_CASE("group write errors: a rebalance whose assignment write times out is REBALANCE_IN_PROGRESS before 4.0",
          "[coordinator][group-write-errors]") {
  WriteErrorFixture classic(false), runtime(true);
  classic.host.failing = runtime.host.failing = true;
  CHECK(classic.sync_assignment() == Error::RebalanceInProgress);
  CHECK(runtime.sync_assignment() == Error::CoordinatorNotAvailable);
}

TEST_CASE("group write errors: other failed writes map alike before and after the runtime",
          "[coordinator][group-write-errors]") {
  for (const bool runtime : {false, true}) {
    for (const GroupWrite write : {GroupWrite::Metadata, GroupWrite::Offsets}) {
      CHECK(group_write_error(Error::None, write, runtime) == Error::None);
      CHECK(group_write_error(Error::NotEnoughReplicas, write, runtime) == Error::CoordinatorNotAvailable);
      CHECK(group_write_error(Error::NotEnoughReplicasAfterAppend, write, runtime) == Error::CoordinatorNotAvailable);
      CHECK(group_write_error(Error::NotLeaderOrFollower, write, runtime) == Error::NotCoordinator);
      CHECK(group_write_error(Error::KafkaStorageError, write, runtime) == Error::NotCoordinator);
    }
  }
  CHECK(group_write_error(Error::RequestTimedOut, GroupWrite::Offsets, false) == Error::RequestTimedOut);
  CHECK(group_write_error(Error::RequestTimedOut, GroupWrite::Metadata, false) == Error::RebalanceInProgress);
  CHECK(group_write_error(Error::RequestTimedOut, GroupWrite::Offsets, true) == Error::CoordinatorNotAvailable);
}
