#include "models/protocol/kafka_release.hpp"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <charconv>

namespace ksim::models {

std::string KafkaRelease::name() const { return std::to_string(major) + "." + std::to_string(minor); }

const std::vector<KafkaRelease>& modelled_releases() {
  static const std::vector<KafkaRelease> releases = [] {
    std::vector<KafkaRelease> r{{0, 10}, {0, 11}, {1, 0}, {1, 1}};
    for (int minor = 0; minor <= 8; ++minor) r.push_back({2, minor});
    for (int minor = 0; minor <= 9; ++minor) r.push_back({3, minor});
    for (int minor = 0; minor <= kLatestRelease.minor; ++minor) r.push_back({4, minor});
    return r;
  }();
  return releases;
}

// Numbers separated by dots; the 0.x line names its feature release with
// three ("0.10.2"), where "0.10" and "0.10.2" are taken as 0.10 (its last
// feature release), and a fourth number is a patch.
std::optional<KafkaRelease> parse_release(std::string_view text) {
  std::vector<int> parts;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  while (p < end) {
    int n = 0;
    const auto [next, error] = std::from_chars(p, end, n);
    if (error != std::errc{} || next == p || n < 0) return std::nullopt;
    parts.push_back(n);
    p = next;
    if (p == end) break;
    if (*p != '.' || ++p == end) return std::nullopt;
  }
  if (parts.size() < 2 || parts.size() > 4 || (parts[0] != 0 && parts.size() > 3)) return std::nullopt;
  const KafkaRelease release{parts[0], parts[1]};
  const auto& known = modelled_releases();
  if (std::find(known.begin(), known.end(), release) == known.end()) return std::nullopt;
  return release;
}

// Each row cites where its release and behaviour come from (docs/kafka-model.md, "Releases").
const std::vector<MechanismInfo>& mechanisms() {
  using M = Mechanism;
  using D = Modelled;
  static const std::vector<MechanismInfo> table{
      {M::StickyAssignor, "KIP-54", {0, 11}, "consumers", "the sticky assignor", D::Both, {}, false},
      {M::IdempotentTransactional, "KIP-98", {0, 11}, "producers, brokers",
       "idempotent and transactional producers", D::Both, {}, false},
      {M::LeaderEpochTruncation, "KIP-101", {0, 11}, "brokers",
       "followers truncate where the leader's epoch ended, not to their high watermark", D::Both},
      {M::UncleanDefaultOff, "KIP-106", {0, 11}, "brokers", "unclean.leader.election.enable defaults to false", D::Both},
      {M::InitialRebalanceDelay, "KIP-134", {0, 11}, "brokers",
       "group.initial.rebalance.delay.ms (3 s) holds a new group's first rebalance", D::Both},
      {M::JbodFailureHandling, "KIP-112", {1, 0}, "brokers",
       "a failed log dir takes its replicas offline; before, the broker stops", D::Both},
      {M::AlterReplicaLogDirs, "KIP-113", {1, 1}, "brokers", "moving a replica between log dirs online", D::Both, {},
       false},
      {M::FetchSessions, "KIP-227", {1, 1}, "brokers", "incremental fetch sessions", D::Both},
      {M::RepeatedEpochLookups, "KIP-279", {2, 0}, "brokers",
       "a follower truncates to its own end of the epoch the leader answered for, so it cannot keep an epoch the "
       "leader never had",
       D::Both},
      {M::OffsetsRetentionWeek, "KIP-186", {2, 0}, "brokers",
       "offsets.retention.minutes defaults to 7 days (1 day before)", D::Both},
      {M::OffsetExpiryWhenEmpty, "KIP-211", {2, 1}, "brokers",
       "a classic group's committed offsets expire once it has been Empty for offsets.retention.minutes; before, "
       "each expired that long after its commit, even while the group consumed",
       D::Both},
      {M::DeliveryTimeout, "KIP-91", {2, 1}, "producers",
       "delivery.timeout.ms bounds a record's life and retries defaults to MAX_INT; before, retries=0 and a batch "
       "expires after request.timeout.ms in the accumulator",
       D::Both},
      {M::ConsumerEpochFencing, "KIP-320", {2, 1}, "consumers",
       "consumers fence fetches by leader epoch and validate their position after a leader change; before, a "
       "truncated log answers OFFSET_OUT_OF_RANGE and auto.offset.reset applies",
       D::Both},
      {M::GroupMaxSize, "KIP-389", {2, 2}, "brokers",
       "group.max.size bounds a classic group's members: a join past it gets GROUP_MAX_SIZE_REACHED (fatal for "
       "the consumer)",
       D::Both, {}, false},
      {M::StaticMembership, "KIP-345", {2, 3}, "consumers", "static membership (group.instance.id)", D::Both, {}, false},
      {M::CooperativeRebalancing, "KIP-429", {2, 4}, "consumers",
       "cooperative incremental rebalancing (cooperative-sticky)", D::Both, {}, false},
      {M::StickyPartitioner, "KIP-480", {2, 4}, "producers",
       "keyless records stick to a partition until it opens a new batch; before, round robin per record", D::Both},
      {M::ProducerEpochBump, "KIP-360", {2, 5}, "producers, brokers",
       "an idempotent producer bumps its epoch past a sequence gap; a leader takes any sequence from a producer it "
       "does not know",
       D::Both},
      {M::GroupMetadataInTxn, "KIP-447", {2, 5}, "producers",
       "transactional offsets carry the group's metadata: one transactional producer per application instance",
       D::Both, {}, false},
      {M::LongerDefaultTimeouts, "KIP-537", {2, 5}, "brokers",
       "replica.lag.time.max.ms defaults to 30 s (10 s before), zookeeper.session.timeout.ms to 18 s (6 s)", D::Both},
      {M::AlterIsr, "KIP-497", {2, 7}, "brokers, controller",
       "leaders ask the controller to change an ISR; before, they wrote it to ZooKeeper", D::Both},
      {M::ConnectionSetupTimeout, "KIP-601", {2, 7}, "producers, consumers, brokers",
       "a connect whose SYN gets no answer (a machine that is off) gives up after "
       "socket.connection.setup.timeout.ms (10 s); before, after the kernel's SYN retries (127 s)",
       D::Both},
      {M::KRaft, "KIP-500", {3, 3}, "controller",
       "the KRaft controller (production ready in 3.3, the only one from 4.0); before, ZooKeeper's", D::Both},
      {M::ProducerSafeDefaults, "KIP-679", {3, 0}, "producers", "acks=all and enable.idempotence=true by default",
       D::Both},
      {M::LongerSessionTimeout, "KIP-735", {3, 0}, "consumers", "session.timeout.ms defaults to 45 s (10 s before)",
       D::Both},
      {M::CooperativeAssignorDefault, "KIP-726", {3, 0}, "consumers",
       "partition.assignment.strategy defaults to [range, cooperative-sticky] (before, [range])", D::Both},
      {M::UniformStickyPartitioner, "KIP-794", {3, 3}, "producers",
       "the built-in partitioner: keyless records stick to a partition until batch.size went to it", D::Both},
      {M::IneligibleReplicas, "KIP-841", {3, 3}, "controller",
       "fenced and shutting-down brokers are not proposed into an ISR", D::WithOnly,
       "shutting-down brokers are kept out of ISRs as 3.3 does", false},
      {M::TxnVerification, "KIP-890", {3, 6}, "brokers",
       "a leader verifies a transactional write with the coordinator (KIP-890 part 1)", D::Both},
      {M::ExponentialBackoff, "KIP-580", {3, 7}, "producers, consumers",
       "retries back off exponentially up to retry.backoff.max.ms", D::Both},
      {M::TieredStorage, "KIP-405", {3, 6}, "brokers",
       "tiered storage: topics with remote.storage.enable copy rolled segments to a remote store and keep "
       "local.retention.* locally (early access in 3.6, production ready in 3.9)",
       D::Both, {}, false},
      {M::LeaderDiscovery, "KIP-951", {3, 7}, "producers, consumers, brokers",
       "a NOT_LEADER_OR_FOLLOWER answer names the new leader, which clients take at once", D::Both},
      {M::StrictMinIsr, "KAFKA-15583", {3, 7}, "brokers",
       "min.insync.replicas is capped at the replica count, and the high watermark holds while the ISR is below it",
       D::Both},
      {M::DirectoryAssignment, "KIP-858", {3, 7}, "brokers, controller",
       "KRaft JBOD: the controller records each replica's log dir (AssignReplicasToDirs) and a broker reports a "
       "failed dir in its heartbeat, so leadership moves off it; a failed metadata log dir halts the broker (before, "
       "a KRaft controller never learns of a failed dir)",
       D::Both},
      {M::LingerDefault5, "KIP-1030", {4, 0}, "producers", "linger.ms defaults to 5 (0 before)", D::Both},
      {M::ConsumerGroupProtocol, "KIP-848", {4, 0}, "consumers, brokers",
       "the consumer group protocol (group.protocol=consumer; classic stays the default)", D::Both, {}, false},
      {M::TransactionsV2, "KIP-890-part2", {4, 0}, "producers, brokers",
       "transactions v2: an epoch bump per transaction, partitions added implicitly (transaction.version=2)", D::Both},
      {M::PreVote, "KIP-996", {4, 0}, "controller",
       "KRaft pre-vote: a controller whose election or fetch timeout expires asks for pre-votes before it raises "
       "its epoch, so one cut off from the quorum no longer forces an election when it returns",
       D::Both},
      {M::EligibleLeaderReplicas, "KIP-966", {4, 1}, "controller",
       "eligible leader replicas (on for new clusters from 4.1, eligible.leader.replicas.version=1)", D::Both},
      {M::ShareGroups, "KIP-932", {4, 1}, "consumers, brokers",
       "share groups (preview in 4.1, production ready in 4.2): consumers entries with share_group", D::Both, {}, false},
      {M::HighWatermarkInFetch, "KIP-1166", {4, 1}, "controller",
       "a KRaft fetch carries the fetcher's high watermark: the leader answers a held fetch when its own passes it "
       "(before, only new records or the 500 ms wait did)",
       D::Both},
      {M::AssignmentEpochs, "KIP-1251", {4, 3}, "brokers",
       "a consumer-protocol member's offset commit with an older member epoch is accepted for the partitions "
       "it was assigned at or before that epoch (before, only its current epoch)",
       D::Both},
  };
  return table;
}

const MechanismInfo& info(Mechanism m) {
  const auto& table = mechanisms();
  const auto it = std::find_if(table.begin(), table.end(), [&](const MechanismInfo& i) { return i.mechanism == m; });
  assert(it != table.end() && "every mechanism has a row");
  return *it;
}

std::optional<Mechanism> mechanism_of(std::string_view key) {
  const auto same = [](std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return std::toupper(static_cast<unsigned char>(x)) == std::toupper(static_cast<unsigned char>(y));
           });
  };
  for (const MechanismInfo& i : mechanisms()) {
    if (same(i.key, key)) return i.mechanism;
  }
  return std::nullopt;
}

Mechanisms::Mechanisms(KafkaRelease release) : release_(release) {
  for (const MechanismInfo& i : mechanisms()) on_[static_cast<std::size_t>(i.mechanism)] = i.since <= release;
}

}  // namespace ksim::models
