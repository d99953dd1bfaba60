#pragma once
// ZooKeeper's data tree (DataTree): znodes by path, each with its data, its
// version (bumped by every setData, checked by a conditional one), the zxid
// that created it (Kafka's broker epoch, KIP-380) and, for an ephemeral node,
// the session that owns it. Every change takes the next zxid. Sequential
// nodes get the parent's child version as a ten-digit suffix, as ZooKeeper's.
// The tree knows nothing of sessions or watches (models/zookeeper/zookeeper_server.hpp).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ksim::models {

// KeeperException.Code, for what the model can answer.
enum class ZkError : std::uint8_t { Ok, NoNode, NodeExists, BadVersion, NotEmpty, SessionExpired, ConnectionLoss };
std::string_view to_string(ZkError error);

using ZkSessionId = std::int64_t;
constexpr ZkSessionId kNoZkSession = 0;
constexpr std::int32_t kAnyZkVersion = -1;  // ZkVersion.MatchAnyVersion

struct ZnodeStat {
  std::int64_t czxid = 0;            // the transaction that created it
  std::int64_t mzxid = 0;            // the last that changed its data
  std::int32_t version = 0;          // data version
  std::int32_t cversion = 0;         // child version
  std::int64_t pzxid = 0;            // the last that created or deleted a child
  ZkSessionId ephemeral_owner = kNoZkSession;
  std::int32_t num_children = 0;
};

struct Znode {
  std::string data;
  ZnodeStat stat;
};

class ZnodeTree {
 public:
  ZnodeTree();  // holds "/"

  // DataTree.createNode: the parent must exist and not be ephemeral. The path created (a sequential's suffix added).
  struct Created {
    ZkError error = ZkError::Ok;
    std::string path;
  };
  Created create(const std::string& path, std::string data, ZkSessionId ephemeral_owner, bool sequential);
  ZkError remove(const std::string& path, std::int32_t version);
  ZkError set_data(const std::string& path, std::string data, std::int32_t version);

  const Znode* find(const std::string& path) const;
  // Children's names (not paths), sorted; nullopt when `path` does not exist.
  std::optional<std::vector<std::string>> children(const std::string& path) const;
  // The ephemeral nodes `session` owns, in path order.
  std::vector<std::string> ephemerals_of(ZkSessionId session) const;
  std::int64_t last_zxid() const { return zxid_; }
  std::size_t size() const { return nodes_.size(); }

  static std::string parent_of(const std::string& path);

 private:
  std::map<std::string, Znode> nodes_;  // by path: a parent sorts before its children
  std::int64_t zxid_ = 0;
};

}  // namespace ksim::models
