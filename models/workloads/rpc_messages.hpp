#pragma once
// Messages of the request/response workload that exercises the engine
// before the Kafka protocol exists (and benchmarks the network).
#include <cstdint>

#include "sim/network/message.hpp"
#include "sim/events/time.hpp"

namespace ksim::models {

struct RpcRequest final : Message {
  std::uint64_t request_id = 0;
  std::uint64_t bytes = 0;
  std::uint64_t response_bytes = 0;
  std::uint64_t size_bytes() const override { return bytes; }
  std::string_view name() const override { return "rpc.request"; }
};

struct RpcResponse final : Message {
  std::uint64_t request_id = 0;
  std::uint64_t bytes = 0;
  std::uint64_t size_bytes() const override { return bytes; }
  std::string_view name() const override { return "rpc.response"; }
};

}  // namespace ksim::models
