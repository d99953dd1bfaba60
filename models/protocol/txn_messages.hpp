#pragma once
// The transaction requests of Kafka's protocol (KIP-98): AddPartitionsToTxn
// (also as KIP-890's verification from a partition leader), EndTxn, and the
// coordinator's WriteTxnMarkers to partition leaders.
#include <string>
#include <vector>

#include "models/protocol/kafka_messages.hpp"

namespace ksim::models {

struct TxnRequestBase {
  std::int64_t correlation_id = 0;
  std::string transactional_id;
  ProducerId producer_id = kNoProducerId;
  ProducerEpoch producer_epoch = -1;
};

struct AddPartitionsToTxnRequest final
    : KafkaRequest<AddPartitionsToTxnRequest, ApiKey::AddPartitionsToTxn>, TxnRequestBase {
  static constexpr std::string_view kName = "AddPartitionsToTxn";
  std::vector<TopicPartition> partitions;
  bool verify_only = false;  // KIP-890: a partition leader asks whether they are in the ongoing transaction
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 8 * partitions.size(); }
};

struct AddPartitionsToTxnResponse final : KafkaResponse<AddPartitionsToTxnResponse, ApiKey::AddPartitionsToTxn> {
  static constexpr std::string_view kName = "AddPartitionsToTxnResponse";
  std::int64_t correlation_id = 0;
  Error error = Error::None;
  std::vector<std::pair<TopicPartition, Error>> partitions;  // verify_only: one verdict per partition
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 12 * partitions.size(); }
};

// sendOffsetsToTransaction(), first step: the group's __consumer_offsets partition joins the transaction.
struct AddOffsetsToTxnRequest final : KafkaRequest<AddOffsetsToTxnRequest, ApiKey::AddOffsetsToTxn>, TxnRequestBase {
  static constexpr std::string_view kName = "AddOffsetsToTxn";
  std::string group;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + group.size(); }
};

struct AddOffsetsToTxnResponse final : KafkaResponse<AddOffsetsToTxnResponse, ApiKey::AddOffsetsToTxn> {
  static constexpr std::string_view kName = "AddOffsetsToTxnResponse";
  std::int64_t correlation_id = 0;
  Error error = Error::None;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes; }
};

struct EndTxnRequest final : KafkaRequest<EndTxnRequest, ApiKey::EndTxn>, TxnRequestBase {
  static constexpr std::string_view kName = "EndTxn";
  bool commit = true;
  bool transaction_v2 = false;  // EndTxn v5+ (KIP-890 part 2): the coordinator bumps the epoch and returns it
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + transactional_id.size(); }
};

struct EndTxnResponse final : KafkaResponse<EndTxnResponse, ApiKey::EndTxn> {
  static constexpr std::string_view kName = "EndTxnResponse";
  std::int64_t correlation_id = 0;
  Error error = Error::None;
  // v5+ (KIP-890 part 2): the producer id and epoch the next transaction uses; none before.
  ProducerId producer_id = kNoProducerId;
  ProducerEpoch producer_epoch = -1;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + (producer_id != kNoProducerId ? 10 : 0); }
};

// From a transaction coordinator to a partition leader: write a commit or
// abort marker for (producer id, epoch) on these partitions.
struct WriteTxnMarkersRequest final : KafkaRequest<WriteTxnMarkersRequest, ApiKey::WriteTxnMarkers> {
  static constexpr std::string_view kName = "WriteTxnMarkers";
  std::int64_t correlation_id = 0;
  ProducerId producer_id = kNoProducerId;
  ProducerEpoch producer_epoch = 0;
  bool commit = true;
  std::vector<TopicPartition> partitions;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 8 * partitions.size(); }
};

struct WriteTxnMarkersResponse final : KafkaResponse<WriteTxnMarkersResponse, ApiKey::WriteTxnMarkers> {
  static constexpr std::string_view kName = "WriteTxnMarkersResponse";
  std::int64_t correlation_id = 0;
  std::vector<std::pair<TopicPartition, Error>> partitions;
  std::uint64_t size_bytes() const override { return kRequestHeaderBytes + 12 * partitions.size(); }
};

}  // namespace ksim::models
