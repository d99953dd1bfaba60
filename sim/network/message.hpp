#pragma once
// What nodes send each other. Models derive their own message types; the
// network only needs the size on the wire and a name for the trace.
#include <cstdint>
#include <memory>
#include <string_view>

namespace ksim {

class Message {
 public:
  virtual ~Message() = default;
  virtual std::uint64_t size_bytes() const = 0;
  virtual std::string_view name() const = 0;
};

using MessagePtr = std::unique_ptr<Message>;

using NodeId = std::uint32_t;
using HostId = std::uint32_t;
using ConnectionId = std::uint32_t;

}  // namespace ksim
