#pragma once
// The requests and responses of the Kafka protocol that ksim models, with
// their approximate sizes on the wire (headers plus record bytes).
#include <optional>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "models/protocol/acks.hpp"
#include "models/protocol/api_message.hpp"
#include "models/protocol/kafka_types.hpp"

namespace ksim::models {

constexpr std::uint64_t kRequestHeaderBytes = 64;
constexpr std::uint64_t kPartitionHeaderBytes = 32;
constexpr std::uint64_t kForgottenPartitionBytes = 4;  // a partition index in forgotten_topics_data

// A partition's leadership and ISR, as the controller decided it (KRaft's PartitionRecord).
struct PartitionState {
  TopicPartition partition;
  std::vector<BrokerId> replicas;
  std::vector<BrokerId> isr;
  BrokerId leader = kNoBroker;
  Epoch leader_epoch = 0;
  Epoch partition_epoch = 0;  // bumped by every leader or ISR change (KIP-497)
  // KIP-966 (the controller's PartitionRegistration): eligible leader replicas,
  // and the last known leader of a partition whose ISR and ELR are both empty.
  std::vector<BrokerId> elr;
  std::vector<BrokerId> last_known_elr;
  // KIP-455 (PartitionRegistration's addingReplicas and removingReplicas): a
  // reassignment in progress. `replicas` is then the target followed by the
  // replicas being removed; both empty otherwise.
  std::vector<BrokerId> adding;
  std::vector<BrokerId> removing;
  bool reassigning() const { return !adding.empty() || !removing.empty(); }
  // KIP-858 (PartitionRegistration.directories): the log dir the controller
  // has for a replica, by its index in the broker's log dirs; a replica not
  // listed is UNASSIGNED (or MIGRATING), which counts as online.
  std::vector<std::pair<BrokerId, std::int32_t>> directories;
  std::optional<std::int32_t> directory_of(BrokerId broker) const {
    for (const auto& [b, dir] : directories) {
      if (b == broker) return dir;
    }
    return std::nullopt;
  }
};

// ---- producer -> partition leader ----
struct ProduceRequest final : KafkaRequest<ProduceRequest, ApiKey::Produce> {
  static constexpr std::string_view kName = "Produce";
  struct PartitionData {
    TopicPartition partition;
    RecordBatch batch;
  };
  std::int64_t correlation_id = 0;
  Acks acks = Acks::All;
  SimTime timeout = seconds(30);
  std::string transactional_id;  // set by a transactional producer (KIP-890 verification needs it)
  // KIP-890 part 2: Produce v12+ from a transactions-v2 producer; the leader adds
  // the partition to the transaction itself (AddPartitionsToTxnManager's addPartition).
  bool transaction_v2 = false;
  std::vector<PartitionData> partitions;
  std::uint64_t size_bytes() const override;
};

struct ProduceResponse final : KafkaResponse<ProduceResponse, ApiKey::Produce> {
  static constexpr std::string_view kName = "ProduceResponse";
  struct PartitionResponse {
    TopicPartition partition;
    Error error = Error::None;
    Offset base_offset = -1;
    // KIP-951: with NOT_LEADER_OR_FOLLOWER, the leader the broker knows (kNoBroker: none).
    BrokerId current_leader = kNoBroker;
    Epoch current_leader_epoch = -1;
  };
  std::int64_t correlation_id = 0;
  std::vector<PartitionResponse> partitions;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + kPartitionHeaderBytes * partitions.size(); }
};

// ---- follower -> leader (replica fetcher) ----
struct FetchRequest final : KafkaRequest<FetchRequest, ApiKey::Fetch> {
  static constexpr std::string_view kName = "Fetch";
  struct PartitionData {
    TopicPartition partition;
    Offset fetch_offset = 0;
    Epoch current_leader_epoch = 0;  // KIP-320: fences fetches from or to a stale leader
    Epoch last_fetched_epoch = -1;   // the epoch of the follower's last batch, for divergence

    bool operator==(const PartitionData&) const = default;
  };
  std::int64_t correlation_id = 0;
  BrokerId replica_id = kNoBroker;
  SimTime max_wait = milliseconds(500);     // replica.fetch.wait.max.ms
  std::uint64_t min_bytes = 1;              // replica.fetch.min.bytes
  std::uint64_t max_bytes = 10 * 1048576;   // replica.fetch.response.max.bytes
  std::uint64_t partition_max_bytes = 1048576;  // replica.fetch.max.bytes
  bool read_committed = false;  // isolation.level: read up to the last stable offset, not the high watermark
  std::vector<PartitionData> partitions;
  // KIP-227 fetch sessions. `partitions` always holds the whole fetch, as the
  // leader's session holds it once the request is applied; an incremental
  // request puts on the wire only the partitions added or whose fetch state
  // changed since the previous request, and the ids of those it drops
  // (forgotten_topics_data).
  bool incremental = false;
  // A replica fetcher lists the same partitions as in its previous request:
  // the leader's skip economy may go on (fetch_session.hpp). Not on the wire.
  bool same_partitions = false;
  std::uint32_t unchanged_partitions = 0;  // of `partitions`: held by the session as they are, not sent
  std::uint32_t forgotten_partitions = 0;  // in the session, not in this fetch: sent as ids only
  std::uint64_t size_bytes() const override {
    return kRequestHeaderBytes + kPartitionHeaderBytes * (partitions.size() - unchanged_partitions) +
           kForgottenPartitionBytes * forgotten_partitions;
  }
};

struct FetchResponse final : KafkaResponse<FetchResponse, ApiKey::Fetch> {
  static constexpr std::string_view kName = "FetchResponse";
  struct PartitionData {
    TopicPartition partition;
    Error error = Error::None;
    Offset high_watermark = 0;
    Offset log_start_offset = 0;  // the leader's (FetchResponse's LogStartOffset, KIP-107)
    // With OFFSET_MOVED_TO_TIERED_STORAGE: the leader's local log start, which
    // Kafka's follower asks for in a ListOffsets (EARLIEST_LOCAL_TIMESTAMP, KIP-405).
    Offset local_log_start_offset = -1;
    // KIP-595 / KAFKA-10554: the follower's log diverges from the leader's; it
    // must truncate to this epoch's end offset (KIP-101 and KIP-279 semantics).
    std::optional<EpochEndOffset> diverging_epoch;
    // Most partitions of a busy fetch carry one batch: it is held inline.
    boost::container::small_vector<RecordBatch, 1> batches;
    // read_committed: the transactions aborted in the fetched range, as (producer id, first offset).
    std::vector<std::pair<ProducerId, Offset>> aborted_transactions;
    // KIP-951: with NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH, the leader this broker knows.
    BrokerId current_leader = kNoBroker;
    Epoch current_leader_epoch = -1;
  };
  std::int64_t correlation_id = 0;
  std::vector<PartitionData> partitions;
  // Quiet partitions the leader skipped (fetch_session.hpp) that a consumer's
  // full fetch still gets on the wire, each with its high watermark; an
  // incremental fetch's response leaves them out (KIP-227).
  std::uint32_t unlisted_partitions = 0;
  std::uint64_t size_bytes() const override;
};

// ---- brokers <-> controller ----
struct BrokerHeartbeat final : KafkaRequest<BrokerHeartbeat, ApiKey::BrokerHeartbeat> {
  static constexpr std::string_view kName = "BrokerHeartbeat";
  BrokerId broker = kNoBroker;
  std::uint32_t incarnation = 0;   // a new incarnation is a restart: the controller registers it anew
  bool shutting_down = false;      // controlled shutdown: move my leaderships away first
  std::int64_t metadata_offset = -1;  // BrokerHeartbeatRequest.CurrentMetadataOffset: the end of the metadata applied
  // BrokerRegistrationRequest.PreviousBrokerEpoch: whether the broker's last stop was
  // clean (a controlled shutdown); a crash is an unclean shutdown (KIP-966).
  bool previous_stop_clean = true;
  // ZooKeeper mode (KIP-112): the replicas on failed log dirs, for the broker's
  // own side's log dir event notification.
  std::vector<TopicPartition> offline_replicas;
  std::vector<std::int32_t> offline_dirs;  // KRaft, KIP-858: OfflineLogDirs, as log dir indexes
  std::uint64_t size_bytes() const override {
    return kRequestHeaderBytes + 8 * offline_replicas.size() + 16 * offline_dirs.size();
  }
};

// KIP-858 (AssignmentsManager): a broker tells the controller which log dir
// holds each listed replica.
struct AssignReplicasToDirsRequest final : KafkaRequest<AssignReplicasToDirsRequest, ApiKey::AssignReplicasToDirs> {
  static constexpr std::string_view kName = "AssignReplicasToDirs";
  std::int64_t correlation_id = 0;
  BrokerId broker = kNoBroker;
  std::uint32_t incarnation = 0;  // BrokerEpoch
  std::vector<std::pair<TopicPartition, std::int32_t>> assignments;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 12 + 24 * assignments.size(); }
};

struct AssignReplicasToDirsResponse final : KafkaResponse<AssignReplicasToDirsResponse, ApiKey::AssignReplicasToDirs> {
  static constexpr std::string_view kName = "AssignReplicasToDirsResponse";
  std::int64_t correlation_id = 0;
  Error error = Error::None;  // NotController, StaleBrokerEpoch: every assignment is tried again
  std::int32_t active_controller = -1;  // with NotController: the controller the responder knows active, or -1
  std::vector<std::pair<TopicPartition, Error>> results;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 8 * results.size(); }
};

struct BrokerHeartbeatResponse final : KafkaResponse<BrokerHeartbeatResponse, ApiKey::BrokerHeartbeat> {
  static constexpr std::string_view kName = "BrokerHeartbeatResponse";
  bool fenced = false;
  bool shutdown_ready = false;  // controlled shutdown: no leadership left, and the others know (ShouldShutDown)
  Error error = Error::None;    // NotController: a standby of the controller quorum answered
  std::int32_t active_controller = -1;  // with NotController: the controller it knows active, or -1
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes; }
};

// ZooKeeper mode (KafkaServer.controlledShutdown, KafkaController.doControlledShutdown):
// a broker about to stop asks the controller to move its leaderships and take
// it out of the ISRs it follows; the answer names the partitions it still leads.
struct ControlledShutdownRequest final : KafkaRequest<ControlledShutdownRequest, ApiKey::ControlledShutdown> {
  static constexpr std::string_view kName = "ControlledShutdown";
  BrokerId broker = kNoBroker;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 12; }
};

struct ControlledShutdownResponse final : KafkaResponse<ControlledShutdownResponse, ApiKey::ControlledShutdown> {
  static constexpr std::string_view kName = "ControlledShutdownResponse";
  Error error = Error::None;  // NotController, BrokerNotAvailable
  std::vector<TopicPartition> remaining_partitions;  // still led by the broker: no other ISR member could take them
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 8 * remaining_partitions.size(); }
};

// KIP-497: the leader asks the controller to change the ISR.
struct AlterPartitionRequest final : KafkaRequest<AlterPartitionRequest, ApiKey::AlterPartition> {
  static constexpr std::string_view kName = "AlterPartition";
  BrokerId leader = kNoBroker;
  TopicPartition partition;
  Epoch leader_epoch = 0;
  Epoch partition_epoch = 0;
  std::vector<BrokerId> new_isr;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 4 * new_isr.size(); }
};

struct AlterPartitionResponse final : KafkaResponse<AlterPartitionResponse, ApiKey::AlterPartition> {
  static constexpr std::string_view kName = "AlterPartitionResponse";
  Error error = Error::None;  // FencedLeaderEpoch, InvalidUpdateVersion, IneligibleReplica (KIP-841), NotController
  std::int32_t active_controller = -1;  // with NotController: the controller the responder knows active, or -1
  PartitionState state;       // the controller's, after the request (on an error: as the metadata will say)
  // Before KIP-497 the leader writes its own ISR to ZooKeeper: one that failed on the znode's version
  // has no state to give, and the leader keeps the ISR it had (Partition.maybeUpdateIsrAndVersion).
  bool not_written = false;
  // The request answered, echoed (not on the wire: Kafka's callback holds its proposedIsrState).
  Epoch proposed_leader_epoch = 0;
  Epoch proposed_partition_epoch = 0;
  std::vector<BrokerId> proposed_isr;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 4 * state.isr.size(); }
};

// auto.create.topics.enable: a broker asked for metadata of a topic it does not
// have creates it, with num.partitions and default.replication.factor
// (AutoTopicCreationManager, forwarded to the active controller).
struct CreateTopicsRequest final : KafkaRequest<CreateTopicsRequest, ApiKey::CreateTopics> {
  static constexpr std::string_view kName = "CreateTopics";
  std::int32_t topic = -1;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 64; }
};

struct CreateTopicsResponse final : KafkaResponse<CreateTopicsResponse, ApiKey::CreateTopics> {
  static constexpr std::string_view kName = "CreateTopicsResponse";
  std::int32_t topic = -1;
  Error error = Error::None;  // TopicAlreadyExists, InvalidReplicationFactor, NotController
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 64; }
};

// The controller's metadata, pushed to brokers: ZooKeeper mode's
// UpdateMetadata and LeaderAndIsr, and ksim's single KRaft controller, which
// runs without Raft (with a quorum, brokers fetch the metadata log, KIP-631).
struct MetadataUpdate final : KafkaRequest<MetadataUpdate, ApiKey::UpdateMetadata> {
  static constexpr std::string_view kName = "MetadataUpdate";
  std::vector<PartitionState> partitions;
  std::vector<BrokerId> live_brokers;   // unfenced
  std::vector<BrokerId> shutting_down;  // in controlled shutdown (BrokerRegistration.inControlledShutdown)
  std::int64_t offset = 0;  // the metadata log's offset once this update is applied
  // ZooKeeper mode: the sending controller's broker id (MetadataCache.getControllerId: where AlterIsr goes).
  std::int32_t controller = -1;
  // ZooKeeper mode from 2.2 (KIP-380): the receiving broker's epoch as the controller knows it; -1 none.
  std::int64_t broker_epoch = -1;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 48 * partitions.size(); }
};

// ZooKeeper mode: a broker answers each push of its controller (LeaderAndIsr's and UpdateMetadata's responses).
struct MetadataUpdateResponse final : KafkaResponse<MetadataUpdateResponse, ApiKey::UpdateMetadata> {
  static constexpr std::string_view kName = "MetadataUpdateResponse";
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes; }
};

// ---- clients <-> any broker ----
struct MetadataRequest final : KafkaRequest<MetadataRequest, ApiKey::Metadata> {
  static constexpr std::string_view kName = "Metadata";
  std::int64_t correlation_id = 0;
  std::int32_t topic = -1;                 // the client's own topic (the answer carries every partition the broker has)
  bool allow_auto_topic_creation = false;  // a producer's always; a consumer's allow.auto.create.topics
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes; }
};

struct MetadataResponse final : KafkaResponse<MetadataResponse, ApiKey::Metadata> {
  static constexpr std::string_view kName = "MetadataResponse";
  std::int64_t correlation_id = 0;
  std::vector<PartitionState> partitions;
  std::vector<BrokerId> live_brokers;
  std::vector<std::int32_t> missing_topics;  // UNKNOWN_TOPIC_OR_PARTITION: not in the answering broker's metadata
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 48 * partitions.size() + 8 * missing_topics.size(); }
};

struct InitProducerIdRequest final : KafkaRequest<InitProducerIdRequest, ApiKey::InitProducerId> {
  static constexpr std::string_view kName = "InitProducerId";
  std::int64_t correlation_id = 0;
  ProducerId producer_id = kNoProducerId;  // KIP-360: bump the epoch of this id
  ProducerEpoch producer_epoch = -1;
  std::string transactional_id;             // a transactional producer: sent to its transaction coordinator
  SimTime transaction_timeout = 0;          // transaction.timeout.ms
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + transactional_id.size(); }
};

struct InitProducerIdResponse final : KafkaResponse<InitProducerIdResponse, ApiKey::InitProducerId> {
  static constexpr std::string_view kName = "InitProducerIdResponse";
  std::int64_t correlation_id = 0;
  Error error = Error::None;
  ProducerId producer_id = kNoProducerId;
  ProducerEpoch producer_epoch = 0;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes; }
};

}  // namespace ksim::models

namespace ksim::models {

// A consumer asks where to start: the log start (earliest) or the high watermark (latest).
struct ListOffsetsRequest final : KafkaRequest<ListOffsetsRequest, ApiKey::ListOffsets> {
  static constexpr std::string_view kName = "ListOffsets";
  std::int64_t correlation_id = 0;
  bool latest = true;
  bool read_committed = false;  // isolation.level: latest is then the last stable offset
  std::vector<TopicPartition> partitions;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 8 * partitions.size(); }
};

struct ListOffsetsResponse final : KafkaResponse<ListOffsetsResponse, ApiKey::ListOffsets> {
  static constexpr std::string_view kName = "ListOffsetsResponse";
  struct PartitionOffset {
    TopicPartition partition;
    Error error = Error::None;
    Offset offset = -1;
  };
  std::int64_t correlation_id = 0;
  std::vector<PartitionOffset> partitions;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 16 * partitions.size(); }
};

}  // namespace ksim::models
