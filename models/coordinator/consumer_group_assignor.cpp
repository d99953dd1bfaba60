// The uniform and range server-side assignors of KIP-848: ports of
// UniformAssignor (OptimizedUniformAssignmentBuilder) and RangeAssignor of
// Kafka's group-coordinator module.
#include "models/coordinator/consumer_group_assignor.hpp"

#include <algorithm>

namespace ksim::models {

namespace {

// The members subscribed to `topic`, in member-id order (the input is in that order).
std::vector<std::size_t> subscribers_of(std::int32_t topic, const std::vector<MemberSubscription>& members) {
  std::vector<std::size_t> subscribers;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const auto& topics = members[i].topics;
    if (std::find(topics.begin(), topics.end(), topic) != topics.end()) subscribers.push_back(i);
  }
  return subscribers;
}

// OptimizedUniformAssignmentBuilder: every member gets floor(P/M) partitions
// and P mod M members one more. Each keeps what it has up to its quota (the
// members already over the lower quota take the extra ones first); the
// partitions left over go to the members under their quota, lowest first.
class UniformServerAssignor final : public ServerAssignor {
 public:
  std::string_view name() const override { return "uniform"; }
  Assignment assign(const std::map<std::int32_t, std::int32_t>& partitions_per_topic,
                    const std::vector<MemberSubscription>& members) const override {
    Assignment result;
    for (const MemberSubscription& m : members) result[m.member_id];
    for (const auto& [topic, count] : partitions_per_topic) {
      const std::vector<std::size_t> subscribers = subscribers_of(topic, members);
      if (subscribers.empty()) continue;
      const auto n = static_cast<std::int32_t>(subscribers.size());
      const std::int32_t min_quota = count / n;
      std::int32_t extras = count % n;
      std::vector<bool> taken(static_cast<std::size_t>(count), false);
      std::vector<std::vector<std::int32_t>> kept(subscribers.size());
      for (std::size_t s = 0; s < subscribers.size(); ++s) {
        for (const TopicPartition tp : members[subscribers[s]].owned) {
          if (tp.topic == topic && tp.partition < count && !taken[static_cast<std::size_t>(tp.partition)]) {
            kept[s].push_back(tp.partition);
          }
        }
        std::sort(kept[s].begin(), kept[s].end());
        std::int32_t quota = min_quota;
        if (static_cast<std::int32_t>(kept[s].size()) > min_quota && extras > 0) {
          quota = min_quota + 1;
          --extras;
        }
        if (static_cast<std::int32_t>(kept[s].size()) > quota) kept[s].resize(static_cast<std::size_t>(quota));
        for (const std::int32_t p : kept[s]) taken[static_cast<std::size_t>(p)] = true;
      }
      std::int32_t next = 0;
      const auto fill = [&](std::size_t s, std::int32_t quota) {
        while (static_cast<std::int32_t>(kept[s].size()) < quota) {
          while (next < count && taken[static_cast<std::size_t>(next)]) ++next;
          if (next >= count) return;
          taken[static_cast<std::size_t>(next)] = true;
          kept[s].push_back(next);
        }
      };
      for (std::size_t s = 0; s < subscribers.size(); ++s) fill(s, min_quota);
      for (std::size_t s = 0; s < subscribers.size() && extras > 0; ++s) {
        if (static_cast<std::int32_t>(kept[s].size()) != min_quota) continue;
        fill(s, min_quota + 1);
        --extras;
      }
      for (std::size_t s = 0; s < subscribers.size(); ++s) {
        auto& out = result[members[subscribers[s]].member_id];
        for (const std::int32_t p : kept[s]) out.push_back({topic, p});
      }
    }
    for (auto& [id, partitions] : result) std::sort(partitions.begin(), partitions.end());
    return result;
  }
};

// RangeAssignor (server side): per topic, contiguous ranges in member-id
// order, the first P mod M members one partition more.
class RangeServerAssignor final : public ServerAssignor {
 public:
  std::string_view name() const override { return "range"; }
  Assignment assign(const std::map<std::int32_t, std::int32_t>& partitions_per_topic,
                    const std::vector<MemberSubscription>& members) const override {
    Assignment result;
    for (const MemberSubscription& m : members) result[m.member_id];
    for (const auto& [topic, count] : partitions_per_topic) {
      const std::vector<std::size_t> subscribers = subscribers_of(topic, members);
      if (subscribers.empty()) continue;
      const auto n = static_cast<std::int32_t>(subscribers.size());
      std::int32_t start = 0;
      for (std::int32_t s = 0; s < n; ++s) {
        const std::int32_t length = count / n + (s < count % n ? 1 : 0);
        auto& out = result[members[subscribers[static_cast<std::size_t>(s)]].member_id];
        for (std::int32_t p = start; p < start + length; ++p) out.push_back({topic, p});
        start += length;
      }
    }
    for (auto& [id, partitions] : result) std::sort(partitions.begin(), partitions.end());
    return result;
  }
};

}  // namespace

std::unique_ptr<ServerAssignor> make_server_assignor(std::string_view name) {
  if (name == "uniform" || name == "org.apache.kafka.coordinator.group.assignor.UniformAssignor") {
    return std::make_unique<UniformServerAssignor>();
  }
  if (name == "range" || name == "org.apache.kafka.coordinator.group.assignor.RangeAssignor") {
    return std::make_unique<RangeServerAssignor>();
  }
  return nullptr;
}

const std::vector<std::string>& server_assignor_names() {
  static const std::vector<std::string> names{"uniform", "range"};
  return names;
}

}  // namespace ksim::models
