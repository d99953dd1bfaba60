#pragma once
// What share groups did (KIP-932), recorded as it happens for the share
// group checker and the report: each record a share consumer's application
// got and finished processing, and each outcome at the share-partition
// leader: accepted, released (by the member, by its lock expiring, by the
// member leaving) and archived (rejected, or at the delivery count limit).
// Recording never changes what the models do.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/protocol/kafka_types.hpp"
#include "sim/events/time.hpp"

namespace ksim::models {

// Why a share-partition leader gave an acquired record up.
enum class ShareRelease : std::uint8_t {
  LockExpired,  // group.share.record.lock.duration.ms passed (the member may have crashed)
  Released,     // the member acknowledged it with RELEASE
  MemberLeft,   // the member's share session closed (it left the group)
};
std::string_view to_string(ShareRelease why);

// What happened to a record at its share-partition leader.
enum class ShareOutcome : std::uint8_t {
  Accepted,       // ACKNOWLEDGED: ACCEPT
  Released,       // back to AVAILABLE (see ShareRelease)
  Rejected,       // ARCHIVED by REJECT
  DeliveryLimit,  // ARCHIVED: released at group.share.delivery.count.limit deliveries
};

struct ShareLeaderEvent {
  std::string group;
  TopicPartition partition;
  Offset offset = 0;
  ShareOutcome outcome = ShareOutcome::Accepted;
  ShareRelease why = ShareRelease::LockExpired;  // Released and DeliveryLimit: what gave the record up
  std::string member;                           // who held it
  std::int16_t delivery_count = 0;
  SimTime at = 0;
};

// A share consumer's application and a record: the poll returning it
// (`delivery_count` as the leader counted), then the end of its processing.
struct ShareClientEvent {
  std::uint32_t consumer = 0;
  TopicPartition partition;
  Offset offset = 0;
  std::uint32_t writer = 0;
  std::uint64_t record = 0;
  std::int16_t delivery_count = 0;
  bool processed = false;  // false: delivered; true: processing finished
  bool poison = false;     // the application failed on it (the scenario's poison records)
  SimTime at = 0;
};

struct ShareConsumerInfo {
  std::string name;
  std::string group;
  std::int32_t topic = 0;
};

struct ShareHistory {
  std::vector<ShareConsumerInfo> consumers;  // by index
  // Member id -> the consumer and when that process started: a member id is one
  // process's (a restarted consumer joins with a new one).
  std::map<std::string, std::pair<std::uint32_t, SimTime>> members;
  std::vector<ShareLeaderEvent> leader_events;
  std::vector<ShareClientEvent> client_events;
  std::vector<std::pair<std::uint32_t, SimTime>> crashes;  // consumer index, when
  // Where each share-partition started when first initialised (share.auto.offset.reset):
  // the group's records of the partition are those from there.
  std::map<std::pair<std::string, TopicPartition>, Offset> start_offsets;
  std::uint64_t persister_writes = 0;  // share state written (__share_group_state)
  std::uint64_t persister_loads = 0;   // share-partitions a new leader loaded
  // When a leader loaded a share-partition from the persisted state: the records
  // acquired under the previous leader came back AVAILABLE (locks are not persisted).
  std::map<std::pair<std::string, TopicPartition>, std::vector<SimTime>> loads;
};

}  // namespace ksim::models
