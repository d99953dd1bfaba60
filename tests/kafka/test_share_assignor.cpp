// KIP-932's simple share assignor as Kafka 4.1+ computes it
// (SimpleHomogeneousAssignmentBuilder, KAFKA-19362): partitions shared by
// ceil(members / partitions) members, an even part per member, sticky.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "models/coordinator/share_assignor.hpp"

using ksim::models::simple_share_assignment;

namespace {

using ShareTarget = std::map<std::string, std::set<std::int32_t>>;

// How many members each partition has.
std::map<std::int32_t, int> share_sharing(const ShareTarget& target) {
  std::map<std::int32_t, int> out;
  for (const auto& [member, partitions] : target) {
    for (const std::int32_t p : partitions) ++out[p];
  }
  return out;
}

}  // namespace

TEST_CASE("the simple share assignor: one member per partition while there are more partitions", "[share][assignor]") {
  const ShareTarget target = simple_share_assignment({"a", "b", "c"}, 6, {});
  for (const auto& [member, partitions] : target) CHECK(partitions.size() == 2);
  const auto sharing = share_sharing(target);
  CHECK(sharing.size() == 6);
  for (const auto& [p, members] : sharing) CHECK(members == 1);
}

TEST_CASE("the simple share assignor: more members than partitions share each partition", "[share][assignor]") {
  const ShareTarget target = simple_share_assignment({"a", "b", "c", "d"}, 2, {});
  for (const auto& [member, partitions] : target) CHECK(partitions.size() == 1);
  for (const auto& [p, members] : share_sharing(target)) CHECK(members == 2);
  // Two members, one partition: both have it.
  const ShareTarget one = simple_share_assignment({"fast", "slow"}, 1, {});
  CHECK(one.at("fast") == std::set<std::int32_t>{0});
  CHECK(one.at("slow") == std::set<std::int32_t>{0});
}

TEST_CASE("the simple share assignor keeps what members had and moves only a departed member's partitions",
          "[share][assignor]") {
  const ShareTarget before = simple_share_assignment({"a", "b", "c"}, 6, {});
  ShareTarget current = before;
  current.erase("b");
  const ShareTarget after = simple_share_assignment({"a", "c"}, 6, current);
  for (const std::string m : {"a", "c"}) {
    CHECK(after.at(m).size() == 3);
    for (const std::int32_t p : before.at(m)) CHECK(after.at(m).contains(p));  // kept
  }
  for (const auto& [p, members] : share_sharing(after)) CHECK(members == 1);
  // A new member takes its share from the others, who keep the rest.
  const ShareTarget grown = simple_share_assignment({"a", "c", "d"}, 6, after);
  CHECK(grown.at("d").size() == 2);
  for (const std::string m : {"a", "c"}) {
    CHECK(grown.at(m).size() == 2);
    for (const std::int32_t p : grown.at(m)) CHECK(after.at(m).contains(p));
  }
}
