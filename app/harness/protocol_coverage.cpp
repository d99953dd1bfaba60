#include "app/harness/protocol_coverage.hpp"

#include <type_traits>
#include <variant>

namespace ksim::app {

namespace {
constexpr const char* kRevoking = "KIP-848: a member revoking partitions (UNREVOKED_PARTITIONS)";
constexpr const char* kUnreleased = "KIP-848: a member waiting for partitions another still holds (UNRELEASED_PARTITIONS)";
constexpr const char* kAcquiring = "KIP-848: a member acquiring partitions";
constexpr const char* kEpochFenced = "KIP-848: a heartbeat fenced by its member epoch (FENCED_MEMBER_EPOCH)";
constexpr const char* kRebalanceTimeout = "KIP-848: a member removed at its rebalance timeout (did not revoke)";
constexpr const char* kClassicRebalanceTimeout = "classic: a member removed at its rebalance timeout (did not rejoin)";
constexpr const char* kSessionTimeout = "group coordinator: a member removed at its session timeout";
constexpr const char* kGroupLoaded = "group coordinator: a group loaded from __consumer_offsets (a coordinator failover)";
constexpr const char* kLockExpired = "KIP-932: an acquisition lock expired";
constexpr const char* kRedelivered = "KIP-932: a record redelivered";
constexpr const char* kDeliveryLimit = "KIP-932: a record archived at the delivery count limit";
constexpr const char* kEndTxnBump = "KIP-890: an epoch bump at EndTxn (transactions v2)";
constexpr const char* kExhausted = "KIP-890: an exhausted epoch, a new producer id";
constexpr const char* kFenceBump = "transactions: an epoch bump fencing a producer";
}  // namespace

const std::vector<std::string>& protocol_state_names() {
  static const std::vector<std::string> names{
      kRevoking,       kUnreleased,  kAcquiring,   kEpochFenced,   kRebalanceTimeout, kClassicRebalanceTimeout,
      kSessionTimeout, kGroupLoaded, kLockExpired, kRedelivered,   kDeliveryLimit,    kEndTxnBump,
      kExhausted,      kFenceBump};
  return names;
}

ProtocolCoverage::ProtocolCoverage() {
  for (const auto& name : protocol_state_names()) counts_[name] = 0;
}

void ProtocolCoverage::on_event(const models::ModelEvent& event) {
  std::visit(
      [&](const auto& e) {
        using E = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<E, models::MemberReconciled>) {
          if (e.state == "UNREVOKED_PARTITIONS") ++counts_[kRevoking];
          if (e.state == "UNRELEASED_PARTITIONS") ++counts_[kUnreleased];
          if (e.acquired > 0) ++counts_[kAcquiring];
        } else if constexpr (std::is_same_v<E, models::MemberEpochFenced>) {
          ++counts_[kEpochFenced];
        } else if constexpr (std::is_same_v<E, models::MemberRemoved>) {
          // The coordinators' reasons: group_coordinator_consumer.cpp's timers, group_coordinator.cpp's.
          if (e.reason == "revocation timeout") ++counts_[kRebalanceTimeout];
          // A classic member: of a classic group, or of a consumer group (KIP-848's migration).
          if (e.reason == "not rejoined" || e.reason == "JoinGroup timeout" || e.reason == "SyncGroup timeout") {
            ++counts_[kClassicRebalanceTimeout];
          }
          if (e.reason == "session timeout") ++counts_[kSessionTimeout];
        } else if constexpr (std::is_same_v<E, models::GroupLoaded>) {
          ++counts_[kGroupLoaded];
        } else if constexpr (std::is_same_v<E, models::ShareRecordReleased>) {
          if (e.lock_expired) ++counts_[kLockExpired];
          if (e.archived) ++counts_[kDeliveryLimit];
        } else if constexpr (std::is_same_v<E, models::ShareRecordsAcquired>) {
          counts_[kRedelivered] += e.redelivered;
        } else if constexpr (std::is_same_v<E, models::TxnEpochBumped>) {
          switch (e.why) {
            case models::EpochBump::EndTxn: ++counts_[kEndTxnBump]; break;
            case models::EpochBump::Exhausted: ++counts_[kExhausted]; break;
            case models::EpochBump::Fence: ++counts_[kFenceBump]; break;
          }
        }
      },
      event);
}

}  // namespace ksim::app
