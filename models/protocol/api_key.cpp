#include "models/protocol/api_key.hpp"

namespace ksim::models {

std::string_view to_string(ApiKey key) {
  switch (key) {
    case ApiKey::Produce: return "Produce";
    case ApiKey::Fetch: return "Fetch";
    case ApiKey::ListOffsets: return "ListOffsets";
    case ApiKey::Metadata: return "Metadata";
    case ApiKey::UpdateMetadata: return "UpdateMetadata";
    case ApiKey::ControlledShutdown: return "ControlledShutdown";
    case ApiKey::OffsetCommit: return "OffsetCommit";
    case ApiKey::OffsetFetch: return "OffsetFetch";
    case ApiKey::FindCoordinator: return "FindCoordinator";
    case ApiKey::JoinGroup: return "JoinGroup";
    case ApiKey::Heartbeat: return "Heartbeat";
    case ApiKey::LeaveGroup: return "LeaveGroup";
    case ApiKey::SyncGroup: return "SyncGroup";
    case ApiKey::CreateTopics: return "CreateTopics";
    case ApiKey::InitProducerId: return "InitProducerId";
    case ApiKey::OffsetForLeaderEpoch: return "OffsetForLeaderEpoch";
    case ApiKey::AddPartitionsToTxn: return "AddPartitionsToTxn";
    case ApiKey::AddOffsetsToTxn: return "AddOffsetsToTxn";
    case ApiKey::EndTxn: return "EndTxn";
    case ApiKey::WriteTxnMarkers: return "WriteTxnMarkers";
    case ApiKey::TxnOffsetCommit: return "TxnOffsetCommit";
    case ApiKey::Vote: return "Vote";
    case ApiKey::BeginQuorumEpoch: return "BeginQuorumEpoch";
    case ApiKey::EndQuorumEpoch: return "EndQuorumEpoch";
    case ApiKey::AlterPartition: return "AlterPartition";
    case ApiKey::BrokerHeartbeat: return "BrokerHeartbeat";
    case ApiKey::ConsumerGroupHeartbeat: return "ConsumerGroupHeartbeat";
    case ApiKey::ShareGroupHeartbeat: return "ShareGroupHeartbeat";
    case ApiKey::ShareFetch: return "ShareFetch";
    case ApiKey::ShareAcknowledge: return "ShareAcknowledge";
    case ApiKey::AssignReplicasToDirs: return "AssignReplicasToDirs";
    case ApiKey::ZooKeeper: return "ZooKeeper";
  }
  return "?";
}

}  // namespace ksim::models
