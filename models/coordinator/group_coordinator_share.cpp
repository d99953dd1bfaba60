// KIP-932's share groups at the group coordinator
// (GroupMetadataManager.shareGroupHeartbeat): members join with epoch 0,
// heartbeat every group.share.heartbeat.interval.ms, leave with -1 or are
// removed when group.share.session.timeout.ms passes without a heartbeat;
// each join or removal bumps the group epoch. The `simple` assignor
// (4.1+, share_assignor.hpp) shares each partition among ceil(members /
// partitions) members and gives each member an even part, keeping what it
// had where it fits; the target is computed again when the group epoch or a
// subscribed topic's partition count moves, and each member gets it with
// its next heartbeat. There is no revocation to wait for: the records, not
// the partitions, are what the share-partition leaders hand out.
//
// Simplification: membership is in the coordinator's memory only (Kafka
// writes ShareGroupMemberMetadata and target assignment records to
// __consumer_offsets); a new coordinator starts without the group and
// members join again after UNKNOWN_MEMBER_ID.
#include "models/coordinator/group_coordinator.hpp"

#include <algorithm>

#include "models/coordinator/share_assignor.hpp"

namespace ksim::models {

void GroupCoordinator::handle(ConnectionId c, const ShareGroupHeartbeatRequest& request) {
  auto response = std::make_unique<ShareGroupHeartbeatResponse>();
  response->correlation_id = request.correlation_id;
  response->heartbeat_interval = config_.share_heartbeat_interval;
  const auto reply = [&](Error error) {
    response->error = error;
    host_.coordinator_send(c, std::move(response));
  };
  if (const Error e = check_coordinator(request.group); e != Error::None) return reply(e);
  auto it = share_groups_.find(request.group);
  if (it == share_groups_.end()) {
    it = share_groups_.emplace(request.group, ShareGroupEntry{}).first;
    it->second.partition = group_partition(request.group, config_.offsets_topic_num_partitions);
  }
  ShareGroupEntry& g = it->second;
  const auto member = g.members.find(request.member_id);
  if (request.member_epoch == kLeaveMemberEpoch) {
    if (member == g.members.end()) return reply(Error::UnknownMemberId);
    host_.coordinator_cancel(member->second);
    g.members.erase(member);
    g.subscriptions.erase(request.member_id);
    g.target.erase(request.member_id);
    ++g.group_epoch;
    response->member_epoch = kLeaveMemberEpoch;
    return reply(Error::None);
  }
  if (request.member_epoch == kJoinMemberEpoch) {
    if (member != g.members.end()) host_.coordinator_cancel(member->second);
    if (member == g.members.end()) ++g.group_epoch;
  } else if (member == g.members.end()) {
    return reply(Error::UnknownMemberId);
  } else {
    host_.coordinator_cancel(member->second);
  }
  const std::string group = request.group;
  const std::string member_id = request.member_id;
  g.members[member_id] = host_.coordinator_timer(config_.share_session_timeout,
                                                 [this, group, member_id] { share_member_expired(group, member_id); });
  const auto subscribed = g.subscriptions.find(member_id);
  if (subscribed == g.subscriptions.end()) {
    g.subscriptions[member_id] = request.topics;  // a join: the epoch was bumped above
  } else if (subscribed->second != request.topics) {
    subscribed->second = request.topics;
    ++g.group_epoch;  // a subscription change
  }
  share_assign(g);
  response->member_epoch = g.group_epoch;
  response->assignment = g.target[member_id];
  reply(Error::None);
}

// GroupMetadataManager: a new target assignment when the group epoch is past
// the target's, or a subscribed topic's partition count changed (the
// metadata hash); each topic's members assigned by the simple assignor.
void GroupCoordinator::share_assign(ShareGroupEntry& g) {
  std::map<std::int32_t, std::vector<std::string>> by_topic;  // topic -> its members, by member id
  for (const auto& [member, topics] : g.subscriptions) {
    for (const std::int32_t topic : topics) by_topic[topic].push_back(member);
  }
  std::map<std::int32_t, std::int32_t> counts;
  for (const auto& [topic, members] : by_topic) counts[topic] = host_.coordinator_partition_count(topic);
  if (g.assignment_epoch == g.group_epoch && counts == g.assigned_partition_counts) return;
  std::map<std::string, std::vector<TopicPartition>> target;
  for (const auto& [topic, members] : by_topic) {
    std::map<std::string, std::set<std::int32_t>> current;
    for (const std::string& member : members) {
      for (const TopicPartition tp : g.target[member]) {
        if (tp.topic == topic) current[member].insert(tp.partition);
      }
    }
    for (const auto& [member, partitions] : simple_share_assignment(members, counts[topic], current)) {
      for (const std::int32_t p : partitions) target[member].push_back({topic, p});
    }
  }
  for (const auto& [member, topics] : g.subscriptions) target[member];  // a member with nothing: an empty assignment
  g.target = std::move(target);
  g.assignment_epoch = g.group_epoch;
  g.assigned_partition_counts = std::move(counts);
}

void GroupCoordinator::share_member_expired(const std::string& group, const std::string& member_id) {
  const auto it = share_groups_.find(group);
  if (it == share_groups_.end() || it->second.members.erase(member_id) == 0) return;
  it->second.subscriptions.erase(member_id);
  it->second.target.erase(member_id);
  ++it->second.group_epoch;
}

}  // namespace ksim::models
