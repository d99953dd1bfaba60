#pragma once
// KIP-932's share groups on the wire: ShareGroupHeartbeat (API key 76,
// ShareGroupHeartbeatRequest.json) to the group coordinator, ShareFetch (78)
// and ShareAcknowledge (79) to the partition leaders.
//
// Simplifications: a ShareFetch response lists each acquired record with
// its delivery count (Kafka sends the fetched batches and AcquiredRecords
// ranges, the delivery count per range); the share session (its epoch and
// the incremental partition list) is not modelled: every ShareFetch names
// its partitions. Sizes on the wire count the records' bytes.
#include <string>
#include <vector>

#include "models/protocol/consumer_group_messages.hpp"  // the member epochs: join 0, leave -1
#include "models/protocol/group_messages.hpp"

namespace ksim::models {

// ShareAcknowledgeRequest's AcknowledgeTypes (AcknowledgeType.java).
enum class AcknowledgeType : std::int8_t { Accept = 1, Release = 2, Reject = 3 };
std::string_view to_string(AcknowledgeType type);

struct ShareGroupHeartbeatRequest final : KafkaRequest<ShareGroupHeartbeatRequest, ApiKey::ShareGroupHeartbeat>,
                                          GroupRequestBase {
  static constexpr std::string_view kName = "ShareGroupHeartbeat";
  std::string member_id;          // the client makes its own (as KIP-1082 for consumer groups)
  std::int32_t member_epoch = 0;  // 0: join; -1: leave
  std::vector<std::int32_t> topics;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 64 + 4 * topics.size(); }
};

struct ShareGroupHeartbeatResponse final : KafkaResponse<ShareGroupHeartbeatResponse, ApiKey::ShareGroupHeartbeat> {
  static constexpr std::string_view kName = "ShareGroupHeartbeatResponse";
  std::int64_t correlation_id = 0;
  Error error = Error::None;
  std::int32_t member_epoch = 0;
  SimTime heartbeat_interval = 0;  // group.share.heartbeat.interval.ms
  std::vector<TopicPartition> assignment;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 32 + 8 * assignment.size(); }
};

// One record's acknowledgement (Kafka sends ranges of offsets per type).
struct RecordAcknowledgement {
  TopicPartition partition;
  Offset offset = 0;
  AcknowledgeType type = AcknowledgeType::Accept;
};

struct ShareFetchRequest final : KafkaRequest<ShareFetchRequest, ApiKey::ShareFetch>, GroupRequestBase {
  static constexpr std::string_view kName = "ShareFetch";
  std::string member_id;
  std::vector<TopicPartition> partitions;
  std::vector<RecordAcknowledgement> acknowledgements;  // of earlier deliveries, piggybacked
  std::int32_t max_records = 500;  // max.poll.records (ShareFetchRequest v1's MaxRecords)
  SimTime max_wait = milliseconds(500);  // fetch.max.wait.ms
  std::uint64_t size_bytes() const override {
    return kRequestHeaderBytes + 32 + 8 * partitions.size() + 16 * acknowledgements.size();
  }
};

// A record a ShareFetch acquired for the member.
struct AcquiredRecord {
  TopicPartition partition;
  Offset offset = 0;
  std::uint32_t writer = 0;
  std::uint64_t record = 0;
  std::uint32_t bytes = 0;
  std::int16_t delivery_count = 1;
  SimTime created = 0;
};

struct ShareFetchResponse final : KafkaResponse<ShareFetchResponse, ApiKey::ShareFetch> {
  static constexpr std::string_view kName = "ShareFetchResponse";
  std::int64_t correlation_id = 0;
  Error error = Error::None;  // top level: UNKNOWN_MEMBER_ID and the like
  std::vector<std::pair<TopicPartition, Error>> partition_errors;  // NOT_LEADER_OR_FOLLOWER, ...
  std::vector<std::pair<RecordAcknowledgement, Error>> acknowledged;  // the outcome of each piggybacked one
  std::vector<AcquiredRecord> records;
  std::uint64_t size_bytes() const override {
    std::uint64_t bytes = kRequestHeaderBytes + 16 * partition_errors.size() + 8 * acknowledged.size();
    for (const AcquiredRecord& r : records) bytes += r.bytes + 8;
    return bytes;
  }
};

struct ShareAcknowledgeRequest final : KafkaRequest<ShareAcknowledgeRequest, ApiKey::ShareAcknowledge>, GroupRequestBase {
  static constexpr std::string_view kName = "ShareAcknowledge";
  std::string member_id;
  std::vector<RecordAcknowledgement> acknowledgements;
  // ShareSessionEpoch -1 (FINAL_EPOCH): the member closes its share session; the
  // leader releases what it still holds (KafkaShareConsumer.close).
  bool close_session = false;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 32 + 16 * acknowledgements.size(); }
};

struct ShareAcknowledgeResponse final : KafkaResponse<ShareAcknowledgeResponse, ApiKey::ShareAcknowledge> {
  static constexpr std::string_view kName = "ShareAcknowledgeResponse";
  std::int64_t correlation_id = 0;
  Error error = Error::None;
  std::vector<std::pair<RecordAcknowledgement, Error>> acknowledged;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 8 * acknowledged.size(); }
};

}  // namespace ksim::models
