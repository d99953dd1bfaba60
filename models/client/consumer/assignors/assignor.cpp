#include "models/client/consumer/assignors/assignor.hpp"
#include "models/client/consumer/assignors/assignor_group.hpp"

#include <algorithm>
#include <cassert>
#include <deque>
#include <set>
#include <utility>

namespace ksim::models {

using namespace assignor_detail;

namespace {

// ---------------------------------------------------------------------------
// RangeAssignor: per topic, consecutive ranges; the first (partitions % members) get one more.

class RangeAssignor final : public Assignor {
 public:
  std::string_view name() const override { return "range"; }
  std::vector<RebalanceProtocol> supported_protocols() const override { return {RebalanceProtocol::Eager}; }

  Assignment assign(const PartitionCounts& partitions_per_topic,
                    const std::vector<MemberSubscription>& members) const override {
    const Group group = make_group(partitions_per_topic, members);
    Assignment assignment = empty_assignment(group);
    for (const auto& [topic, count] : group.partitions) assign_ranges(topic, count, sorted_member_infos(group, topic), assignment);
    sort_lists(assignment);
    return assignment;
  }

 private:
  static void assign_ranges(Topic topic, std::int32_t count, const std::vector<const Member*>& consumers,
                            Assignment& assignment) {
    const auto n = static_cast<std::int32_t>(consumers.size());
    const std::int32_t per_consumer = count / n;
    const std::int32_t with_extra = count % n;
    for (std::int32_t i = 0; i < n; ++i) {
      const std::int32_t start = per_consumer * i + std::min(i, with_extra);
      const std::int32_t length = per_consumer + (i + 1 > with_extra ? 0 : 1);
      auto& partitions = assignment[consumers[static_cast<std::size_t>(i)]->id];
      for (std::int32_t p = start; p < start + length; ++p) partitions.push_back({topic, p});
    }
  }
};

// ---------------------------------------------------------------------------
// RoundRobinAssignor: all partitions in (topic, partition) order dealt to the members in
// MemberInfo order by a CircularIterator, skipping members not subscribed to the topic.

class RoundRobinAssignor final : public Assignor {
 public:
  std::string_view name() const override { return "roundrobin"; }
  std::vector<RebalanceProtocol> supported_protocols() const override { return {RebalanceProtocol::Eager}; }

  Assignment assign(const PartitionCounts& partitions_per_topic,
                    const std::vector<MemberSubscription>& members) const override {
    const Group group = make_group(partitions_per_topic, members);
    Assignment assignment = empty_assignment(group);
    const std::vector<const Member*> circle = sorted_member_infos(group, std::nullopt);
    std::size_t next = 0;
    for (const auto& [topic, count] : group.partitions) {
      for (std::int32_t p = 0; p < count; ++p) {
        while (!circle[next]->topics.contains(topic)) next = (next + 1) % circle.size();
        assignment[circle[next]->id].push_back({topic, p});
        next = (next + 1) % circle.size();
      }
    }
    sort_lists(assignment);
    return assignment;
  }
};

constexpr std::string_view kClassPrefix = "org.apache.kafka.clients.consumer.";

}  // namespace

std::unique_ptr<Assignor> make_assignor(std::string_view name) {
  if (name == "range" || name == std::string(kClassPrefix) + "RangeAssignor") return std::make_unique<RangeAssignor>();
  if (name == "roundrobin" || name == std::string(kClassPrefix) + "RoundRobinAssignor") {
    return std::make_unique<RoundRobinAssignor>();
  }
  if (name == "sticky" || name == std::string(kClassPrefix) + "StickyAssignor") return make_sticky_assignor();
  if (name == "cooperative-sticky" || name == std::string(kClassPrefix) + "CooperativeStickyAssignor") {
    return make_cooperative_sticky_assignor();
  }
  return nullptr;
}

const std::vector<std::string>& assignor_names() {
  static const std::vector<std::string> names{"range", "roundrobin", "sticky", "cooperative-sticky"};
  return names;
}

// ConsumerCoordinator: the protocols every assignor supports; of those, the highest.
RebalanceProtocol common_protocol(const std::vector<std::string>& assignors) {
  assert(!assignors.empty());
  std::vector<RebalanceProtocol> common{RebalanceProtocol::Eager, RebalanceProtocol::Cooperative};
  for (const std::string& name : assignors) {
    const auto assignor = make_assignor(name);
    assert(assignor && "unknown assignor");
    if (!assignor) continue;
    const auto supported = assignor->supported_protocols();
    std::erase_if(common, [&](RebalanceProtocol p) {
      return std::find(supported.begin(), supported.end(), p) == supported.end();
    });
  }
  assert(!common.empty());
  return common.empty() ? RebalanceProtocol::Eager : *std::max_element(common.begin(), common.end());
}

}  // namespace ksim::models
