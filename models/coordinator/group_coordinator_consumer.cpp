// KIP-848's consumer groups at the group coordinator:
// GroupMetadataManager.consumerGroupHeartbeat (join, leave, the epoch check,
// the group epoch bump, the target assignment, the member's reconciliation),
// its session and rebalance (revocation) timeouts, and the member checks of
// OffsetCommit for these groups (ConsumerGroup.validateOffsetCommit).
//
// Every operation on a consumer group runs through consumer_write
// (group_coordinator_persist.cpp): the group is written to __consumer_offsets
// and the responses wait for the write to commit; a new coordinator loads it.
#include <algorithm>

#include "models/coordinator/group_coordinator.hpp"

namespace ksim::models {

GroupCoordinator::ConsumerGroupEntry& GroupCoordinator::consumer_group(const std::string& group) {
  auto it = consumer_groups_.find(group);
  if (it == consumer_groups_.end()) {
    it = consumer_groups_.emplace(group, ConsumerGroupEntry{ConsumerGroup(group), 0, {}, {}, {}, {}, {}, false, std::nullopt}).first;
    it->second.partition = group_partition(group, config_.offsets_topic_num_partitions);
  }
  return it->second;
}

// CoordinatorRuntime: the heartbeat's records are committed before it is answered.
void GroupCoordinator::handle(ConnectionId c, const ConsumerGroupHeartbeatRequest& request) {
  consumer_write(request.group, [&] { consumer_heartbeat(c, request); });
}

void GroupCoordinator::consumer_heartbeat(ConnectionId c, const ConsumerGroupHeartbeatRequest& request) {
  auto response = std::make_unique<ConsumerGroupHeartbeatResponse>();
  response->correlation_id = request.correlation_id;
  response->member_id = request.member_id;
  response->member_epoch = request.member_epoch;
  response->heartbeat_interval = config_.consumer_heartbeat_interval;
  const auto reply = [&](Error error) {
    response->error = error;
    respond(c, std::move(response));
  };
  if (const Error e = check_coordinator(request.group); e != Error::None) return reply(e);
  const auto& assignors = config_.consumer_assignors;
  if (!request.server_assignor.empty() &&
      std::find(assignors.begin(), assignors.end(), request.server_assignor) == assignors.end()) {
    return reply(Error::UnsupportedAssignor);
  }
  // KIP-848's online upgrade: a ConsumerGroupHeartbeat to a non-empty classic
  // group (getOrMaybeCreateConsumerGroup): a joining member converts it if
  // validateOnlineUpgrade allows, else GROUP_ID_NOT_FOUND, as for any other.
  if (Group* classic = find(request.group); classic && !classic->members.empty() && !routes_to_consumer_group(request.group)) {
    if (request.member_epoch != kJoinMemberEpoch || !validate_online_upgrade(*classic)) return reply(Error::GroupIdNotFound);
    if (std::ssize(classic->members) >= config_.consumer_max_size) {
      // The converted group would be full: throwIfConsumerGroupIsFull refuses the member, the
      // conversion's records are dropped and the group stays classic, its waiting joins and
      // syncs already told REBALANCE_IN_PROGRESS (convertToConsumerGroup's first step).
      fail_classic_waiters(*classic);
      return reply(Error::GroupMaxSizeReached);
    }
    convert_to_consumer_group(*classic, request.client_id + " joined with group.protocol=consumer");
  }
  ConsumerGroupEntry& entry = consumer_group(request.group);
  ConsumerGroup& g = entry.group;
  if (request.member_epoch == kLeaveMemberEpoch || request.member_epoch == kStaticLeaveMemberEpoch) {
    if (!g.member(request.member_id)) return reply(Error::UnknownMemberId);
    consumer_leave(entry, request);
    return reply(Error::None);
  }
  if (consumer_group_full(g, request.member_id)) return reply(Error::GroupMaxSizeReached);
  if (request.member_epoch == kJoinMemberEpoch) {
    if (const Error e = consumer_join(entry, request); e != Error::None) return reply(e);
  } else if (!g.member(request.member_id)) {
    return reply(Error::UnknownMemberId);
  } else if (!g.epoch_valid(request.member_id, request.member_epoch, request.owned)) {
    host_.coordinator_publish(MemberEpochFenced{g.id(), request.member_id, request.member_epoch});
    if (history_) {
      history_->member_fencings.push_back({g.id(), request.member_id, FencingCause::MemberEpoch,
                                           g.member(request.member_id)->member_epoch, host_.coordinator_now()});
    }
    return reply(Error::FencedMemberEpoch);
  }
  const ConsumerGroupMember& member = *g.member(request.member_id);
  if (member.classic) g.set_classic(request.member_id, std::nullopt, request.rebalance_timeout);  // setClassicMemberMetadata(null)
  const std::string client = member.client_id;
  if (g.update_subscription(request.member_id, request.topics, request.server_assignor)) {
    consumer_epoch_bumped(entry, "subscription of " + client);
  }
  consumer_assign(entry, request.member_id, request.owned);
  consumer_schedule_session(entry, request.member_id);
  const ConsumerGroupMember& reconciled = *g.member(request.member_id);
  response->member_epoch = reconciled.member_epoch;
  response->assignment = std::vector<TopicPartition>(reconciled.assigned.begin(), reconciled.assigned.end());
  consumer_maybe_stable(entry);
  reply(Error::None);
}

void GroupCoordinator::consumer_assign(ConsumerGroupEntry& entry, const std::string& member_id,
                                       const std::vector<TopicPartition>& owned) {
  ConsumerGroup& g = entry.group;
  std::map<std::int32_t, std::int32_t> counts;
  for (const auto& [id, m] : g.members()) {
    for (const std::int32_t topic : m.topics) counts[topic] = host_.coordinator_partition_count(topic);
  }
  if (g.update_partition_counts(counts)) consumer_epoch_bumped(entry, "partition metadata");
  std::string assignor_name = g.preferred_assignor();
  if (assignor_name.empty()) assignor_name = config_.consumer_assignors.front();
  const std::unique_ptr<ServerAssignor> assignor = make_server_assignor(assignor_name);
  g.maybe_compute_target(*assignor);
  const std::set<TopicPartition> before = g.member(member_id)->assigned;
  if (g.reconcile(member_id, owned)) {
    // Classic members have their join and sync timers instead (maybeReconcile).
    if (!g.member(member_id)->classic) consumer_schedule_revocation(entry, member_id);
    const ConsumerGroupMember& m = *g.member(member_id);
    const auto acquired = static_cast<std::size_t>(
        std::count_if(m.assigned.begin(), m.assigned.end(), [&](TopicPartition tp) { return !before.contains(tp); }));
    host_.coordinator_publish(
        MemberReconciled{g.id(), m.client_id, to_string(m.state), m.member_epoch, m.pending_revocation.size(), acquired});
  }
}

// A member with epoch 0: new, a static member back (KIP-345's rules with
// KIP-848: only once its previous instance left with epoch -2), or a member
// the coordinator still knows (it keeps its place).
Error GroupCoordinator::consumer_join(ConsumerGroupEntry& entry, const ConsumerGroupHeartbeatRequest& request) {
  ConsumerGroup& g = entry.group;
  if (g.member(request.member_id)) return Error::None;
  if (request.instance_id) {
    if (const auto old = g.static_member(*request.instance_id)) {
      if (g.member(*old)->member_epoch != kStaticLeaveMemberEpoch) return Error::UnreleasedInstanceId;
      consumer_forget_timers(entry, *old);
      g.replace_static_member(*old, request.member_id);
      host_.coordinator_publish(StaticMemberReplaced{g.id(), *request.instance_id});
      return Error::None;
    }
  }
  ConsumerGroupMember m;
  m.member_id = request.member_id;
  m.client_id = request.client_id;
  m.instance_id = request.instance_id;
  m.rebalance_timeout = request.rebalance_timeout;
  g.add_member(std::move(m));
  host_.coordinator_publish(MemberAdded{g.id(), request.member_id});
  consumer_epoch_bumped(entry, request.client_id + " joined");
  return Error::None;
}

void GroupCoordinator::consumer_leave(ConsumerGroupEntry& entry, const ConsumerGroupHeartbeatRequest& request) {
  const ConsumerGroupMember& m = *entry.group.member(request.member_id);
  if (request.member_epoch == kStaticLeaveMemberEpoch && m.instance_id) {
    // The static member keeps its partitions until it is back or its session expires.
    entry.group.static_leave(request.member_id);
    if (const auto it = entry.revocation_timers.find(request.member_id); it != entry.revocation_timers.end()) {
      host_.coordinator_cancel(it->second);
      entry.revocation_timers.erase(it);
    }
    return;
  }
  const std::string client = m.client_id;
  consumer_remove(entry, request.member_id, "ConsumerGroupHeartbeat leave", client + " left the group");
}

void GroupCoordinator::consumer_remove(ConsumerGroupEntry& entry, const std::string& member_id,
                                       const std::string& reason, const std::string& trigger) {
  // consumerGroupFenceMember: the last member on the consumer protocol leaving a group
  // of classic members downgrades it (validateOnlineDowngradeWithFencedMember).
  if (validate_online_downgrade(entry, member_id)) return convert_to_classic_group(entry, member_id, trigger);
  consumer_forget_timers(entry, member_id);
  host_.coordinator_publish(MemberRemoved{entry.group.id(), member_id, reason});
  entry.group.remove_member(member_id);
  consumer_epoch_bumped(entry, trigger);
  consumer_maybe_stable(entry);
}

void GroupCoordinator::consumer_forget_timers(ConsumerGroupEntry& entry, const std::string& member_id) {
  for (auto* timers : {&entry.session_timers, &entry.revocation_timers, &entry.join_timers, &entry.sync_timers}) {
    if (const auto it = timers->find(member_id); it != timers->end()) {
      host_.coordinator_cancel(it->second);
      timers->erase(it);
    }
  }
}

// A new group epoch: a rebalance starts, unless one is still going on.
void GroupCoordinator::consumer_epoch_bumped(ConsumerGroupEntry& entry, const std::string& trigger) {
  if (entry.rebalancing) return;
  entry.rebalancing = true;
  host_.coordinator_publish(RebalancePrepared{entry.group.id(), trigger});
  if (history_) history_->rebalance_started(entry.group.id(), trigger, host_.coordinator_now());
}

// The group is Stable (every member at the target epoch, nothing to revoke or
// wait for): the rebalance is over.
void GroupCoordinator::consumer_maybe_stable(ConsumerGroupEntry& entry) {
  const ConsumerGroup& g = entry.group;
  const ConsumerGroupState state = g.state();
  if (!entry.rebalancing || (state != ConsumerGroupState::Stable && state != ConsumerGroupState::Empty)) return;
  entry.rebalancing = false;
  std::map<TopicPartition, std::string> owners;
  for (const auto& [id, m] : g.members()) {
    for (const TopicPartition tp : m.assigned) owners[tp] = m.client_id;
  }
  std::int32_t moved = 0;
  for (const auto& [tp, owner] : owners) moved += entry.stable_owners.contains(tp) && entry.stable_owners.at(tp) == owner ? 0 : 1;
  for (const auto& [tp, owner] : entry.stable_owners) moved += owners.contains(tp) ? 0 : 1;
  entry.stable_owners = std::move(owners);
  host_.coordinator_publish(Rebalanced{g.id(), g.target_epoch(), moved});
  if (history_) {
    std::string assignor = g.preferred_assignor();
    if (assignor.empty()) assignor = config_.consumer_assignors.front();
    history_->rebalance_completed(g.id(), g.target_epoch(), static_cast<std::int32_t>(g.members().size()), moved,
                                  "consumer (" + assignor + ")", host_.coordinator_now());
  }
}

// group.consumer.session.timeout.ms from the member's last heartbeat.
void GroupCoordinator::consumer_schedule_session(ConsumerGroupEntry& entry, const std::string& member_id) {
  if (const auto it = entry.session_timers.find(member_id); it != entry.session_timers.end()) {
    host_.coordinator_cancel(it->second);
  }
  const std::string group = entry.group.id();
  // A classic member's own session.timeout.ms (classicProtocolSessionTimeout), else group.consumer.session.timeout.ms.
  const ConsumerGroupMember* m = entry.group.member(member_id);
  const SimTime timeout = m && m->classic ? m->classic->session_timeout : config_.consumer_session_timeout;
  entry.session_timers[member_id] = host_.coordinator_timer(timeout, [this, group, member_id] {
    const auto it = consumer_groups_.find(group);
    if (it == consumer_groups_.end() || !it->second.group.member(member_id)) return;
    it->second.session_timers.erase(member_id);
    const ConsumerGroupMember& expired = *it->second.group.member(member_id);
    const std::string client = expired.client_id;
    if (history_) {
      history_->member_fencings.push_back(
          {group, member_id, FencingCause::SessionTimeout, expired.member_epoch, host_.coordinator_now()});
    }
    consumer_write(group, [&] { consumer_remove(it->second, member_id, "session timeout", "session timeout of " + client); });
  });
}

// scheduleConsumerGroupRebalanceTimeout: a member asked to revoke partitions
// must do so within its rebalance timeout (max.poll.interval.ms), or it is fenced.
void GroupCoordinator::consumer_schedule_revocation(ConsumerGroupEntry& entry, const std::string& member_id) {
  const ConsumerGroupMember& m = *entry.group.member(member_id);
  const auto it = entry.revocation_timers.find(member_id);
  if (m.state != MemberAssignmentState::UnrevokedPartitions) {
    if (it != entry.revocation_timers.end()) {
      host_.coordinator_cancel(it->second);
      entry.revocation_timers.erase(it);
    }
    return;
  }
  if (it != entry.revocation_timers.end()) host_.coordinator_cancel(it->second);
  const std::string group = entry.group.id();
  const std::int32_t epoch = m.member_epoch;
  entry.revocation_timers[member_id] = host_.coordinator_timer(m.rebalance_timeout, [this, group, member_id, epoch] {
    const auto it = consumer_groups_.find(group);
    if (it == consumer_groups_.end()) return;
    const ConsumerGroupMember* late = it->second.group.member(member_id);
    if (!late || late->member_epoch != epoch || late->state != MemberAssignmentState::UnrevokedPartitions) return;
    it->second.revocation_timers.erase(member_id);
    const std::string client = late->client_id;
    if (history_) {
      history_->member_fencings.push_back({group, member_id, FencingCause::RebalanceTimeout, epoch, host_.coordinator_now()});
    }
    consumer_write(group, [&] {
      consumer_remove(it->second, member_id, "revocation timeout", client + " did not revoke within its rebalance timeout");
    });
  });
}

// ConsumerGroup.validateOffsetCommit: a member's commit carries its member
// epoch; a newer one than the coordinator's is fenced, an older one stale,
// except, with KIP-1251 (4.3), for partitions the member was given at that
// epoch or before and still holds: assignmentEpoch <= clientEpoch <=
// brokerEpoch (the member's epoch was bumped and the client has not heard
// yet). Each partition is answered on its own (the CommitPartitionValidator):
// the others of the request are written.
std::optional<GroupCoordinator::CommitVerdict> GroupCoordinator::check_consumer_commit(
    const std::string& group, const MemberIdentity& member, const std::vector<CommittedOffset>& offsets) const {
  const auto it = consumer_groups_.find(group);
  if (it == consumer_groups_.end()) return std::nullopt;
  const ConsumerGroup& g = it->second.group;
  if (member.generation < 0 && member.member_id.empty()) {
    return CommitVerdict{g.members().empty() ? Error::None : Error::UnknownMemberId, {}};
  }
  const ConsumerGroupMember* m = g.member(member.member_id);
  if (!m) return CommitVerdict{Error::UnknownMemberId, {}};
  // validateMemberEpoch: a classic member's generation is its member epoch, or ILLEGAL_GENERATION.
  if (m->classic) return CommitVerdict{member.generation == m->member_epoch ? Error::None : Error::IllegalGeneration, {}};
  if (member.generation > m->member_epoch) return CommitVerdict{Error::FencedMemberEpoch, {}};
  if (member.generation == m->member_epoch) return CommitVerdict{};
  if (!config_.assignment_epochs) return CommitVerdict{Error::StaleMemberEpoch, {}};
  CommitVerdict verdict;
  for (const CommittedOffset& o : offsets) {
    const auto held = m->assignment_epochs.find(o.partition);
    if (held == m->assignment_epochs.end() || held->second > member.generation) verdict.stale.push_back(o.partition);
  }
  return verdict;
}

void GroupCoordinator::unload_consumer_groups(std::int32_t partition) {
  for (auto it = consumer_groups_.begin(); it != consumer_groups_.end();) {
    if (it->second.partition != partition) {
      ++it;
      continue;
    }
    for (auto* timers : {&it->second.session_timers, &it->second.revocation_timers, &it->second.join_timers,
                         &it->second.sync_timers}) {
      for (const auto& [id, timer] : *timers) host_.coordinator_cancel(timer);
    }
    it = consumer_groups_.erase(it);
  }
}

}  // namespace ksim::models
