#include "models/raft/raft_messages.hpp"

#include <cassert>

namespace ksim::models {

std::uint64_t MetadataFetchResponse::size_bytes() const {
  std::uint64_t bytes = kRequestHeaderBytes + kRaftPartitionBytes;
  for (const RaftEntry& entry : entries) {
    bytes += entry.record->size_bytes();
    if (entry.batch_end) bytes += kRaftBatchHeaderBytes;
  }
  return bytes;
}

bool is_raft_message(const Message& message) {
  const ApiKey key = api_message(message).api_key();
  if (key == ApiKey::Vote || key == ApiKey::BeginQuorumEpoch || key == ApiKey::EndQuorumEpoch) return true;
  return key == ApiKey::Fetch &&
         (message.name() == MetadataFetchRequest::kName || message.name() == MetadataFetchResponse::kName);
}

const RaftMessageHeader& raft_header(const Message& message) {
  assert(is_raft_message(message));
  const ApiMessage& m = api_message(message);
  const ApiKey key = m.api_key();
  if (key == ApiKey::Vote) {
    if (m.is_response()) return message_as<VoteResponse>(m);
    return message_as<VoteRequest>(m);
  }
  if (key == ApiKey::BeginQuorumEpoch) {
    if (m.is_response()) return message_as<BeginQuorumEpochResponse>(m);
    return message_as<BeginQuorumEpochRequest>(m);
  }
  if (key == ApiKey::EndQuorumEpoch) {
    if (m.is_response()) return message_as<EndQuorumEpochResponse>(m);
    return message_as<EndQuorumEpochRequest>(m);
  }
  if (m.is_response()) return message_as<MetadataFetchResponse>(m);
  return message_as<MetadataFetchRequest>(m);
}

}  // namespace ksim::models
