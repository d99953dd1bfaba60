// ksim explore's protocol states (app/harness/protocol_coverage.hpp), fed by
// the events the coordinators publish, with a fake broker around each: the
// states random faults rarely reach (a heartbeat fenced by its member epoch,
// a member removed at its rebalance timeout, a classic member that did not
// rejoin, an exhausted producer epoch) move when the coordinator goes
// through them, and only then.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "app/harness/protocol_coverage.hpp"
#include "models/coordinator/group_coordinator.hpp"
#include "models/coordinator/txn_coordinator.hpp"
#include "tests/support/fake_coordinator_host.hpp"

using namespace ksim;
using namespace ksim::models;

namespace {

constexpr const char* kFencedState = "KIP-848: a heartbeat fenced by its member epoch (FENCED_MEMBER_EPOCH)";
constexpr const char* kTimeoutState = "KIP-848: a member removed at its rebalance timeout (did not revoke)";
constexpr const char* kRevokingState = "KIP-848: a member revoking partitions (UNREVOKED_PARTITIONS)";
constexpr const char* kExhaustedState = "KIP-890: an exhausted epoch, a new producer id";
constexpr const char* kEndTxnState = "KIP-890: an epoch bump at EndTxn (transactions v2)";
constexpr const char* kClassicTimeoutState = "classic: a member removed at its rebalance timeout (did not rejoin)";
constexpr const char* kSessionState = "group coordinator: a member removed at its session timeout";

// A broker around a coordinator: a clock, timers, the answers it sends, and
// the events it publishes counted as ksim explore counts them.
class CoverageHost : public ksim::testing::FakeCoordinatorHost<TxnCoordinatorHost> {
 public:
  CoverageHost() {
    published = [this](const ModelEvent& event) { coverage.on_event(event); };
  }
  void txn_append(std::int32_t, std::uint64_t, std::function<void(Error)> done) override {
    auto shared = std::make_shared<std::function<void(Error)>>(std::move(done));
    queue.schedule_after(0, [shared] { (*shared)(Error::None); });
  }
  void write_markers(ProducerId, ProducerEpoch, bool, const std::vector<TopicPartition>& partitions,
                     std::function<void(const std::vector<std::pair<TopicPartition, Error>>&)> done) override {
    std::vector<std::pair<TopicPartition, Error>> results;
    for (const TopicPartition tp : partitions) results.emplace_back(tp, Error::None);
    done(results);
  }
  ProducerId allocate_producer_id() override { return next_producer_id++; }
  TopicPartition offsets_partition_of(const std::string&) const override { return {0, 0}; }

  std::uint64_t state(const char* name) const { return coverage.counts().at(name); }
  template <class Response> const Response& last() const { return dynamic_cast<const Response&>(*sent.back()); }

  ProducerId next_producer_id = 1000;
  ksim::app::ProtocolCoverage coverage;
};

ConsumerGroupHeartbeatResponse coverage_heartbeat(GroupCoordinator& coordinator, CoverageHost& host,
                                                  const std::string& member, std::int32_t epoch,
                                                  const std::optional<std::vector<TopicPartition>>& owned = {}) {
  ConsumerGroupHeartbeatRequest r;
  r.group = "g";
  r.member_id = member;
  r.member_epoch = epoch;
  r.client_id = member;
  r.rebalance_timeout = seconds(30);
  r.topics = {0};
  if (owned) r.owned = *owned;
  coordinator.handle(1, r);
  return host.last<ConsumerGroupHeartbeatResponse>();
}

}  // namespace

TEST_CASE("protocol states: a KIP-848 heartbeat fenced by its member epoch, a member removed at its rebalance timeout",
          "[explore][coverage][kip848]") {
  CoverageHost host;
  GroupCoordinatorConfig config;
  config.offsets_topic_num_partitions = 1;
  config.consumer_session_timeout = seconds(45);
  CoordinatorRecordStore records;
  PartitionLog log;
  GroupCoordinator coordinator(host, config, records, nullptr);
  coordinator.load(0, log);
  host.queue.run_until(0);
  const auto a = coverage_heartbeat(coordinator, host, "a", 0);
  coverage_heartbeat(coordinator, host, "b", 0);
  CHECK(host.state(kRevokingState) == 0);
  CHECK(host.state(kFencedState) == 0);
  // a is asked to give three partitions up: revoking.
  const auto a2 = coverage_heartbeat(coordinator, host, "a", a.member_epoch, *a.assignment);
  CHECK(a2.assignment->size() == 3);
  CHECK(host.state(kRevokingState) == 1);
  // An epoch the coordinator never gave: fenced.
  CHECK(coverage_heartbeat(coordinator, host, "a", a2.member_epoch + 1, *a.assignment).error == Error::FencedMemberEpoch);
  CHECK(host.state(kFencedState) == 1);
  CHECK(host.state(kTimeoutState) == 0);
  // a never revokes: removed at its rebalance timeout (30 s), before b's session ends (45 s).
  host.queue.run_until(seconds(31));
  CHECK(host.state(kTimeoutState) == 1);
  CHECK(host.state(kFencedState) == 1);
}

TEST_CASE("protocol states: a classic member removed at its rebalance timeout, then one at its session timeout",
          "[explore][coverage][consumer]") {
  CoverageHost host;
  GroupCoordinatorConfig config;
  config.offsets_topic_num_partitions = 1;
  config.group_initial_rebalance_delay = 0;
  CoordinatorRecordStore records;
  PartitionLog log;
  ConsumptionHistory history;
  GroupCoordinator coordinator(host, config, records, &history);
  coordinator.load(0, log);
  host.queue.run_until(0);
  std::int64_t correlation = 0;
  const auto join = [&](const std::string& member, const std::string& client) {
    coordinator.handle(1, ksim::testing::classic_join_request(++correlation, member, client));
  };
  const auto heartbeat = [&](const std::string& member, std::int32_t generation) {
    HeartbeatRequest r;
    r.correlation_id = ++correlation;
    r.group = "g";
    r.member = MemberIdentity{generation, member, std::nullopt};
    coordinator.handle(1, r);
    return host.last<HeartbeatResponse>().error;
  };
  join("", "a");  // MEMBER_ID_REQUIRED, with the id to join with
  const std::string a = host.last<JoinGroupResponse>().member_id;
  join(a, "a");
  host.queue.run_until(host.queue.now());
  REQUIRE(host.last<JoinGroupResponse>().generation == 1);
  SyncGroupRequest sync;
  sync.correlation_id = ++correlation;
  sync.group = "g";
  sync.member = MemberIdentity{1, a, std::nullopt};
  sync.assignment = {{a, {{0, 0}}}};
  coordinator.handle(1, sync);
  // b joins: a must rejoin within its rebalance timeout (30 s); it only heartbeats (within its 10 s session).
  join("", "b");
  const std::string b = host.last<JoinGroupResponse>().member_id;
  join(b, "b");
  for (int s = 5; s <= 35; s += 5) {
    host.queue.run_until(seconds(s));
    heartbeat(a, 1);
  }
  CHECK(host.state(kClassicTimeoutState) == 1);
  CHECK(host.state(kSessionState) == 0);
  // b, alone at generation 2, never heartbeats: removed at its session timeout.
  host.queue.run_until(seconds(60));
  CHECK(host.state(kSessionState) == 1);
  REQUIRE(history.member_fencings.size() == 2);
  CHECK(history.member_fencings[0].member_id == a);
  CHECK(history.member_fencings[0].cause == FencingCause::RebalanceTimeout);
  CHECK(history.member_fencings[1].member_id == b);
  CHECK(history.member_fencings[1].cause == FencingCause::SessionTimeout);
}

TEST_CASE("protocol states: transactions v2 bumps the epoch at every EndTxn until it is exhausted",
          "[explore][coverage][transactions]") {
  for (const bool v2 : {true, false}) {
    INFO("transactions v2: " << v2);
    CoverageHost host;
    TxnCoordinatorConfig config;
    config.partitions = 1;
    config.transaction_v2 = v2;
    CoordinatorRecordStore records;
    PartitionLog log;
    TxnCoordinator coordinator(host, config, records);
    coordinator.load(0, log);
    host.queue.run_until(0);
    InitProducerIdRequest init;
    init.transactional_id = "t";
    init.transaction_timeout = seconds(60);
    coordinator.handle(1, init);
    host.queue.run_until(host.queue.now());
    ProducerId producer = host.last<InitProducerIdResponse>().producer_id;
    ProducerEpoch epoch = host.last<InitProducerIdResponse>().producer_epoch;
    REQUIRE(epoch == 0);
    // Aborts of transactions nothing was added to: under v2 each is an epoch bump (TransactionCoordinator.endTransaction).
    const ProducerId first = producer;
    for (int n = 0; n < kMaxProducerEpoch && producer == first; ++n) {
      EndTxnRequest end;
      end.transactional_id = "t";
      end.producer_id = producer;
      end.producer_epoch = epoch;
      end.commit = false;
      end.transaction_v2 = v2;
      coordinator.handle(1, end);
      host.queue.run_until(host.queue.now());
      const auto& answer = host.last<EndTxnResponse>();
      if (!v2) {
        CHECK(answer.error == Error::InvalidTxnState);  // v1: nothing to abort, nothing bumped
        break;
      }
      REQUIRE(answer.error == Error::None);
      producer = answer.producer_id;
      epoch = answer.producer_epoch;
    }
    if (v2) {
      // Short.MaxValue - 1 reached: the next transaction runs under a new producer id from epoch 0.
      CHECK(producer != first);
      CHECK(epoch == 0);
      CHECK(host.state(kEndTxnState) == static_cast<std::uint64_t>(kMaxProducerEpoch - 1));
      CHECK(host.state(kExhaustedState) == 1);
    } else {
      CHECK(host.state(kEndTxnState) == 0);
      CHECK(host.state(kExhaustedState) == 0);
    }
  }
}
