// KIP-848's consumer group at its coordinator: ConsumerGroup.java (members,
// epochs, partition epochs), TargetAssignmentBuilder.java and
// CurrentAssignmentBuilder.java (a member's reconciliation).
#include "models/coordinator/consumer_group.hpp"

#include <algorithm>
#include <cassert>

namespace ksim::models {

std::string_view to_string(MemberAssignmentState state) {
  switch (state) {
    case MemberAssignmentState::Stable: return "STABLE";
    case MemberAssignmentState::UnrevokedPartitions: return "UNREVOKED_PARTITIONS";
    case MemberAssignmentState::UnreleasedPartitions: return "UNRELEASED_PARTITIONS";
  }
  return "?";
}

std::string_view to_string(ConsumerGroupState state) {
  switch (state) {
    case ConsumerGroupState::Empty: return "Empty";
    case ConsumerGroupState::Assigning: return "Assigning";
    case ConsumerGroupState::Reconciling: return "Reconciling";
    case ConsumerGroupState::Stable: return "Stable";
  }
  return "?";
}

// ConsumerGroup.maybeUpdateGroupState.
ConsumerGroupState ConsumerGroup::state() const {
  if (members_.empty()) return ConsumerGroupState::Empty;
  if (group_epoch_ > target_epoch_) return ConsumerGroupState::Assigning;
  for (const auto& [id, m] : members_) {
    if (m.member_epoch < 0) continue;  // a static member away (epoch -2) keeps its place
    if (m.member_epoch != target_epoch_ || m.state != MemberAssignmentState::Stable) return ConsumerGroupState::Reconciling;
  }
  return ConsumerGroupState::Stable;
}

const ConsumerGroupMember* ConsumerGroup::member(const std::string& member_id) const {
  const auto it = members_.find(member_id);
  return it == members_.end() ? nullptr : &it->second;
}

std::optional<std::string> ConsumerGroup::static_member(const std::string& instance_id) const {
  for (const auto& [id, m] : members_) {
    if (m.instance_id == instance_id) return id;
  }
  return std::nullopt;
}

const std::vector<TopicPartition>& ConsumerGroup::target_of(const std::string& member_id) const {
  static const std::vector<TopicPartition> kNone;
  const auto it = target_.find(member_id);
  return it == target_.end() ? kNone : it->second;
}

std::string ConsumerGroup::holder(TopicPartition tp) const {
  const auto it = holders_.find(tp);
  return it == holders_.end() ? std::string() : it->second;
}

ConsumerGroup ConsumerGroup::from_classic(std::string id, std::int32_t generation, std::vector<ConsumerGroupMember> members) {
  ConsumerGroup g(std::move(id));
  g.group_epoch_ = generation;
  g.target_epoch_ = generation;
  for (ConsumerGroupMember& m : members) {
    m.member_epoch = generation;
    m.previous_member_epoch = generation;
    m.state = MemberAssignmentState::Stable;
    m.pending_revocation.clear();
    m.assignment_epochs.clear();
    for (const TopicPartition tp : m.assigned) m.assignment_epochs[tp] = generation;
    g.target_[m.member_id] = std::vector<TopicPartition>(m.assigned.begin(), m.assigned.end());
    g.hold(m);
    const std::string member_id = m.member_id;
    g.members_.emplace(member_id, std::move(m));
  }
  return g;
}

void ConsumerGroup::set_classic(const std::string& member_id, std::optional<ClassicMemberMetadata> classic,
                                SimTime rebalance_timeout) {
  ConsumerGroupMember& m = members_.at(member_id);
  m.classic = std::move(classic);
  m.rebalance_timeout = rebalance_timeout;
}

std::size_t ConsumerGroup::classic_members() const {
  return static_cast<std::size_t>(
      std::count_if(members_.begin(), members_.end(), [](const auto& m) { return m.second.classic.has_value(); }));
}

bool ConsumerGroup::all_classic_except(const std::string& member_id) const {
  const ConsumerGroupMember* m = member(member_id);
  return m && !m->classic && classic_members() + 1 == members_.size();
}

bool ConsumerGroup::supports_classic_protocols(const std::vector<std::string>& protocols) const {
  if (members_.empty()) return !protocols.empty();
  return std::any_of(protocols.begin(), protocols.end(), [&](const std::string& name) {
    return std::all_of(members_.begin(), members_.end(), [&](const auto& m) {
      if (!m.second.classic) return true;
      const auto& p = m.second.classic->protocols;
      return std::find(p.begin(), p.end(), name) != p.end();
    });
  });
}

bool ConsumerGroup::waiting_on_unreleased(const std::string& member_id) const {
  const ConsumerGroupMember& m = members_.at(member_id);
  if (m.state != MemberAssignmentState::UnreleasedPartitions) return false;
  for (const TopicPartition tp : target_of(member_id)) {
    if (!m.assigned.contains(tp) && !holder(tp).empty() && holder(tp) != member_id) return true;
  }
  return false;
}

void ConsumerGroup::add_member(ConsumerGroupMember member) {
  member.member_epoch = 0;
  member.previous_member_epoch = 0;
  member.state = MemberAssignmentState::Stable;
  const std::string id = member.member_id;
  assert(!members_.contains(id));
  members_.emplace(id, std::move(member));
  ++group_epoch_;
}

// GroupMetadataManager.getOrMaybeSubscribeStaticConsumerGroupMember: a copy
// of the old member with the new id and epoch 0; its target moves with it.
void ConsumerGroup::replace_static_member(const std::string& old_id, const std::string& new_id) {
  ConsumerGroupMember m = std::move(members_.at(old_id));
  release(m);
  members_.erase(old_id);
  m.member_id = new_id;
  m.member_epoch = 0;
  m.previous_member_epoch = 0;
  if (const auto it = target_.find(old_id); it != target_.end()) {
    target_[new_id] = std::move(it->second);
    target_.erase(old_id);
  }
  hold(m);
  members_.emplace(new_id, std::move(m));
}

bool ConsumerGroup::update_subscription(const std::string& member_id, const std::vector<std::int32_t>& topics,
                                        const std::string& server_assignor) {
  ConsumerGroupMember& m = members_.at(member_id);
  std::vector<std::int32_t> sorted = topics;
  std::sort(sorted.begin(), sorted.end());
  if (m.topics == sorted && m.server_assignor == server_assignor) return false;
  m.topics = std::move(sorted);
  m.server_assignor = server_assignor;
  ++group_epoch_;
  return true;
}

void ConsumerGroup::static_leave(const std::string& member_id) {
  ConsumerGroupMember& m = members_.at(member_id);
  m.previous_member_epoch = m.member_epoch;
  m.member_epoch = -2;  // LEAVE_GROUP_STATIC_MEMBER_EPOCH
}

void ConsumerGroup::remove_member(const std::string& member_id) {
  const auto it = members_.find(member_id);
  if (it == members_.end()) return;
  release(it->second);
  members_.erase(it);
  target_.erase(member_id);
  ++group_epoch_;
}

bool ConsumerGroup::update_partition_counts(const std::map<std::int32_t, std::int32_t>& counts) {
  if (counts == partition_counts_) return false;
  partition_counts_ = counts;
  ++group_epoch_;
  return true;
}

std::string ConsumerGroup::preferred_assignor() const {
  std::map<std::string, int> votes;
  for (const auto& [id, m] : members_) {
    if (!m.server_assignor.empty()) ++votes[m.server_assignor];
  }
  if (votes.empty()) return {};
  return std::max_element(votes.begin(), votes.end(), [](const auto& a, const auto& b) { return a.second < b.second; })
      ->first;
}

// TargetAssignmentBuilder.build: the assignor sees every member with its
// current target (for stickiness); the new target has the group epoch.
bool ConsumerGroup::maybe_compute_target(const ServerAssignor& assignor) {
  if (group_epoch_ <= target_epoch_) return false;
  std::vector<MemberSubscription> subscriptions;
  for (const auto& [id, m] : members_) {
    MemberSubscription s;
    s.member_id = id;
    s.group_instance_id = m.instance_id;
    s.topics = m.topics;
    s.owned = target_of(id);
    subscriptions.push_back(std::move(s));
  }
  std::map<std::int32_t, std::int32_t> subscribed;
  for (const auto& [topic, count] : partition_counts_) {
    const bool wanted = std::any_of(members_.begin(), members_.end(), [&](const auto& m) {
      return std::find(m.second.topics.begin(), m.second.topics.end(), topic) != m.second.topics.end();
    });
    if (wanted) subscribed[topic] = count;
  }
  target_ = assignor.assign(subscribed, subscriptions);
  target_epoch_ = group_epoch_;
  return true;
}

bool ConsumerGroup::epoch_valid(const std::string& member_id, std::int32_t epoch,
                                const std::vector<TopicPartition>& owned) const {
  const ConsumerGroupMember& m = members_.at(member_id);
  if (epoch == m.member_epoch) return true;
  if (epoch > m.member_epoch || epoch != m.previous_member_epoch) return false;
  return std::all_of(owned.begin(), owned.end(), [&](TopicPartition tp) { return m.assigned.contains(tp); });
}

void ConsumerGroup::release(const ConsumerGroupMember& m) {
  for (const auto* set : {&m.assigned, &m.pending_revocation}) {
    for (const TopicPartition tp : *set) {
      if (const auto it = holders_.find(tp); it != holders_.end() && it->second == m.member_id) holders_.erase(it);
    }
  }
}

void ConsumerGroup::hold(const ConsumerGroupMember& m) {
  for (const auto* set : {&m.assigned, &m.pending_revocation}) {
    for (const TopicPartition tp : *set) holders_[tp] = m.member_id;
  }
}

void ConsumerGroup::set_assignment(ConsumerGroupMember& m, std::int32_t epoch, MemberAssignmentState state,
                                   std::set<TopicPartition> assigned, std::set<TopicPartition> pending_revocation) {
  release(m);
  if (epoch != m.member_epoch) m.previous_member_epoch = m.member_epoch;
  m.member_epoch = epoch;
  m.state = state;
  m.assigned = std::move(assigned);
  m.pending_revocation = std::move(pending_revocation);
  std::map<TopicPartition, std::int32_t> epochs;
  for (const auto* set : {&m.assigned, &m.pending_revocation}) {
    for (const TopicPartition tp : *set) {
      const auto kept = m.assignment_epochs.find(tp);
      epochs[tp] = kept != m.assignment_epochs.end() ? kept->second : epoch;
    }
  }
  m.assignment_epochs = std::move(epochs);
  hold(m);
}

// CurrentAssignmentBuilder.build and computeNextAssignment.
bool ConsumerGroup::reconcile(const std::string& member_id, const std::vector<TopicPartition>& owned) {
  ConsumerGroupMember& m = members_.at(member_id);
  const auto owns_any = [&](const std::set<TopicPartition>& revoked) {
    return std::any_of(owned.begin(), owned.end(), [&](TopicPartition tp) { return revoked.contains(tp); });
  };
  std::int32_t epoch = m.member_epoch;
  switch (m.state) {
    case MemberAssignmentState::Stable:
      if (m.member_epoch == target_epoch_) return false;
      break;
    case MemberAssignmentState::UnrevokedPartitions:
      if (owns_any(m.pending_revocation)) return false;  // still revoking
      epoch = m.member_epoch + 1;
      break;
    case MemberAssignmentState::UnreleasedPartitions: break;
  }
  const std::vector<TopicPartition>& target_list = target_of(member_id);
  const std::set<TopicPartition> target(target_list.begin(), target_list.end());
  std::set<TopicPartition> assigned;    // previous ∩ target
  std::set<TopicPartition> revoking;    // previous - target
  std::set<TopicPartition> acquiring;   // target - previous, held by nobody
  bool unreleased = false;
  for (const TopicPartition tp : m.assigned) (target.contains(tp) ? assigned : revoking).insert(tp);
  for (const TopicPartition tp : target) {
    if (assigned.contains(tp)) continue;
    const std::string h = holder(tp);
    if (!h.empty() && h != member_id) {
      unreleased = true;
    } else {
      acquiring.insert(tp);
    }
  }
  const MemberAssignmentState before = m.state;
  const std::int32_t before_epoch = m.member_epoch;
  const std::set<TopicPartition> before_assigned = m.assigned;
  if (!revoking.empty() && owns_any(revoking)) {
    set_assignment(m, epoch, MemberAssignmentState::UnrevokedPartitions, std::move(assigned), std::move(revoking));
  } else {
    assigned.insert(acquiring.begin(), acquiring.end());
    set_assignment(m, target_epoch_,
                   unreleased ? MemberAssignmentState::UnreleasedPartitions : MemberAssignmentState::Stable,
                   std::move(assigned), {});
  }
  return m.state != before || m.member_epoch != before_epoch || m.assigned != before_assigned;
}

}  // namespace ksim::models
