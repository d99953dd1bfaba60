#pragma once
// Kafka releases, and the mechanisms (KIPs, and a few JIRA issues) that
// changed what a cluster does between them: which release brought each,
// which side it lives on, and whether ksim models the cluster both with and
// without it. A scenario names a release (`kafka_version`), which selects the
// defaults and mechanisms of that release; `kips:` switches single ones
// against it. docs/kafka-model.md, "Releases", has the table with sources.
#include <bitset>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ksim::models {

// A feature release, major.minor ("0.10" is 0.10.2, the last of the 0.10 line).
struct KafkaRelease {
  int major = 4;
  int minor = 3;
  auto operator<=>(const KafkaRelease&) const = default;
  std::string name() const;
};
inline constexpr KafkaRelease kLatestRelease{4, 3};

// "4.3", "3.9.1", "2.4", "0.10", "0.10.2.1", "0.11.0": a modelled release
// (a patch level is read and dropped); nullopt for any other text.
std::optional<KafkaRelease> parse_release(std::string_view text);
// Every modelled release, oldest first: 0.10, 0.11, 1.0, 1.1, 2.0 to 2.8, 3.0 to 3.9, 4.0 to 4.3.
const std::vector<KafkaRelease>& modelled_releases();

enum class Mechanism : std::uint8_t {
  StickyAssignor,            // KIP-54
  IdempotentTransactional,   // KIP-98
  LeaderEpochTruncation,     // KIP-101
  UncleanDefaultOff,         // KIP-106
  InitialRebalanceDelay,     // KIP-134
  JbodFailureHandling,       // KIP-112
  AlterReplicaLogDirs,       // KIP-113
  FetchSessions,             // KIP-227
  RepeatedEpochLookups,      // KIP-279
  OffsetsRetentionWeek,      // KIP-186
  OffsetExpiryWhenEmpty,     // KIP-211
  DeliveryTimeout,           // KIP-91
  ConsumerEpochFencing,      // KIP-320
  GroupMaxSize,              // KIP-389
  StaticMembership,          // KIP-345
  CooperativeRebalancing,    // KIP-429
  StickyPartitioner,         // KIP-480
  ProducerEpochBump,         // KIP-360
  GroupMetadataInTxn,        // KIP-447
  LongerDefaultTimeouts,     // KIP-537
  AlterIsr,                  // KIP-497
  ConnectionSetupTimeout,    // KIP-601
  KRaft,                     // KIP-500 (KIP-595, KIP-631)
  ProducerSafeDefaults,      // KIP-679
  LongerSessionTimeout,      // KIP-735
  CooperativeAssignorDefault,// KIP-726
  UniformStickyPartitioner,  // KIP-794
  IneligibleReplicas,        // KIP-841
  TxnVerification,           // KIP-890 part 1
  ExponentialBackoff,        // KIP-580
  LeaderDiscovery,           // KIP-951
  StrictMinIsr,              // KAFKA-15583
  LingerDefault5,            // KIP-1030
  ConsumerGroupProtocol,     // KIP-848
  TransactionsV2,            // KIP-890 part 2
  EligibleLeaderReplicas,    // KIP-966
  ShareGroups,               // KIP-932
  HighWatermarkInFetch,      // KIP-1166
  PreVote,                   // KIP-996
  AssignmentEpochs,          // KIP-1251
  TieredStorage,             // KIP-405
  DirectoryAssignment,       // KIP-858
};
inline constexpr std::size_t kMechanismCount = static_cast<std::size_t>(Mechanism::DirectoryAssignment) + 1;

// Which sides of a mechanism ksim models: the cluster with it, without it, or both.
enum class Modelled : std::uint8_t { Both, WithOnly, WithoutOnly, Neither };

struct MechanismInfo {
  Mechanism mechanism;
  std::string_view key;        // "KIP-101", "KAFKA-15583": what `kips:` calls it
  KafkaRelease since;          // the first release where it is on by default
  std::string_view sides;      // whose release decides it: "brokers", "producers", "consumers", "controller"
  std::string_view title;      // what it changes, in a few words
  Modelled modelled;
  std::string_view instead = {};  // when a side is not modelled: what ksim does there
  // It changes a run without the scenario asking for it (a default, a
  // protocol); false for features a scenario must ask for (share groups),
  // which the reader refuses when they are not modelled.
  bool implicit = true;
};

// Every mechanism, by release.
const std::vector<MechanismInfo>& mechanisms();
const MechanismInfo& info(Mechanism m);
// By key, case and punctuation as Kafka writes it ("KIP-966").
std::optional<Mechanism> mechanism_of(std::string_view key);

// Which mechanisms one side of a cluster has: those of its release, then the
// scenario's switches.
class Mechanisms {
 public:
  Mechanisms() : Mechanisms(kLatestRelease) {}
  explicit Mechanisms(KafkaRelease release);
  bool has(Mechanism m) const { return on_[static_cast<std::size_t>(m)]; }
  void set(Mechanism m, bool on) { on_[static_cast<std::size_t>(m)] = on; }
  KafkaRelease release() const { return release_; }

 private:
  KafkaRelease release_;
  std::bitset<kMechanismCount> on_;
};

}  // namespace ksim::models
