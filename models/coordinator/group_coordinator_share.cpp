// KIP-932's share groups at the group coordinator
// (GroupMetadataManager.shareGroupHeartbeat): members join with epoch 0,
// heartbeat every group.share.heartbeat.interval.ms, leave with -1 or are
// removed when group.share.session.timeout.ms passes without a heartbeat;
// each join or removal bumps the group epoch. The `simple` assignor gives
// every member every partition of the subscribed topics (SimpleAssignor of
// the source read, trunk 1eb7644), so there is no revocation to wait for:
// the records, not the partitions, are shared (the share-partition leaders
// hand them out).
//
// Simplification: membership is in the coordinator's memory only (Kafka
// writes ShareGroupMemberMetadata and target assignment records to
// __consumer_offsets); a new coordinator starts without the group and
// members join again after UNKNOWN_MEMBER_ID.
#include "models/coordinator/group_coordinator.hpp"

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
  response->member_epoch = g.group_epoch;
  for (const std::int32_t topic : request.topics) {  // SimpleAssignor: every partition to every member
    const std::int32_t count = host_.coordinator_partition_count(topic);
    for (std::int32_t p = 0; p < count; ++p) response->assignment.push_back({topic, p});
  }
  reply(Error::None);
}

void GroupCoordinator::share_member_expired(const std::string& group, const std::string& member_id) {
  const auto it = share_groups_.find(group);
  if (it == share_groups_.end() || it->second.members.erase(member_id) == 0) return;
  ++it->second.group_epoch;
}

}  // namespace ksim::models
