#include "models/protocol/kafka_messages.hpp"

namespace ksim::models {

std::uint64_t ProduceRequest::size_bytes() const {
  std::uint64_t bytes = kRequestHeaderBytes;
  for (const auto& p : partitions) bytes += kPartitionHeaderBytes + p.batch.bytes;
  return bytes;
}

std::uint64_t FetchResponse::size_bytes() const {
  std::uint64_t bytes = kRequestHeaderBytes + kPartitionHeaderBytes * unlisted_partitions;
  for (const auto& p : partitions) {
    bytes += kPartitionHeaderBytes;
    for (const auto& b : p.batches) bytes += b.bytes;
  }
  return bytes;
}

}  // namespace ksim::models
