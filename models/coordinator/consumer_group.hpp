#pragma once
// A consumer group of KIP-848's protocol at its coordinator (Kafka's
// modern/consumer/ConsumerGroup.java and ConsumerGroupMember.java), and the
// reconciliation of a member towards its target assignment
// (CurrentAssignmentBuilder.java). Pure state, no timers or messages: the
// GroupCoordinator (group_coordinator_consumer.cpp) drives it.
//
// The group epoch counts changes of the group (a member joins or leaves, a
// subscription or a topic's partition count changes). When it is ahead of
// the target assignment epoch, the assignor computes a new target
// (TargetAssignmentBuilder) and the target epoch catches up. Each member then
// moves towards its target on its own heartbeats: it first revokes what it
// must give up (UNREVOKED_PARTITIONS, keeping its epoch), then takes the
// target epoch and the partitions nobody else holds any more; partitions
// still held by another member wait (UNRELEASED_PARTITIONS). No partition
// is ever assigned to two members at once.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "models/coordinator/consumer_group_assignor.hpp"
#include "models/protocol/group_types.hpp"
#include "sim/events/time.hpp"

namespace ksim::models {

// ConsumerGroupMember's MemberState.
enum class MemberAssignmentState { Stable, UnrevokedPartitions, UnreleasedPartitions };
std::string_view to_string(MemberAssignmentState state);

// ConsumerGroup.ConsumerGroupState, derived from the members (Dead is not modelled).
enum class ConsumerGroupState { Empty, Assigning, Reconciling, Stable };
std::string_view to_string(ConsumerGroupState state);

// A member of a consumer group that speaks the classic protocol (JoinGroup,
// SyncGroup, Heartbeat): ConsumerGroupMemberMetadataValue.ClassicMemberMetadata.
struct ClassicMemberMetadata {
  SimTime session_timeout = 0;          // its session.timeout.ms: its own session at the coordinator
  std::vector<std::string> protocols;   // its partition.assignment.strategy, in its order
  bool operator==(const ClassicMemberMetadata&) const = default;
};

struct ConsumerGroupMember {
  std::string member_id;
  std::string client_id;
  std::optional<std::string> instance_id;
  std::int32_t member_epoch = 0;
  std::int32_t previous_member_epoch = 0;
  MemberAssignmentState state = MemberAssignmentState::Stable;
  std::vector<std::int32_t> topics;   // subscription
  std::string server_assignor;        // group.remote.assignor ("": the group's default)
  SimTime rebalance_timeout = 0;      // max.poll.interval.ms
  std::set<TopicPartition> assigned;            // its current assignment
  std::set<TopicPartition> pending_revocation;  // to give up before it may go on
  // KIP-1251: the member epoch at which it was given each partition it holds
  // (assigned or pending revocation), kept while it holds it.
  std::map<TopicPartition, std::int32_t> assignment_epochs;
  std::optional<ClassicMemberMetadata> classic;  // set: a classic member (KIP-848's online migration)
  bool operator==(const ConsumerGroupMember&) const = default;
};

struct ConsumerGroupImage;  // consumer_group_image.hpp

class ConsumerGroup {
 public:
  explicit ConsumerGroup(std::string id) : id_(std::move(id)) {}
  // ConsumerGroup.fromClassicGroup (the online upgrade): the classic group's
  // members at its generation, STABLE, each with its last assignment as its
  // assignment and its target; group and target epochs are the generation.
  static ConsumerGroup from_classic(std::string id, std::int32_t generation, std::vector<ConsumerGroupMember> members);

  // The same state: nothing to write to __consumer_offsets (group_coordinator_persist.cpp).
  bool operator==(const ConsumerGroup&) const = default;
  // The group as written to __consumer_offsets, sharing with `previous` (the
  // group's last image, or null) the members and target that did not change;
  // whether an image holds this group's state; the group an image holds.
  ConsumerGroupImage image(const ConsumerGroupImage* previous) const;
  bool matches(const ConsumerGroupImage& image) const;
  static ConsumerGroup from_image(const ConsumerGroupImage& image);

  const std::string& id() const { return id_; }
  std::int32_t group_epoch() const { return group_epoch_; }
  std::int32_t target_epoch() const { return target_epoch_; }
  ConsumerGroupState state() const;
  const std::map<std::string, ConsumerGroupMember>& members() const { return members_; }
  const ConsumerGroupMember* member(const std::string& member_id) const;
  // The member id holding a static member's group.instance.id, or nullopt.
  std::optional<std::string> static_member(const std::string& instance_id) const;
  const std::vector<TopicPartition>& target_of(const std::string& member_id) const;
  // Who holds a partition now (assigned or pending revocation), "" when nobody.
  std::string holder(TopicPartition tp) const;

  // A new member (epoch 0). Bumps the group epoch.
  void add_member(ConsumerGroupMember member);
  // KIP-345 with KIP-848: a static member back with a new member id takes the
  // old one's place, its assignment and target; no epoch bump.
  void replace_static_member(const std::string& old_id, const std::string& new_id);
  // A heartbeat's subscription: bumps the group epoch when it changed.
  bool update_subscription(const std::string& member_id, const std::vector<std::int32_t>& topics,
                           const std::string& server_assignor);
  // A static member left for now (epoch -2): it keeps its place and partitions.
  void static_leave(const std::string& member_id);
  // Left, expired or fenced: its partitions are free. Bumps the group epoch.
  void remove_member(const std::string& member_id);
  // The topics' partition counts as the coordinator's metadata says; a change bumps the group epoch.
  bool update_partition_counts(const std::map<std::int32_t, std::int32_t>& counts);
  // ConsumerGroup.preferredServerAssignor: the assignor most members ask for ("" when none asks).
  std::string preferred_assignor() const;
  // TargetAssignmentBuilder: a new target when the group epoch is ahead of it. True when computed.
  bool maybe_compute_target(const ServerAssignor& assignor);
  // CurrentAssignmentBuilder.build: moves the member towards its target given
  // the partitions it reports owning. True when the member changed.
  bool reconcile(const std::string& member_id, const std::vector<TopicPartition>& owned);
  // A classic member's JoinGroup: its session, protocols and rebalance
  // timeout (a consumer-protocol heartbeat clears `classic` with nullopt).
  void set_classic(const std::string& member_id, std::optional<ClassicMemberMetadata> classic, SimTime rebalance_timeout);
  std::size_t classic_members() const;
  // allMembersUseClassicProtocolExcept: `member_id` is the only member on the consumer protocol.
  bool all_classic_except(const std::string& member_id) const;
  // supportsClassicProtocols: one of `protocols` every classic member supports (any, without classic members).
  bool supports_classic_protocols(const std::vector<std::string>& protocols) const;
  // waitingOnUnreleasedPartition: a partition of its target is still held by another member.
  bool waiting_on_unreleased(const std::string& member_id) const;
  // KIP-848's epoch check (throwIfMemberEpochIsInvalid): a heartbeat from an
  // older epoch is accepted only as the previous epoch with no partition the
  // member no longer has.
  bool epoch_valid(const std::string& member_id, std::int32_t epoch, const std::vector<TopicPartition>& owned) const;

 private:
  void set_assignment(ConsumerGroupMember& m, std::int32_t epoch, MemberAssignmentState state,
                      std::set<TopicPartition> assigned, std::set<TopicPartition> pending_revocation);
  void release(const ConsumerGroupMember& m);
  void hold(const ConsumerGroupMember& m);

  std::string id_;
  std::int32_t group_epoch_ = 0;
  std::int32_t target_epoch_ = 0;
  std::map<std::string, ConsumerGroupMember> members_;
  std::map<std::int32_t, std::int32_t> partition_counts_;   // of the subscribed topics
  Assignment target_;                                       // member id -> its target partitions
  std::map<TopicPartition, std::string> holders_;           // ConsumerGroup's partition epochs: who holds each
};

}  // namespace ksim::models
