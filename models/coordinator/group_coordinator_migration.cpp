// KIP-848's online migration of a consumer group between the classic and the
// consumer protocol, as Kafka 4.0's GroupMetadataManager does it (trunk
// 1eb7644):
//
// - Upgrade (convertToConsumerGroup): a ConsumerGroupHeartbeat joining a
//   non-empty classic group turns it into a consumer group when
//   group.consumer.migration.policy allows upgrades and the group fits
//   group.consumer.max.size (validateOnlineUpgrade; ksim's classic groups
//   always use the "consumer" embedded protocol). Its members stay, STABLE at
//   the classic generation, with their last assignment as assignment and
//   target; group and target epochs are the generation. Joins and syncs in
//   flight get REBALANCE_IN_PROGRESS. Otherwise the member gets
//   GROUP_ID_NOT_FOUND, which its client treats as fatal.
// - Classic members of a consumer group (classicGroup*ToConsumerGroup):
//   their JoinGroup runs the same steps as a heartbeat (the subscription, a
//   new target from the server-side assignor, the member's reconciliation
//   with the partitions it owns) and answers with its member epoch as the
//   generation and no leader; SyncGroup hands over its assigned partitions;
//   Heartbeat answers REBALANCE_IN_PROGRESS while the group epoch is ahead
//   of the member's, while it must revoke, or once the partitions it waits
//   for are free. A classic member revokes by rejoining without them. Each
//   has its own session.timeout.ms, a JoinGroup timeout (its rebalance
//   timeout, once told to rejoin) and a SyncGroup timeout.
// - Downgrade (convertToClassicGroup): when the last member on the consumer
//   protocol leaves or is fenced and classic members remain, within
//   group.max.size and the policy allowing downgrades
//   (validateOnlineDowngradeWithFencedMember), the group becomes a classic
//   group at its group epoch as generation, each member with its target
//   assignment, and a rebalance starts. When a classic static member
//   replaces it (validateOnlineDowngradeWithReplacedMemberId), the group
//   converts at that JoinGroup with the new member in the old one's place,
//   and no rebalance.
//
// Records: a conversion writes the old group's tombstones with the new
// group's records, in one write. An upgrade: the consumer group's records
// and the classic group's GroupMetadata tombstone (with the consumer group's
// next write, group_coordinator_persist.cpp). A downgrade: the classic
// group's GroupMetadata with its members and their assignments, and the
// tombstones of the consumer group's keys and of each member's (ksim's
// CoordinatorRecord: classic_tombstone, consumer_group_tombstone). The
// cleaner then removes the old group's records, and the tombstones after
// delete.retention.ms.
#include <algorithm>

#include "models/coordinator/group_coordinator.hpp"

namespace ksim::models {

// A classic request goes to the consumer group when there is one with members
// (classicGroupJoin: an empty consumer group is replaced by a classic group).
bool GroupCoordinator::routes_to_consumer_group(const std::string& group) const {
  const auto it = consumer_groups_.find(group);
  return it != consumer_groups_.end() && !it->second.group.members().empty();
}

bool GroupCoordinator::validate_online_upgrade(const Group& g) const {
  return config_.upgrade_enabled() && std::ssize(g.members) <= config_.consumer_max_size;
}

// completeAllJoinFutures / completeAllSyncFutures(REBALANCE_IN_PROGRESS).
void GroupCoordinator::fail_classic_waiters(Group& g) {
  for (auto& [id, m] : g.members) {
    if (m.join) reply_join_error(m.join->connection, m.join->correlation_id, Error::RebalanceInProgress, id);
    if (m.sync) reply_sync(*m.sync, Error::RebalanceInProgress);
    m.join.reset();
    m.sync.reset();
  }
}

void GroupCoordinator::convert_to_consumer_group(Group& g, const std::string& trigger) {
  fail_classic_waiters(g);
  for (auto& [id, m] : g.members) host_.coordinator_cancel(m.heartbeat_timer);
  host_.coordinator_cancel(g.join_timer);
  std::vector<ConsumerGroupMember> members;
  for (const auto& [id, m] : g.members) {
    ConsumerGroupMember member;
    member.member_id = id;
    member.client_id = m.record.client_id;
    member.instance_id = m.record.instance_id;
    member.topics = m.record.subscription.topics;
    std::sort(member.topics.begin(), member.topics.end());
    member.rebalance_timeout = m.record.rebalance_timeout;
    member.assigned = std::set<TopicPartition>(m.record.assignment.begin(), m.record.assignment.end());
    member.classic = ClassicMemberMetadata{m.record.session_timeout, m.record.protocols};
    members.push_back(std::move(member));
  }
  const std::size_t count = members.size();
  if (const auto old = consumer_groups_.find(g.id); old != consumer_groups_.end()) {
    for (auto* timers : {&old->second.session_timers, &old->second.revocation_timers, &old->second.join_timers,
                         &old->second.sync_timers}) {
      for (const auto& [id, timer] : *timers) host_.coordinator_cancel(timer);
    }
    consumer_groups_.erase(old);  // an empty consumer group left behind
  }
  ConsumerGroupEntry& entry = consumer_group(g.id);
  entry.group = ConsumerGroup::from_classic(g.id, g.generation, std::move(members));
  entry.stable_owners = g.owners;
  // The classic group is gone (its tombstone goes with the consumer group's
  // first write); ksim keeps its entry, Empty, for the group's offsets.
  clear_classic_membership(g);
  entry.classic_tombstone_pending = true;
  host_.coordinator_publish(GroupConverted{g.id, "consumer", trigger, static_cast<std::int64_t>(count)});
  for (const auto& [id, m] : entry.group.members()) consumer_schedule_session(entry, id);
}

// Not a transition: the group is replaced, as loading replaces one.
void GroupCoordinator::clear_classic_membership(Group& g) {
  g.members.clear();
  g.static_members.clear();
  g.pending_members.clear();
  g.owners.clear();
  g.leader.clear();
  g.protocol.clear();
  g.initial_delay = false;
  g.state = GroupState::Empty;
  g.state_since = host_.coordinator_now();
}

bool GroupCoordinator::validate_online_downgrade(const ConsumerGroupEntry& entry, const std::string& leaving_member) const {
  const ConsumerGroup& g = entry.group;
  return g.all_classic_except(leaving_member) && g.members().size() > 1 && config_.downgrade_enabled() &&
         std::ssize(g.members()) - 1 <= config_.classic_max_size;
}

// validateOnlineDowngradeWithReplacedMemberId: a classic static member took the
// place of the last member on the consumer protocol (ksim replaces it in place
// first, so every member is classic now), the policy allows downgrades and the
// group fits group.max.size. Unlike a leave, a group of one converts too.
bool GroupCoordinator::validate_online_downgrade_with_replacement(const ConsumerGroupEntry& entry) const {
  const ConsumerGroup& g = entry.group;
  return g.classic_members() == g.members().size() && config_.downgrade_enabled() &&
         std::ssize(g.members()) <= config_.classic_max_size;
}

void GroupCoordinator::convert_to_classic_group(ConsumerGroupEntry& entry, const std::string& leaving_member,
                                                const std::string& trigger, bool rebalance) {
  const ConsumerGroup& cg = entry.group;
  Group& g = find_or_create(cg.id());
  host_.coordinator_cancel(g.join_timer);
  g.members.clear();
  g.static_members.clear();
  g.pending_members.clear();
  g.generation = cg.group_epoch();
  g.leader.clear();  // none until a member rejoins (maybeElectNewJoinedLeader)
  Assignment assignment;
  for (const auto& [id, m] : cg.members()) {
    if (id == leaving_member) continue;
    Member member;
    member.record.member_id = id;
    member.record.instance_id = m.instance_id;
    member.record.client_id = m.client_id;
    member.record.session_timeout = m.classic->session_timeout;
    member.record.rebalance_timeout = m.rebalance_timeout;
    member.record.protocols = m.classic->protocols;
    member.record.subscription = MemberSubscription{id, m.instance_id, m.topics, {}, m.member_epoch};
    member.record.assignment = cg.target_of(id);  // the target assignment, as fromConsumerGroup serialises it
    assignment[id] = member.record.assignment;
    if (m.instance_id) g.static_members[*m.instance_id] = id;
    g.members.emplace(id, std::move(member));
  }
  g.protocol = select_protocol(g);
  g.owners = entry.stable_owners;
  // ClassicGroup.fromConsumerGroup creates the group Stable; not a transition.
  g.state = GroupState::Stable;
  g.state_since = host_.coordinator_now();
  const auto members = static_cast<std::int64_t>(g.members.size());
  for (auto* timers : {&entry.session_timers, &entry.revocation_timers, &entry.join_timers, &entry.sync_timers}) {
    for (const auto& [id, timer] : *timers) host_.coordinator_cancel(timer);
  }
  if (!leaving_member.empty()) host_.coordinator_publish(MemberRemoved{g.id, leaving_member, "downgrade to a classic group"});
  // createGroupTombstoneRecords: every member's keys, the leaving one's included, and those the log still names.
  std::set<std::string> replaced = entry.logged_members;
  for (const auto& [id, m] : cg.members()) replaced.insert(id);
  const std::vector<std::string> replaced_members(replaced.begin(), replaced.end());
  consumer_groups_.erase(g.id);  // `entry` is gone from here on
  store_group(g, assignment, [](Error) {}, &replaced_members);
  host_.coordinator_publish(GroupConverted{g.id, "classic", trigger, members});
  for (auto& [id, m] : g.members) schedule_session_expiry(g, m);
  // A member that left or was fenced: every member rejoins; a replacement: none (convertToClassicGroup).
  if (rebalance) prepare_rebalance(g, "downgrade to a classic group: " + trigger);
}

// ---- classic members in a consumer group ----

// validateConsumerGroupMember and throwIfMemberDoesNotUseClassicProtocol.
Error GroupCoordinator::validate_classic_member(const ConsumerGroup& g, const MemberIdentity& member) const {
  if (member.instance_id) {
    const auto id = g.static_member(*member.instance_id);
    if (!id) return Error::UnknownMemberId;
    if (*id != member.member_id) return Error::FencedInstanceId;
  }
  const ConsumerGroupMember* m = g.member(member.member_id);
  return m && m->classic ? Error::None : Error::UnknownMemberId;
}

void GroupCoordinator::consumer_cancel_timer(std::map<std::string, TimerId>& timers, const std::string& member_id) {
  if (const auto it = timers.find(member_id); it != timers.end()) {
    host_.coordinator_cancel(it->second);
    timers.erase(it);
  }
}

// scheduleConsumerGroupJoinTimeoutIfAbsent (join) and scheduleConsumerGroupSyncTimeout:
// the member's rebalance timeout, then it is fenced.
void GroupCoordinator::consumer_schedule_classic_timer(ConsumerGroupEntry& entry, const std::string& member_id, bool join) {
  auto& timers = join ? entry.join_timers : entry.sync_timers;
  if (join && timers.contains(member_id)) return;
  consumer_cancel_timer(timers, member_id);
  const std::string group = entry.group.id();
  timers[member_id] = host_.coordinator_timer(entry.group.member(member_id)->rebalance_timeout, [this, group, member_id, join] {
    const auto it = consumer_groups_.find(group);
    if (it == consumer_groups_.end() || !it->second.group.member(member_id)) return;
    (join ? it->second.join_timers : it->second.sync_timers).erase(member_id);
    const ConsumerGroupMember& late = *it->second.group.member(member_id);
    const std::string client = late.client_id;
    if (history_) {
      history_->member_fencings.push_back(
          {group, member_id, FencingCause::RebalanceTimeout, late.member_epoch, host_.coordinator_now()});
    }
    consumer_write(group, [&] {
      consumer_remove(it->second, member_id, join ? "JoinGroup timeout" : "SyncGroup timeout",
                      client + (join ? " did not rejoin" : " did not sync") + " within its rebalance timeout");
    });
  });
}

void GroupCoordinator::classic_join_to_consumer_group(ConsumerGroupEntry& entry, ConnectionId c,
                                                      const JoinGroupRequest& request) {
  ConsumerGroup& g = entry.group;
  std::string member_id = request.member.member_id;
  // throwIfConsumerGroupIsFull first: a new member (no member id yet, or one the group does not have).
  if (consumer_group_full(g, member_id)) return reply_join_error(c, request.correlation_id, Error::GroupMaxSizeReached);
  if (!g.supports_classic_protocols(request.protocols)) {  // throwIfClassicProtocolIsNotSupported
    return reply_join_error(c, request.correlation_id, Error::InconsistentGroupProtocol, member_id);
  }
  if (member_id.empty()) {
    member_id = new_member_id(request.member.instance_id ? *request.member.instance_id : request.client_id);
    if (!request.member.instance_id) return reply_join_error(c, request.correlation_id, Error::MemberIdRequired, member_id);
  }
  // getOrMaybeSubscribe{Dynamic,Static}ConsumerGroupMember with the classic protocol.
  std::optional<std::string> replaced;
  if (!g.member(member_id)) {
    if (request.member.instance_id) replaced = g.static_member(*request.member.instance_id);
    if (replaced) {
      consumer_forget_timers(entry, *replaced);
      g.replace_static_member(*replaced, member_id);
      host_.coordinator_publish(StaticMemberReplaced{g.id(), *request.member.instance_id});
    } else {
      ConsumerGroupMember m;
      m.member_id = member_id;
      m.client_id = request.client_id;
      m.instance_id = request.member.instance_id;
      g.add_member(std::move(m));
      host_.coordinator_publish(MemberAdded{g.id(), member_id});
      consumer_epoch_bumped(entry, request.client_id + " joined");
    }
  } else if (!g.member(member_id)->classic) {
    return reply_join_error(c, request.correlation_id, Error::UnknownMemberId);
  }
  g.set_classic(member_id, ClassicMemberMetadata{request.session_timeout, request.protocols}, request.rebalance_timeout);
  if (g.update_subscription(member_id, request.subscription.topics, g.member(member_id)->server_assignor)) {
    consumer_epoch_bumped(entry, "subscription of " + request.client_id);
  }
  consumer_assign(entry, member_id, request.owned_partitions);
  const ConsumerGroupMember& m = *g.member(member_id);
  auto response = std::make_unique<JoinGroupResponse>();
  response->correlation_id = request.correlation_id;
  response->generation = m.member_epoch;
  response->protocol = request.protocols.front();
  response->member_id = member_id;  // no leader: the coordinator assigns
  if (replaced && validate_online_downgrade_with_replacement(entry)) {
    // The static member replaced the last member on the consumer protocol: the group is
    // classic from here, the member in its predecessor's place, no rebalance; it syncs
    // with the classic group (its generation is its member epoch, the group's is the group epoch).
    const std::string trigger =
        request.client_id + " took static member " + *request.member.instance_id + "'s place with group.protocol=classic";
    convert_to_classic_group(entry, "", trigger, /*rebalance=*/false);
    return respond(c, std::move(response));
  }
  consumer_cancel_timer(entry.join_timers, member_id);
  consumer_schedule_session(entry, member_id);
  consumer_schedule_classic_timer(entry, member_id, /*join=*/false);
  respond(c, std::move(response));
  consumer_maybe_stable(entry);
}

void GroupCoordinator::classic_sync_to_consumer_group(ConsumerGroupEntry& entry, ConnectionId c,
                                                      const SyncGroupRequest& request) {
  ConsumerGroup& g = entry.group;
  auto response = std::make_unique<SyncGroupResponse>();
  response->correlation_id = request.correlation_id;
  response->error = validate_classic_member(g, request.member);
  const std::string& id = request.member.member_id;
  if (response->error == Error::None && request.member.generation != g.member(id)->member_epoch) {
    response->error = Error::IllegalGeneration;  // throwIfGenerationIdUnmatched
  }
  if (response->error == Error::None) {
    const ConsumerGroupMember& m = *g.member(id);
    // throwIfRebalanceInProgress: a member revoking rejoins once it has.
    if (g.group_epoch() > m.member_epoch && m.state != MemberAssignmentState::UnrevokedPartitions) {
      consumer_schedule_classic_timer(entry, id, /*join=*/true);
      response->error = Error::RebalanceInProgress;
    } else {
      consumer_cancel_timer(entry.sync_timers, id);
      consumer_schedule_session(entry, id);
      response->assignment = std::vector<TopicPartition>(m.assigned.begin(), m.assigned.end());
    }
  }
  respond(c, std::move(response));
}

void GroupCoordinator::classic_heartbeat_to_consumer_group(ConsumerGroupEntry& entry, ConnectionId c,
                                                           const HeartbeatRequest& request) {
  ConsumerGroup& g = entry.group;
  auto response = std::make_unique<HeartbeatResponse>();
  response->correlation_id = request.correlation_id;
  response->error = validate_classic_member(g, request.member);
  const std::string& id = request.member.member_id;
  if (response->error == Error::None && request.member.generation != g.member(id)->member_epoch) {
    response->error = Error::IllegalGeneration;
  }
  if (response->error == Error::None) {
    consumer_schedule_session(entry, id);
    const ConsumerGroupMember& m = *g.member(id);
    // The member rejoins to catch up with the group epoch, to revoke, or to take what it waited for.
    if (m.member_epoch < g.group_epoch() || m.state == MemberAssignmentState::UnrevokedPartitions ||
        (m.state == MemberAssignmentState::UnreleasedPartitions && !g.waiting_on_unreleased(id))) {
      response->error = Error::RebalanceInProgress;
      consumer_schedule_classic_timer(entry, id, /*join=*/true);
    }
  }
  respond(c, std::move(response));
}

// classicGroupLeaveToConsumerGroup: the member is removed and the group epoch
// bumped; no downgrade from here (the member leaving is a classic one).
void GroupCoordinator::classic_leave_to_consumer_group(ConsumerGroupEntry& entry, ConnectionId c,
                                                       const LeaveGroupRequest& request) {
  auto response = std::make_unique<LeaveGroupResponse>();
  response->correlation_id = request.correlation_id;
  response->error = validate_classic_member(entry.group, request.member);
  if (response->error == Error::None) {
    const std::string id = request.member.member_id;
    const std::string client = entry.group.member(id)->client_id;
    consumer_forget_timers(entry, id);
    host_.coordinator_publish(MemberRemoved{entry.group.id(), id, "LeaveGroup"});
    entry.group.remove_member(id);
    consumer_epoch_bumped(entry, client + " left the group" + (request.reason.empty() ? "" : ": " + request.reason));
    consumer_maybe_stable(entry);
  }
  respond(c, std::move(response));
}

}  // namespace ksim::models
