#pragma once
// ZooKeeper's client protocol (ClientCnxn, ZooDefs.OpCode), as much of it as
// Kafka's ZooKeeper mode uses: a session's connect and pings, create (ephemeral,
// sequential), delete and setData with an expected version, getData, exists
// and getChildren with an optional one-shot watch, a multi of creates and
// setData (KafkaZkClient's controller registration), the server's watch
// notifications (xid -1), and SetWatches (xid -8), with which a client
// that reconnects re-arms the watches it holds (ClientCnxn.primeConnection). Every request carries its xid, which its
// response echoes; responses come back in the order the session sent.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/protocol/api_message.hpp"
#include "models/protocol/kafka_messages.hpp"
#include "models/zookeeper/znode_tree.hpp"

namespace ksim::models {

enum class ZkOp : std::uint8_t {
  Connect, Ping, Create, Delete, SetData, GetData, Exists, GetChildren, Multi, CloseSession, SetWatches
};
std::string_view to_string(ZkOp op);

// Watcher.Event.EventType
enum class ZkEventType : std::uint8_t { NodeCreated, NodeDeleted, NodeDataChanged, NodeChildrenChanged };
std::string_view to_string(ZkEventType type);

// One operation of a multi (Op.create, Op.setData, Op.check).
struct ZkMultiOp {
  ZkOp op = ZkOp::Create;  // Create, SetData or Delete
  std::string path;
  std::string data;
  std::int32_t version = kAnyZkVersion;
  bool ephemeral = false;
  bool sequential = false;
};

struct ZkRequest final : KafkaRequest<ZkRequest, ApiKey::ZooKeeper> {
  static constexpr std::string_view kName = "ZooKeeperRequest";
  ZkOp op = ZkOp::Ping;
  std::int32_t xid = 0;
  // Connect: the session to resume (kNoZkSession: a new one) and the timeout asked for.
  ZkSessionId session = kNoZkSession;
  SimTime session_timeout = 0;
  std::string path;
  std::string data;
  std::int32_t version = kAnyZkVersion;  // Delete, SetData
  bool ephemeral = false, sequential = false;  // Create
  bool watch = false;                          // GetData, Exists, GetChildren
  std::vector<ZkMultiOp> ops;                  // Multi
  // SetWatches: the last zxid the client saw, and its data, exist and child watches by path.
  std::int64_t relative_zxid = 0;
  std::vector<std::string> data_watches, exist_watches, child_watches;
  std::uint64_t size_bytes() const override;
};

struct ZkResponse final : KafkaResponse<ZkResponse, ApiKey::ZooKeeper> {
  static constexpr std::string_view kName = "ZooKeeperResponse";
  ZkOp op = ZkOp::Ping;
  std::int32_t xid = 0;  // kZkNotificationXid: a watch notification
  std::int64_t zxid = 0;  // ReplyHeader.zxid: the last transaction the server had applied
  ZkError error = ZkError::Ok;
  ZkSessionId session = kNoZkSession;  // Connect: the session (SessionExpired: it is gone)
  SimTime session_timeout = 0;         // Connect: the negotiated timeout
  std::string path;  // Create: the path created; a notification: the znode
  std::string data;
  std::optional<ZnodeStat> stat;  // GetData, Exists, SetData
  std::vector<std::string> children;
  std::optional<ZkEventType> event;  // a notification
  std::uint64_t size_bytes() const override;
};

constexpr std::int32_t kZkNotificationXid = -1;
constexpr std::int32_t kZkSetWatchesXid = -8;  // ClientCnxn.SET_WATCHES_XID

}  // namespace ksim::models
