#include "models/broker/log_dir_balance.hpp"

#include <algorithm>
#include <set>

namespace ksim::models {

std::vector<LogDirMove> plan_log_dir_balance(const std::vector<ReplicaPlacement>& replicas,
                                             const std::vector<bool>& online) {
  std::vector<std::uint64_t> bytes(online.size(), 0);
  for (const ReplicaPlacement& r : replicas) bytes[r.log_dir] += r.bytes;
  std::vector<ReplicaPlacement> placed = replicas;
  std::set<TopicPartition> moved;
  std::vector<LogDirMove> plan;
  while (true) {
    // The fullest and the emptiest online dirs (the first of equals).
    std::size_t full = online.size();
    std::size_t empty = online.size();
    for (std::size_t d = 0; d < online.size(); ++d) {
      if (!online[d]) continue;
      if (full == online.size() || bytes[d] > bytes[full]) full = d;
      if (empty == online.size() || bytes[d] < bytes[empty]) empty = d;
    }
    if (full == online.size() || full == empty) return plan;
    const std::uint64_t gap = bytes[full] - bytes[empty];
    // Moving s bytes leaves a gap of |gap - 2s|: the replica that makes it smallest, if smaller than now.
    const auto after = [gap](std::uint64_t s) { return 2 * s > gap ? 2 * s - gap : gap - 2 * s; };
    ReplicaPlacement* best = nullptr;
    for (ReplicaPlacement& r : placed) {
      if (r.log_dir != full || r.bytes == 0 || moved.contains(r.partition)) continue;
      if (!best || after(r.bytes) < after(best->bytes)) best = &r;
    }
    if (!best || after(best->bytes) >= gap) return plan;
    bytes[full] -= best->bytes;
    bytes[empty] += best->bytes;
    best->log_dir = empty;
    moved.insert(best->partition);
    plan.push_back({best->partition, empty});
  }
}

}  // namespace ksim::models
