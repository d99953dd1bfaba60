// Membership and rebalances of the classic group protocol, as Kafka's
// GroupCoordinator.handleJoinGroup / handleSyncGroup / handleHeartbeat /
// handleLeaveGroup and the DelayedJoin / InitialDelayedJoin operations.
#include "models/coordinator/group_coordinator.hpp"

#include <algorithm>
#include <cassert>
#include <cstdio>

#include "sim/core/state_machine.hpp"

namespace ksim::models {

std::int32_t group_partition(std::string_view group, std::int32_t partitions) {
  std::int32_t hash = 0;  // Java's String.hashCode (ASCII ids: one UTF-16 unit per byte)
  for (const char c : group) {
    hash = static_cast<std::int32_t>(31u * static_cast<std::uint32_t>(hash) + static_cast<unsigned char>(c));
  }
  const std::int32_t positive = hash == INT32_MIN ? 0 : (hash < 0 ? -hash : hash);  // Utils.abs
  return positive % partitions;
}

void GroupCoordinator::Group::transition_to(GroupState next, SimTime now) {
  transition(state, next, "group", id);
  state_since = now;
}

GroupCoordinator::GroupCoordinator(CoordinatorHost& host, GroupCoordinatorConfig config,
                                   CoordinatorRecordStore& records, ConsumptionHistory* history)
    : host_(host), config_(config), records_(records), history_(history) {}

// Kafka: clientId + "-" + a random UUID (groupInstanceId for static members).
std::string GroupCoordinator::new_member_id(std::string_view prefix) {
  char suffix[17];
  std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(host_.coordinator_rng().next_u64()));
  return std::string(prefix) + "-" + suffix;
}

void GroupCoordinator::reply_join_error(ConnectionId c, std::int64_t correlation, Error error, std::string member_id) {
  auto response = std::make_unique<JoinGroupResponse>();
  response->correlation_id = correlation;
  response->error = error;
  response->member_id = std::move(member_id);
  respond(c, std::move(response));
}

void GroupCoordinator::reply_sync(const Reply& to, Error error, std::vector<TopicPartition> assignment) {
  auto response = std::make_unique<SyncGroupResponse>();
  response->correlation_id = to.correlation_id;
  response->error = error;
  response->assignment = std::move(assignment);
  respond(to.connection, std::move(response));
}

void GroupCoordinator::handle(ConnectionId c, const JoinGroupRequest& request) {
  if (const Error e = check_coordinator(request.group); e != Error::None) {
    return reply_join_error(c, request.correlation_id, e);
  }
  if (request.session_timeout < config_.group_min_session_timeout ||
      request.session_timeout > config_.group_max_session_timeout) {
    return reply_join_error(c, request.correlation_id, Error::InvalidSessionTimeout);
  }
  // KIP-848's online migration: a classic member of a consumer group (classicGroupJoin).
  if (routes_to_consumer_group(request.group)) {
    return consumer_write(request.group, [&] { classic_join_to_consumer_group(consumer_groups_.at(request.group), c, request); });
  }
  if (const auto empty = consumer_groups_.find(request.group); empty != consumer_groups_.end()) {
    for (auto* timers : {&empty->second.session_timers, &empty->second.revocation_timers, &empty->second.join_timers,
                         &empty->second.sync_timers}) {
      for (const auto& [id, timer] : *timers) host_.coordinator_cancel(timer);
    }
    consumer_groups_.erase(empty);  // an empty consumer group becomes a classic one
  }
  Group& g = find_or_create(request.group);
  if (!accept_joining_member(g, request.member.member_id)) {
    // KIP-389: the member is refused (and removed, if it was one); GroupMaxSizeReachedException for the client.
    const std::string& id = request.member.member_id;
    g.pending_members.erase(id);
    if (g.members.contains(id)) {
      host_.coordinator_publish(MemberRemoved{g.id, id, "group.max.size reached"});
      remove_member(g, id);
    }
    return reply_join_error(c, request.correlation_id, Error::GroupMaxSizeReached);
  }
  if (request.member.member_id.empty()) {
    join_new_member(g, c, request);
  } else {
    join_known_member(g, c, request);
  }
}

// KIP-389's group.max.size (GroupMetadataManager.acceptJoiningMember, as
// 2.2's GroupCoordinator): an Empty group takes anyone; while preparing a
// rebalance, a member already waiting in JoinGroup, else anyone while fewer
// than the maximum wait (so the last members to rejoin of a group above the
// maximum are the ones refused); otherwise a member of the group, else
// anyone while it has fewer members than the maximum. A static member back
// with a new process comes with no member id: a new member here, refused
// when the group is full though it would take its old place.
bool GroupCoordinator::accept_joining_member(const Group& g, const std::string& member_id) const {
  const auto max = static_cast<std::size_t>(config_.classic_max_size);
  const auto it = g.members.find(member_id);
  switch (g.state) {
    case GroupState::Empty: return true;
    case GroupState::PreparingRebalance: {
      if (it != g.members.end() && it->second.join) return true;
      const auto awaiting = static_cast<std::size_t>(
          std::count_if(g.members.begin(), g.members.end(), [](const auto& m) { return m.second.join.has_value(); }));
      return awaiting < max;
    }
    case GroupState::CompletingRebalance:
    case GroupState::Stable: return it != g.members.end() || g.members.size() < max;
  }
  return true;
}

void GroupCoordinator::join_new_member(Group& g, ConnectionId c, const JoinGroupRequest& request) {
  if (request.member.instance_id) {
    if (g.static_members.contains(*request.member.instance_id)) return replace_static_member(g, c, request);
    return add_member_and_rebalance(g, c, request, new_member_id(*request.member.instance_id));
  }
  // KIP-394: a dynamic member first gets its id, then joins with it.
  const std::string id = new_member_id(request.client_id);
  g.pending_members.insert(id);
  const std::string group = g.id;
  host_.coordinator_timer(request.session_timeout, [this, group, id] {
    if (Group* pending = find(group); pending && pending->pending_members.erase(id) > 0) try_complete_join(*pending);
  });
  reply_join_error(c, request.correlation_id, Error::MemberIdRequired, id);
}

void GroupCoordinator::join_known_member(Group& g, ConnectionId c, const JoinGroupRequest& request) {
  const std::string& id = request.member.member_id;
  if (g.pending_members.erase(id) > 0) return add_member_and_rebalance(g, c, request, id);
  if (const Error e = check_member(g, request.member); e != Error::None) {
    return reply_join_error(c, request.correlation_id, e);
  }
  Member& m = g.members.at(id);
  const bool same_metadata = m.record.protocols == request.protocols &&
                             m.record.subscription.topics == request.subscription.topics &&
                             m.record.subscription.owned == request.subscription.owned;
  const std::string trigger = m.record.client_id + " rejoined" + (request.reason.empty() ? "" : ": " + request.reason);
  switch (g.state) {
    case GroupState::Empty: return reply_join_error(c, request.correlation_id, Error::UnknownMemberId);
    case GroupState::PreparingRebalance:
      update_member(g, m, c, request);
      return try_complete_join(g);
    case GroupState::CompletingRebalance:
      update_member(g, m, c, request);
      if (same_metadata) return answer_join(g, m);  // a retried JoinGroup: same generation
      return prepare_rebalance(g, trigger);
    case GroupState::Stable:
      update_member(g, m, c, request);
      if (same_metadata && id != g.leader) return answer_join(g, m);
      return prepare_rebalance(g, trigger);
  }
}

void GroupCoordinator::add_member_and_rebalance(Group& g, ConnectionId c, const JoinGroupRequest& request,
                                                std::string member_id) {
  Member m;
  m.record.member_id = member_id;
  m.record.instance_id = request.member.instance_id;
  m.record.client_id = request.client_id;
  if (request.member.instance_id) g.static_members[*request.member.instance_id] = member_id;
  if (g.leader.empty()) g.leader = member_id;  // the first member to join leads
  Member& added = g.members.emplace(member_id, std::move(m)).first->second;
  update_member(g, added, c, request);
  g.new_member_added = true;
  host_.coordinator_publish(MemberAdded{g.id, member_id});
  const std::string trigger = request.client_id + " joined" + (request.reason.empty() ? "" : ": " + request.reason);
  if (g.state == GroupState::PreparingRebalance) return try_complete_join(g);
  prepare_rebalance(g, trigger);
}

// KIP-345: a static member back with a new process gets a new member id; the
// old one is fenced. In a Stable group it takes its old place without a rebalance.
void GroupCoordinator::replace_static_member(Group& g, ConnectionId c, const JoinGroupRequest& request) {
  const std::string& instance = *request.member.instance_id;
  const std::string old_id = g.static_members.at(instance);
  Member m = std::move(g.members.at(old_id));
  host_.coordinator_cancel(m.heartbeat_timer);
  if (m.join) reply_join_error(m.join->connection, m.join->correlation_id, Error::FencedInstanceId);
  if (m.sync) reply_sync(*m.sync, Error::FencedInstanceId);
  m.join.reset();
  m.sync.reset();
  g.members.erase(old_id);
  const std::string id = new_member_id(instance);
  m.record.member_id = id;
  g.static_members[instance] = id;
  if (g.leader == old_id) g.leader = id;
  Member& replaced = g.members.emplace(id, std::move(m)).first->second;
  update_member(g, replaced, c, request);
  host_.coordinator_publish(StaticMemberReplaced{g.id, instance});
  switch (g.state) {
    case GroupState::Empty:
    case GroupState::CompletingRebalance:
      return prepare_rebalance(g, instance + " replaced during a rebalance");
    case GroupState::PreparingRebalance: return try_complete_join(g);
    case GroupState::Stable: break;
  }
  // Stable: persist the new member id, then answer with the current generation (KIP-814: no new assignment).
  Assignment current;
  for (const auto& [member_id, member] : g.members) current[member_id] = member.record.assignment;
  const std::string group = g.id;
  const std::int32_t generation = g.generation;
  store_group(g, current, [this, group, generation, id](Error error) {
    Group* stored = find(group);
    if (!stored || stored->generation != generation || !stored->members.contains(id)) return;
    Member& member = stored->members.at(id);
    if (error == Error::None) return answer_join(*stored, member, /*skip_assignment=*/true);
    if (member.join) reply_join_error(member.join->connection, member.join->correlation_id,
                                       group_write_error(error, GroupWrite::Metadata, config_.coordinator_runtime));
    member.join.reset();
  });
}

void GroupCoordinator::update_member(Group& g, Member& m, ConnectionId c, const JoinGroupRequest& request) {
  m.record.protocols = request.protocols;
  m.record.subscription = request.subscription;
  m.record.subscription.member_id = m.record.member_id;
  m.record.subscription.group_instance_id = m.record.instance_id;
  m.record.session_timeout = request.session_timeout;
  m.record.rebalance_timeout = request.rebalance_timeout;
  if (m.join && (m.join->connection != c || m.join->correlation_id != request.correlation_id)) {
    reply_join_error(m.join->connection, m.join->correlation_id, Error::RebalanceInProgress);  // superseded
  }
  m.join = Reply{c, request.correlation_id};
  schedule_session_expiry(g, m);
}

void GroupCoordinator::prepare_rebalance(Group& g, const std::string& trigger) {
  if (g.state == GroupState::CompletingRebalance) {
    // The assignment being synced is void: members waiting in SyncGroup rejoin.
    for (auto& [id, m] : g.members) {
      if (m.sync) reply_sync(*m.sync, Error::RebalanceInProgress);
      m.sync.reset();
    }
  }
  if (history_) history_->rebalance_started(g.id, trigger, host_.coordinator_now());
  host_.coordinator_publish(RebalancePrepared{g.id, trigger});
  host_.coordinator_cancel(g.join_timer);
  const SimTime rebalance_timeout = this->rebalance_timeout(g);
  const std::string group = g.id;
  if (g.state == GroupState::Empty) {
    // InitialDelayedJoin: wait group.initial.rebalance.delay.ms for more members.
    g.initial_delay = true;
    g.new_member_added = false;
    g.join_deadline = host_.coordinator_now() + rebalance_timeout;
    const SimTime delay = std::min(config_.group_initial_rebalance_delay, rebalance_timeout);
    g.join_timer = host_.coordinator_timer(delay, [this, group] { initial_delay_expired(group); });
    g.transition_to(GroupState::PreparingRebalance, host_.coordinator_now());
    return;
  }
  g.transition_to(GroupState::PreparingRebalance, host_.coordinator_now());
  g.join_timer = host_.coordinator_timer(rebalance_timeout, [this, group] {
    if (Group* expired = find(group); expired && expired->state == GroupState::PreparingRebalance) {
      complete_join(*expired);
    }
  });
  try_complete_join(g);
}

void GroupCoordinator::initial_delay_expired(const std::string& group) {
  Group* g = find(group);
  if (!g || g->state != GroupState::PreparingRebalance) return;
  const SimTime remaining = g->join_deadline - host_.coordinator_now();
  if (g->new_member_added && remaining > 0) {
    g->new_member_added = false;
    const SimTime delay = std::min(config_.group_initial_rebalance_delay, remaining);
    g->join_timer = host_.coordinator_timer(delay, [this, group] { initial_delay_expired(group); });
    return;
  }
  complete_join(*g);
}

void GroupCoordinator::try_complete_join(Group& g) {
  if (g.state != GroupState::PreparingRebalance || g.initial_delay || !g.pending_members.empty()) return;
  const bool all_joined = std::all_of(g.members.begin(), g.members.end(), [](const auto& m) { return m.second.join; });
  if (all_joined) complete_join(g);
}

// Kafka's onCompleteJoin (GroupMetadataManager.completeClassicGroupJoin):
// dynamic members that did not rejoin are removed; static ones (KIP-345)
// keep their place, and their partitions, until their session expires. A
// new generation starts with the protocol most members prefer and a leader
// that rejoined; with members but none rejoined, the join phase waits
// another rebalance timeout.
void GroupCoordinator::complete_join(Group& g) {
  host_.coordinator_cancel(g.join_timer);
  g.initial_delay = false;
  std::vector<std::string> not_rejoined;
  for (const auto& [id, m] : g.members) {
    if (!m.join && !m.record.instance_id) not_rejoined.push_back(id);
  }
  for (const std::string& id : not_rejoined) {
    host_.coordinator_publish(MemberRemoved{g.id, id, "not rejoined"});
    if (history_) history_->member_fencings.push_back({g.id, id, FencingCause::RebalanceTimeout, g.generation, host_.coordinator_now()});
    remove_member(g, id);
  }
  if (!g.members.empty() && !elect_joined_leader(g)) {
    const std::string group = g.id;
    g.join_timer = host_.coordinator_timer(rebalance_timeout(g), [this, group] {
      if (Group* again = find(group); again && again->state == GroupState::PreparingRebalance) complete_join(*again);
    });
    return;
  }
  ++g.generation;
  if (g.members.empty()) {
    g.transition_to(GroupState::Empty, host_.coordinator_now());
    g.protocol.clear();
    g.leader.clear();
    store_group(g, {}, [](Error) {});
    if (history_) history_->rebalance_completed(g.id, g.generation, 0, 0, "", host_.coordinator_now());
    return;
  }
  g.protocol = select_protocol(g);
  g.transition_to(GroupState::CompletingRebalance, host_.coordinator_now());
  host_.coordinator_publish(JoinCompleted{g.id, g.generation, g.members.size(), g.protocol});
  for (auto& [id, m] : g.members) {
    answer_join(g, m);
    schedule_session_expiry(g, m);  // a fresh session from the join response on
  }
}

// ClassicGroup.rebalanceTimeoutMs: the largest of the members'.
SimTime GroupCoordinator::rebalance_timeout(const Group& g) const {
  SimTime timeout = 0;
  for (const auto& [id, m] : g.members) timeout = std::max(timeout, m.record.rebalance_timeout);
  return timeout;
}

// ClassicGroup.maybeElectNewJoinedLeader: a leader that did not rejoin is
// replaced by a member that did; false when no member rejoined.
bool GroupCoordinator::elect_joined_leader(Group& g) {
  const auto leader = g.members.find(g.leader);
  if (leader != g.members.end() && leader->second.join) return true;
  for (const auto& [id, m] : g.members) {
    if (!m.join) continue;
    g.leader = id;
    return true;
  }
  return false;
}

void GroupCoordinator::answer_join(const Group& g, Member& m, bool skip_assignment) {
  if (!m.join) return;
  auto response = std::make_unique<JoinGroupResponse>();
  response->correlation_id = m.join->correlation_id;
  response->generation = g.generation;
  response->protocol = g.protocol;
  response->leader = g.leader;
  response->member_id = m.record.member_id;
  response->skip_assignment = skip_assignment;
  if (m.record.member_id == g.leader) {
    for (const auto& [id, member] : g.members) response->members.push_back(member.record.subscription);
  }
  host_.coordinator_send(m.join->connection, std::move(response));
  m.join.reset();
}

// Each member votes for its most preferred protocol among those every member supports.
std::string GroupCoordinator::select_protocol(const Group& g) const {
  std::map<std::string, int> votes;
  for (const std::string& candidate : g.members.begin()->second.record.protocols) {
    const bool everyone = std::all_of(g.members.begin(), g.members.end(), [&](const auto& m) {
      const auto& p = m.second.record.protocols;
      return std::find(p.begin(), p.end(), candidate) != p.end();
    });
    if (everyone) votes[candidate] = 0;
  }
  if (votes.empty()) return g.members.begin()->second.record.protocols.front();
  for (const auto& [id, m] : g.members) {
    for (const std::string& p : m.record.protocols) {
      if (const auto it = votes.find(p); it != votes.end()) {
        ++it->second;
        break;
      }
    }
  }
  return std::max_element(votes.begin(), votes.end(), [](const auto& a, const auto& b) { return a.second < b.second; })
      ->first;
}

Error GroupCoordinator::check_member(const Group& g, const MemberIdentity& member) const {
  if (member.instance_id) {
    const auto it = g.static_members.find(*member.instance_id);
    if (it != g.static_members.end() && it->second != member.member_id) return Error::FencedInstanceId;
  }
  return g.members.contains(member.member_id) ? Error::None : Error::UnknownMemberId;
}

void GroupCoordinator::handle(ConnectionId c, const SyncGroupRequest& request) {
  if (check_coordinator(request.group) == Error::None && routes_to_consumer_group(request.group)) {
    return consumer_write(request.group, [&] { classic_sync_to_consumer_group(consumer_groups_.at(request.group), c, request); });
  }
  auto response = std::make_unique<SyncGroupResponse>();
  response->correlation_id = request.correlation_id;
  Group* g = nullptr;
  response->error = check_coordinator(request.group);
  if (response->error == Error::None) {
    g = find(request.group);
    response->error = g ? check_member(*g, request.member) : Error::UnknownMemberId;
  }
  if (response->error == Error::None && request.member.generation != g->generation) {
    response->error = Error::IllegalGeneration;
  }
  if (response->error != Error::None) return host_.coordinator_send(c, std::move(response));
  Member& m = g->members.at(request.member.member_id);
  switch (g->state) {
    case GroupState::Empty: response->error = Error::UnknownMemberId; break;
    case GroupState::PreparingRebalance: response->error = Error::RebalanceInProgress; break;
    case GroupState::Stable: response->assignment = m.record.assignment; break;
    case GroupState::CompletingRebalance: {
      m.sync = Reply{c, request.correlation_id};
      schedule_session_expiry(*g, m);
      if (m.record.member_id != g->leader) return;
      // The leader's assignment is stored first; then every member gets its part.
      const std::string group = g->id;
      const std::int32_t generation = g->generation;
      Assignment assignment = request.assignment;
      for (const auto& [id, member] : g->members) assignment.try_emplace(id);
      store_group(*g, assignment, [this, group, generation, assignment](Error error) {
        complete_sync(group, generation, error, assignment);
      });
      return;
    }
  }
  host_.coordinator_send(c, std::move(response));
}

void GroupCoordinator::complete_sync(const std::string& group, std::int32_t generation, Error error,
                                     const Assignment& assignment) {
  Group* g = find(group);
  if (!g || g->generation != generation || g->state != GroupState::CompletingRebalance) return;
  if (error != Error::None) {
    for (auto& [id, m] : g->members) {
      if (m.sync) reply_sync(*m.sync, group_write_error(error, GroupWrite::Metadata, config_.coordinator_runtime));
      m.sync.reset();
    }
    return prepare_rebalance(*g, "storing the assignment failed: " + std::string(models::to_string(error)));
  }
  std::map<TopicPartition, std::string> owners;
  for (auto& [id, m] : g->members) {
    m.record.assignment = assignment.contains(id) ? assignment.at(id) : std::vector<TopicPartition>{};
    for (const TopicPartition tp : m.record.assignment) owners[tp] = m.record.client_id;
  }
  std::int32_t moved = 0;
  for (const auto& [tp, owner] : owners) moved += g->owners.contains(tp) && g->owners.at(tp) == owner ? 0 : 1;
  for (const auto& [tp, owner] : g->owners) moved += owners.contains(tp) ? 0 : 1;
  g->owners = std::move(owners);
  g->transition_to(GroupState::Stable, host_.coordinator_now());
  host_.coordinator_publish(Rebalanced{g->id, g->generation, moved});
  if (history_) {
    history_->rebalance_completed(g->id, g->generation, static_cast<std::int32_t>(g->members.size()), moved,
                                  g->protocol, host_.coordinator_now());
  }
  for (auto& [id, m] : g->members) {
    if (m.sync) reply_sync(*m.sync, Error::None, m.record.assignment);
    m.sync.reset();
    schedule_session_expiry(*g, m);
  }
}

void GroupCoordinator::handle(ConnectionId c, const HeartbeatRequest& request) {
  if (check_coordinator(request.group) == Error::None && routes_to_consumer_group(request.group)) {
    return consumer_write(request.group, [&] { classic_heartbeat_to_consumer_group(consumer_groups_.at(request.group), c, request); });
  }
  auto response = std::make_unique<HeartbeatResponse>();
  response->correlation_id = request.correlation_id;
  response->error = check_coordinator(request.group);
  Group* g = response->error == Error::None ? find(request.group) : nullptr;
  if (response->error == Error::None) response->error = g ? check_member(*g, request.member) : Error::UnknownMemberId;
  if (response->error == Error::None && request.member.generation != g->generation) {
    response->error = Error::IllegalGeneration;
  }
  if (response->error == Error::None) {
    schedule_session_expiry(*g, g->members.at(request.member.member_id));
    switch (g->state) {
      case GroupState::Empty: response->error = Error::UnknownMemberId; break;
      case GroupState::PreparingRebalance: response->error = Error::RebalanceInProgress; break;
      case GroupState::CompletingRebalance:
      case GroupState::Stable: break;
    }
  }
  host_.coordinator_send(c, std::move(response));
}

void GroupCoordinator::handle(ConnectionId c, const LeaveGroupRequest& request) {
  if (check_coordinator(request.group) == Error::None && routes_to_consumer_group(request.group)) {
    return consumer_write(request.group, [&] { classic_leave_to_consumer_group(consumer_groups_.at(request.group), c, request); });
  }
  auto response = std::make_unique<LeaveGroupResponse>();
  response->correlation_id = request.correlation_id;
  response->error = check_coordinator(request.group);
  Group* g = response->error == Error::None ? find(request.group) : nullptr;
  if (response->error == Error::None) response->error = g ? check_member(*g, request.member) : Error::UnknownMemberId;
  if (response->error == Error::None) {
    const std::string client = g->members.at(request.member.member_id).record.client_id;
    host_.coordinator_publish(MemberRemoved{g->id, request.member.member_id, "LeaveGroup"});
    remove_member(*g, request.member.member_id);
    member_left(*g, client + " left the group" + (request.reason.empty() ? "" : ": " + request.reason));
  }
  host_.coordinator_send(c, std::move(response));
}

void GroupCoordinator::remove_member(Group& g, const std::string& member_id) {
  Member& m = g.members.at(member_id);
  host_.coordinator_cancel(m.heartbeat_timer);
  if (m.join) reply_join_error(m.join->connection, m.join->correlation_id, Error::UnknownMemberId);
  if (m.sync) reply_sync(*m.sync, Error::UnknownMemberId);
  if (m.record.instance_id) g.static_members.erase(*m.record.instance_id);
  g.members.erase(member_id);
  if (g.leader == member_id) g.leader = g.members.empty() ? "" : g.members.begin()->first;
}

void GroupCoordinator::member_left(Group& g, const std::string& trigger) {
  switch (g.state) {
    case GroupState::Stable:
    case GroupState::CompletingRebalance: return prepare_rebalance(g, trigger);
    case GroupState::PreparingRebalance: return try_complete_join(g);
    case GroupState::Empty: return;
  }
}

// session.timeout.ms: a member is alive while it heartbeats (or waits in a join or sync).
void GroupCoordinator::schedule_session_expiry(Group& g, Member& m) {
  host_.coordinator_cancel(m.heartbeat_timer);
  const std::string group = g.id;
  const std::string id = m.record.member_id;
  m.heartbeat_timer = host_.coordinator_timer(m.record.session_timeout, [this, group, id] { session_expired(group, id); });
}

void GroupCoordinator::session_expired(const std::string& group, const std::string& member_id) {
  Group* g = find(group);
  if (!g || !g->members.contains(member_id)) return;
  Member& m = g->members.at(member_id);
  if (m.join || m.sync) return schedule_session_expiry(*g, m);  // Kafka's shouldKeepAlive
  const std::string client = m.record.client_id;
  host_.coordinator_publish(MemberRemoved{g->id, member_id, "session timeout"});
  if (history_) history_->member_fencings.push_back({g->id, member_id, FencingCause::SessionTimeout, g->generation, host_.coordinator_now()});
  remove_member(*g, member_id);
  member_left(*g, "session timeout of " + client);
}

}  // namespace ksim::models
