// Every message type carries the API key Kafka gives its API (ApiKeys.java,
// the "apiKey" of clients/src/main/resources/common/message/*Request.json),
// and says whether it is the request or the response.
#include <catch2/catch.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "models/protocol/group_messages.hpp"
#include "models/protocol/kafka_messages.hpp"
#include "models/protocol/txn_messages.hpp"

using namespace ksim::models;

namespace {

struct Keyed {
  std::string_view message;  // its name in the trace
  std::int16_t key = 0;
  bool response = false;
};

template <class T>
Keyed keyed() {
  const T message{};
  return {message.name(), static_cast<std::int16_t>(message.api_key()), message.is_response()};
}

struct Row {
  Keyed ksim;
  std::int16_t kafka_key;  // Kafka's number for the API
  bool response;
};

}  // namespace

TEST_CASE("every message type reports the API key Kafka gives its API", "[protocol]") {
  const Row table[] = {
      {keyed<ProduceRequest>(), 0, false},
      {keyed<ProduceResponse>(), 0, true},
      {keyed<FetchRequest>(), 1, false},
      {keyed<FetchResponse>(), 1, true},
      {keyed<ListOffsetsRequest>(), 2, false},
      {keyed<ListOffsetsResponse>(), 2, true},
      {keyed<MetadataRequest>(), 3, false},
      {keyed<MetadataResponse>(), 3, true},
      {keyed<MetadataUpdate>(), 6, false},  // UpdateMetadata, the controller's push
      {keyed<OffsetCommitRequest>(), 8, false},
      {keyed<OffsetCommitResponse>(), 8, true},
      {keyed<OffsetFetchRequest>(), 9, false},
      {keyed<OffsetFetchResponse>(), 9, true},
      {keyed<FindCoordinatorRequest>(), 10, false},
      {keyed<FindCoordinatorResponse>(), 10, true},
      {keyed<JoinGroupRequest>(), 11, false},
      {keyed<JoinGroupResponse>(), 11, true},
      {keyed<HeartbeatRequest>(), 12, false},
      {keyed<HeartbeatResponse>(), 12, true},
      {keyed<LeaveGroupRequest>(), 13, false},
      {keyed<LeaveGroupResponse>(), 13, true},
      {keyed<SyncGroupRequest>(), 14, false},
      {keyed<SyncGroupResponse>(), 14, true},
      {keyed<InitProducerIdRequest>(), 22, false},
      {keyed<InitProducerIdResponse>(), 22, true},
      {keyed<OffsetsForLeaderEpochRequest>(), 23, false},
      {keyed<OffsetsForLeaderEpochResponse>(), 23, true},
      {keyed<AddPartitionsToTxnRequest>(), 24, false},
      {keyed<AddPartitionsToTxnResponse>(), 24, true},
      {keyed<AddOffsetsToTxnRequest>(), 25, false},
      {keyed<AddOffsetsToTxnResponse>(), 25, true},
      {keyed<EndTxnRequest>(), 26, false},
      {keyed<EndTxnResponse>(), 26, true},
      {keyed<WriteTxnMarkersRequest>(), 27, false},
      {keyed<WriteTxnMarkersResponse>(), 27, true},
      {keyed<TxnOffsetCommitRequest>(), 28, false},
      {keyed<TxnOffsetCommitResponse>(), 28, true},
      {keyed<ControlledShutdownRequest>(), 7, false},
      {keyed<ControlledShutdownResponse>(), 7, true},
      {keyed<AlterPartitionRequest>(), 56, false},
      {keyed<AlterPartitionResponse>(), 56, true},
      {keyed<BrokerHeartbeat>(), 63, false},
      {keyed<BrokerHeartbeatResponse>(), 63, true},
  };
  std::set<std::pair<std::int16_t, bool>> seen;
  for (const Row& row : table) {
    INFO(std::string(row.ksim.message));
    CHECK(row.ksim.key == row.kafka_key);
    CHECK(row.ksim.response == row.response);
    CHECK(seen.emplace(row.kafka_key, row.response).second);  // one message type per API and direction
  }
}

TEST_CASE("API keys are named as Kafka's message definitions name them", "[protocol]") {
  CHECK(to_string(ApiKey::Produce) == "Produce");
  CHECK(to_string(ApiKey::UpdateMetadata) == "UpdateMetadata");
  CHECK(to_string(ApiKey::OffsetForLeaderEpoch) == "OffsetForLeaderEpoch");
  CHECK(to_string(ApiKey::AddPartitionsToTxn) == "AddPartitionsToTxn");
  CHECK(to_string(ApiKey::BrokerHeartbeat) == "BrokerHeartbeat");
}

TEST_CASE("a message is taken as its type only when its key and direction say so", "[protocol]") {
  const FetchResponse response;
  const ksim::Message& message = response;
  CHECK(message_is<FetchResponse>(message));
  CHECK_FALSE(message_is<FetchRequest>(message));  // same key, other direction
  CHECK_FALSE(message_is<ProduceResponse>(message));
  CHECK(message_if<FetchResponse>(&message) == &response);
  CHECK(message_if<FetchRequest>(&message) == nullptr);
  CHECK(message_if<FetchResponse>(nullptr) == nullptr);
  CHECK(&message_as<FetchResponse>(message) == &response);
}

TEST_CASE("acks print as the acks config is written", "[protocol]") {
  CHECK(to_string(Acks::None) == "0");
  CHECK(to_string(Acks::Leader) == "1");
  CHECK(to_string(Acks::All) == "all");
  CHECK(static_cast<std::int16_t>(Acks::All) == -1);  // on the wire, ProduceRequest's acks
}
