#pragma once
// The requests and responses of KRaft's Raft (KIP-595): Vote,
// BeginQuorumEpoch and EndQuorumEpoch between voters, and the Fetch of the
// metadata log (__cluster_metadata) from the leader, by voters and observers.
// Each carries the single partition of Kafka's message (one metadata log),
// the sender's id (`source`; in Kafka the connection says it) and a
// correlation id that its response echoes.
//
// MetadataFetchRequest has the Fetch key, as in Kafka, so a node that also
// serves partition fetches tells the two apart with is_raft_message().
#include <optional>
#include <string_view>
#include <vector>

#include "models/protocol/api_message.hpp"
#include "models/protocol/kafka_messages.hpp"
#include "models/raft/raft_record.hpp"

namespace ksim::models {

// What every Raft message carries besides its API's fields.
struct RaftMessageHeader {
  std::int64_t correlation_id = 0;
  RaftNodeId source = kNoRaftNode;  // who sent it (not on the wire: the connection says it)
};

// The fields every Raft response has (RaftUtil's single-partition responses):
// an error, and the epoch and leader the responder knows.
struct RaftResponseFields : RaftMessageHeader {
  Error error = Error::None;  // FencedLeaderEpoch, UnknownLeaderEpoch or NotLeaderOrFollower
  Epoch leader_epoch = 0;
  RaftNodeId leader_id = kNoRaftNode;
};

constexpr std::uint64_t kRaftPartitionBytes = 48;  // the topic, partition and the fields above

// ---- candidate (or, KIP-996, prospective) -> voters ----
struct VoteRequest final : KafkaRequest<VoteRequest, ApiKey::Vote>, RaftMessageHeader {
  static constexpr std::string_view kName = "Vote";
  Epoch candidate_epoch = 0;    // ReplicaEpoch: a candidate's new epoch, a prospective's current one
  bool pre_vote = false;        // KIP-996: would the voter grant it? Nothing is recorded
  Epoch last_offset_epoch = 0;  // the epoch of the candidate's last entry
  Offset last_offset = 0;       // the candidate's log end offset
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + kRaftPartitionBytes; }
};

struct VoteResponse final : KafkaResponse<VoteResponse, ApiKey::Vote>, RaftResponseFields {
  static constexpr std::string_view kName = "VoteResponse";
  bool vote_granted = false;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + kRaftPartitionBytes; }
};

// ---- leader -> voters: "I lead this epoch" ----
struct BeginQuorumEpochRequest final : KafkaRequest<BeginQuorumEpochRequest, ApiKey::BeginQuorumEpoch>,
                                       RaftMessageHeader {
  static constexpr std::string_view kName = "BeginQuorumEpoch";
  Epoch leader_epoch = 0;
  RaftNodeId leader_id = kNoRaftNode;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + kRaftPartitionBytes; }
};

struct BeginQuorumEpochResponse final : KafkaResponse<BeginQuorumEpochResponse, ApiKey::BeginQuorumEpoch>,
                                        RaftResponseFields {
  static constexpr std::string_view kName = "BeginQuorumEpochResponse";
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + kRaftPartitionBytes; }
};

// ---- resigned leader -> voters: "elect someone else, these first" ----
struct EndQuorumEpochRequest final : KafkaRequest<EndQuorumEpochRequest, ApiKey::EndQuorumEpoch>,
                                     RaftMessageHeader {
  static constexpr std::string_view kName = "EndQuorumEpoch";
  Epoch leader_epoch = 0;
  RaftNodeId leader_id = kNoRaftNode;
  std::vector<RaftNodeId> preferred_successors;  // voters by descending fetch offset
  std::uint64_t size_bytes() const override {
    return kRequestHeaderBytes + kRaftPartitionBytes + 4 * preferred_successors.size();
  }
};

struct EndQuorumEpochResponse final : KafkaResponse<EndQuorumEpochResponse, ApiKey::EndQuorumEpoch>,
                                      RaftResponseFields {
  static constexpr std::string_view kName = "EndQuorumEpochResponse";
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + kRaftPartitionBytes; }
};

// ---- follower or observer -> leader: a Fetch of __cluster_metadata ----
struct MetadataFetchRequest final : KafkaRequest<MetadataFetchRequest, ApiKey::Fetch>, RaftMessageHeader {
  static constexpr std::string_view kName = "MetadataFetch";
  Epoch current_leader_epoch = 0;  // the fetcher's epoch
  Offset fetch_offset = 0;         // its log end offset (a voter's is flushed)
  Epoch last_fetched_epoch = 0;    // the epoch of its last entry
  SimTime max_wait = 0;            // KafkaRaftClient.MAX_FETCH_WAIT_MS
  std::uint64_t max_bytes = 0;     // MAX_FETCH_SIZE_BYTES
  Offset high_watermark = -1;      // KIP-1166: the fetcher's (-1: none known, or a fetch before KIP-1166)
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + kRaftPartitionBytes; }
};

struct MetadataFetchResponse final : KafkaResponse<MetadataFetchResponse, ApiKey::Fetch>, RaftResponseFields {
  static constexpr std::string_view kName = "MetadataFetchResponse";
  Offset high_watermark = -1;  // -1: the leader has none yet in its epoch
  // The fetcher's log diverges from the leader's: truncate to this epoch's end, then fetch again.
  std::optional<EpochEndOffset> diverging_epoch;
  std::vector<RaftEntry> entries;  // whole batches from the fetch offset
  std::uint64_t size_bytes() const override;
};

// Is `message` one of Raft's (a metadata fetch, not a partition fetch, for the Fetch key)?
bool is_raft_message(const Message& message);
// The replica that sent a Raft message (is_raft_message), for a host that maps replicas to connections.
const RaftMessageHeader& raft_header(const Message& message);

}  // namespace ksim::models
