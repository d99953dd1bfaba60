#include "models/zookeeper/zk_messages.hpp"

namespace ksim::models {

std::string_view to_string(ZkOp op) {
  switch (op) {
    case ZkOp::Connect: return "connect";
    case ZkOp::Ping: return "ping";
    case ZkOp::Create: return "create";
    case ZkOp::Delete: return "delete";
    case ZkOp::SetData: return "setData";
    case ZkOp::GetData: return "getData";
    case ZkOp::Exists: return "exists";
    case ZkOp::GetChildren: return "getChildren";
    case ZkOp::Multi: return "multi";
    case ZkOp::CloseSession: return "closeSession";
    case ZkOp::SetWatches: return "setWatches";
  }
  return "?";
}

std::string_view to_string(ZkEventType type) {
  switch (type) {
    case ZkEventType::NodeCreated: return "NodeCreated";
    case ZkEventType::NodeDeleted: return "NodeDeleted";
    case ZkEventType::NodeDataChanged: return "NodeDataChanged";
    case ZkEventType::NodeChildrenChanged: return "NodeChildrenChanged";
  }
  return "?";
}

// ZooKeeper's jute encoding: a 16-byte header, then lengths and bytes.
std::uint64_t ZkRequest::size_bytes() const {
  std::uint64_t bytes = 16 + path.size() + data.size();
  for (const ZkMultiOp& o : ops) bytes += 16 + o.path.size() + o.data.size();
  if (op == ZkOp::SetWatches) {
    bytes += 8;  // relativeZxid, then three lists of paths
    for (const auto* paths : {&data_watches, &exist_watches, &child_watches}) {
      bytes += 4;
      for (const std::string& path : *paths) bytes += 4 + path.size();
    }
  }
  return bytes;
}

std::uint64_t ZkResponse::size_bytes() const {
  std::uint64_t bytes = 16 + path.size() + data.size() + (stat ? 68 : 0);
  for (const std::string& c : children) bytes += 4 + c.size();
  return bytes;
}

}  // namespace ksim::models
