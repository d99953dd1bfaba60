#include "models/zookeeper/znode_tree.hpp"

#include <fmt/format.h>

namespace ksim::models {

std::string_view to_string(ZkError error) {
  switch (error) {
    case ZkError::Ok: return "OK";
    case ZkError::NoNode: return "NONODE";
    case ZkError::NodeExists: return "NODEEXISTS";
    case ZkError::BadVersion: return "BADVERSION";
    case ZkError::NotEmpty: return "NOTEMPTY";
    case ZkError::SessionExpired: return "SESSIONEXPIRED";
    case ZkError::ConnectionLoss: return "CONNECTIONLOSS";
  }
  return "?";
}

ZnodeTree::ZnodeTree() { nodes_.emplace("/", Znode{}); }

std::string ZnodeTree::parent_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

ZnodeTree::Created ZnodeTree::create(const std::string& path, std::string data, ZkSessionId ephemeral_owner,
                                     bool sequential) {
  const auto parent = nodes_.find(parent_of(path));
  if (parent == nodes_.end()) return {ZkError::NoNode, {}};
  if (parent->second.stat.ephemeral_owner != kNoZkSession) return {ZkError::NoNode, {}};  // NOCHILDRENFOREPHEMERALS
  const std::string created = sequential ? fmt::format("{}{:010}", path, parent->second.stat.cversion) : path;
  if (nodes_.contains(created)) return {ZkError::NodeExists, {}};
  ++zxid_;
  Znode node{std::move(data), {}};
  node.stat.czxid = node.stat.mzxid = node.stat.pzxid = zxid_;
  node.stat.ephemeral_owner = ephemeral_owner;
  nodes_.emplace(created, std::move(node));
  ++parent->second.stat.cversion;
  parent->second.stat.pzxid = zxid_;
  ++parent->second.stat.num_children;
  return {ZkError::Ok, created};
}

ZkError ZnodeTree::remove(const std::string& path, std::int32_t version) {
  const auto it = nodes_.find(path);
  if (it == nodes_.end() || path == "/") return ZkError::NoNode;
  if (version != kAnyZkVersion && version != it->second.stat.version) return ZkError::BadVersion;
  if (it->second.stat.num_children > 0) return ZkError::NotEmpty;
  nodes_.erase(it);
  ++zxid_;
  Znode& parent = nodes_.at(parent_of(path));
  ++parent.stat.cversion;
  parent.stat.pzxid = zxid_;
  --parent.stat.num_children;
  return ZkError::Ok;
}

ZkError ZnodeTree::set_data(const std::string& path, std::string data, std::int32_t version) {
  const auto it = nodes_.find(path);
  if (it == nodes_.end()) return ZkError::NoNode;
  if (version != kAnyZkVersion && version != it->second.stat.version) return ZkError::BadVersion;
  it->second.data = std::move(data);
  ++it->second.stat.version;
  it->second.stat.mzxid = ++zxid_;
  return ZkError::Ok;
}

const Znode* ZnodeTree::find(const std::string& path) const {
  const auto it = nodes_.find(path);
  return it == nodes_.end() ? nullptr : &it->second;
}

std::optional<std::vector<std::string>> ZnodeTree::children(const std::string& path) const {
  if (!nodes_.contains(path)) return std::nullopt;
  const std::string prefix = path == "/" ? "/" : path + "/";
  std::vector<std::string> names;
  for (auto it = nodes_.lower_bound(prefix); it != nodes_.end() && it->first.starts_with(prefix); ++it) {
    const std::string_view rest = std::string_view(it->first).substr(prefix.size());
    if (!rest.empty() && rest.find('/') == std::string_view::npos) names.emplace_back(rest);
  }
  return names;
}

std::vector<std::string> ZnodeTree::ephemerals_of(ZkSessionId session) const {
  std::vector<std::string> paths;
  for (const auto& [path, node] : nodes_) {
    if (node.stat.ephemeral_owner == session) paths.push_back(path);
  }
  return paths;
}

}  // namespace ksim::models
