#include "models/protocol/kafka_types.hpp"

namespace ksim::models {

std::string_view to_string(Error error) {
  switch (error) {
    case Error::None: return "NONE";
    case Error::NotLeaderOrFollower: return "NOT_LEADER_OR_FOLLOWER";
    case Error::NotEnoughReplicas: return "NOT_ENOUGH_REPLICAS";
    case Error::NotEnoughReplicasAfterAppend: return "NOT_ENOUGH_REPLICAS_AFTER_APPEND";
    case Error::RequestTimedOut: return "REQUEST_TIMED_OUT";
    case Error::OutOfOrderSequenceNumber: return "OUT_OF_ORDER_SEQUENCE_NUMBER";
    case Error::DuplicateSequenceNumber: return "DUPLICATE_SEQUENCE_NUMBER";
    case Error::InvalidProducerEpoch: return "INVALID_PRODUCER_EPOCH";
    case Error::KafkaStorageError: return "KAFKA_STORAGE_ERROR";
    case Error::UnknownTopicOrPartition: return "UNKNOWN_TOPIC_OR_PARTITION";
    case Error::OffsetOutOfRange: return "OFFSET_OUT_OF_RANGE";
    case Error::OffsetMovedToTieredStorage: return "OFFSET_MOVED_TO_TIERED_STORAGE";
    case Error::OffsetNotAvailable: return "OFFSET_NOT_AVAILABLE";
    case Error::NetworkException: return "NETWORK_EXCEPTION";
    case Error::DeliveryTimeout: return "DELIVERY_TIMEOUT";
    case Error::BufferExhausted: return "BUFFER_EXHAUSTED";
    case Error::NotCoordinator: return "NOT_COORDINATOR";
    case Error::CoordinatorNotAvailable: return "COORDINATOR_NOT_AVAILABLE";
    case Error::CoordinatorLoadInProgress: return "COORDINATOR_LOAD_IN_PROGRESS";
    case Error::IllegalGeneration: return "ILLEGAL_GENERATION";
    case Error::UnknownMemberId: return "UNKNOWN_MEMBER_ID";
    case Error::RebalanceInProgress: return "REBALANCE_IN_PROGRESS";
    case Error::MemberIdRequired: return "MEMBER_ID_REQUIRED";
    case Error::FencedInstanceId: return "FENCED_INSTANCE_ID";
    case Error::InvalidSessionTimeout: return "INVALID_SESSION_TIMEOUT";
    case Error::FencedLeaderEpoch: return "FENCED_LEADER_EPOCH";
    case Error::InvalidUpdateVersion: return "INVALID_UPDATE_VERSION";
    case Error::IneligibleReplica: return "INELIGIBLE_REPLICA";
    case Error::NotController: return "NOT_CONTROLLER";
    case Error::BrokerNotAvailable: return "BROKER_NOT_AVAILABLE";
    case Error::UnknownLeaderEpoch: return "UNKNOWN_LEADER_EPOCH";
    case Error::ConcurrentTransactions: return "CONCURRENT_TRANSACTIONS";
    case Error::ProducerFenced: return "PRODUCER_FENCED";
    case Error::InvalidTxnState: return "INVALID_TXN_STATE";
    case Error::InvalidProducerIdMapping: return "INVALID_PRODUCER_ID_MAPPING";
    case Error::TransactionAborted: return "TRANSACTION_ABORTED";
    case Error::UnstableOffsetCommit: return "UNSTABLE_OFFSET_COMMIT";
    case Error::FencedMemberEpoch: return "FENCED_MEMBER_EPOCH";
    case Error::StaleMemberEpoch: return "STALE_MEMBER_EPOCH";
    case Error::UnreleasedInstanceId: return "UNRELEASED_INSTANCE_ID";
    case Error::UnsupportedAssignor: return "UNSUPPORTED_ASSIGNOR";
    case Error::InvalidRecordState: return "INVALID_RECORD_STATE";
    case Error::InvalidReplicaAssignment: return "INVALID_REPLICA_ASSIGNMENT";
    case Error::NoReassignmentInProgress: return "NO_REASSIGNMENT_IN_PROGRESS";
    case Error::LogDirNotFound: return "LOG_DIR_NOT_FOUND";
    case Error::ReplicaNotAvailable: return "REPLICA_NOT_AVAILABLE";
    case Error::GroupIdNotFound: return "GROUP_ID_NOT_FOUND";
    case Error::InconsistentGroupProtocol: return "INCONSISTENT_GROUP_PROTOCOL";
    case Error::GroupMaxSizeReached: return "GROUP_MAX_SIZE_REACHED";
    case Error::StaleBrokerEpoch: return "STALE_BROKER_EPOCH";
    case Error::TopicAlreadyExists: return "TOPIC_ALREADY_EXISTS";
    case Error::InvalidReplicationFactor: return "INVALID_REPLICATION_FACTOR";
    // KafkaProducer.waitOnMetadata: "Topic %s not present in metadata after %d ms." (a TimeoutException)
    case Error::TopicNotInMetadata: return "TIMEOUT (topic not present in metadata)";
  }
  return "?";
}

// As in Kafka's client: these errors make the producer retry the batch
// (within retries and delivery.timeout.ms); the others fail it.
bool is_retriable(Error error) {
  switch (error) {
    case Error::NotLeaderOrFollower:
    case Error::NotEnoughReplicas:
    case Error::NotEnoughReplicasAfterAppend:
    case Error::RequestTimedOut:
    case Error::KafkaStorageError:
    case Error::UnknownTopicOrPartition:
    case Error::NetworkException:
    case Error::NotCoordinator:
    case Error::CoordinatorNotAvailable:
    case Error::CoordinatorLoadInProgress:
    case Error::FencedLeaderEpoch:
    case Error::UnknownLeaderEpoch:
    case Error::ConcurrentTransactions:
    case Error::UnstableOffsetCommit:
    case Error::OffsetNotAvailable:
    case Error::NotController:
    case Error::StaleMemberEpoch:
    case Error::ReplicaNotAvailable:  // an InvalidMetadataException
      return true;
    case Error::FencedMemberEpoch:
    case Error::UnreleasedInstanceId:
    case Error::UnsupportedAssignor:
    case Error::InvalidRecordState:
    case Error::InvalidReplicaAssignment:
    case Error::NoReassignmentInProgress:
    case Error::LogDirNotFound:
    case Error::GroupIdNotFound:
    case Error::InconsistentGroupProtocol:
    case Error::GroupMaxSizeReached:
    case Error::StaleBrokerEpoch:
    case Error::TopicAlreadyExists:
    case Error::InvalidReplicationFactor:
    case Error::TopicNotInMetadata:
    case Error::None:
    case Error::BrokerNotAvailable:
    case Error::OffsetOutOfRange:
    case Error::OffsetMovedToTieredStorage:
    case Error::OutOfOrderSequenceNumber:
    case Error::DuplicateSequenceNumber:
    case Error::InvalidProducerEpoch:
    case Error::DeliveryTimeout:
    case Error::BufferExhausted:
    case Error::IllegalGeneration:
    case Error::UnknownMemberId:
    case Error::RebalanceInProgress:
    case Error::MemberIdRequired:
    case Error::FencedInstanceId:
    case Error::InvalidSessionTimeout:
    case Error::ProducerFenced:
    case Error::InvalidTxnState:
    case Error::InvalidProducerIdMapping:
    case Error::TransactionAborted:
    case Error::InvalidUpdateVersion:
    case Error::IneligibleReplica:
      return false;
  }
  return false;
}

}  // namespace ksim::models
