// SimpleHomogeneousAssignmentBuilder (Kafka 4.1+, KAFKA-19362), step by
// step: keep each member's current partitions, revoke from members over
// their quota and from partitions shared by more members than desired, then
// hand the partitions still short of members to the members short of
// partitions, round robin. Kafka iterates hash sets and maps of small
// integers (member indices: ascending) and of topic partitions (an order of
// their hashes); ksim iterates partitions in ascending order too.
#include "models/coordinator/share_assignor.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace ksim::models {

std::map<std::string, std::set<std::int32_t>> simple_share_assignment(
    const std::vector<std::string>& members, std::int32_t partitions,
    const std::map<std::string, std::set<std::int32_t>>& current) {
  std::map<std::string, std::set<std::int32_t>> out;
  const auto m = static_cast<std::int64_t>(members.size());
  if (m == 0) return out;
  for (const std::string& id : members) out[id];
  if (partitions <= 0) return out;
  const std::int64_t n = partitions;
  const std::int64_t sharing = (m + n - 1) / n;  // desiredSharing
  // desiredAssignmentCount: ceil(precise * (i + 1)) - ceil(precise * i), precise = sharing * n / m.
  std::vector<std::int64_t> quota(static_cast<std::size_t>(m));
  const double precise = static_cast<double>(sharing * n) / static_cast<double>(m);
  for (std::int64_t i = 0; i < m; ++i) {
    quota[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(std::ceil(precise * static_cast<double>(i + 1))) -
                                         static_cast<std::int64_t>(std::ceil(precise * static_cast<double>(i)));
  }
  std::vector<std::set<std::int32_t>> by_member(static_cast<std::size_t>(m));
  std::vector<std::set<std::size_t>> by_partition(static_cast<std::size_t>(n));
  std::set<std::size_t> unfilled, overfilled;
  // revokeUnassignablePartitions: the current assignment, within the topic.
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (const auto it = current.find(members[i]); it != current.end()) {
      for (const std::int32_t p : it->second) {
        if (p < 0 || p >= partitions) continue;
        by_member[i].insert(p);
        by_partition[static_cast<std::size_t>(p)].insert(i);
      }
    }
    const auto held = static_cast<std::int64_t>(by_member[i].size());
    if (held < quota[i]) unfilled.insert(i);
    if (held > quota[i]) overfilled.insert(i);
  }
  // revokeOverfilledMembers: the first partitions go until the member is at its quota.
  for (const std::size_t i : overfilled) {
    auto& mine = by_member[i];
    for (auto it = mine.begin(); it != mine.end() && static_cast<std::int64_t>(mine.size()) > quota[i];) {
      by_partition[static_cast<std::size_t>(*it)].erase(i);
      it = mine.erase(it);
    }
  }
  // revokeOversharedPartitions: the first members go until the partition is shared as desired.
  for (std::size_t p = 0; p < by_partition.size(); ++p) {
    auto& holders = by_partition[p];
    for (auto it = holders.begin(); it != holders.end() && static_cast<std::int64_t>(holders.size()) > sharing;) {
      by_member[*it].erase(static_cast<std::int32_t>(p));
      unfilled.insert(*it);
      it = holders.erase(it);
    }
  }
  // assignRemainingPartitions: one round-robin pass over the members short of
  // partitions, carried on from partition to partition, started again while
  // the last pass assigned something.
  auto next = unfilled.begin();
  bool assigned_this_pass = false;
  for (std::size_t p = 0; p < by_partition.size() && !unfilled.empty(); ++p) {
    auto& holders = by_partition[p];
    auto to_make = sharing - static_cast<std::int64_t>(holders.size());
    while (to_make > 0) {
      if (next == unfilled.end()) {
        if (!assigned_this_pass || unfilled.empty()) break;
        next = unfilled.begin();
        assigned_this_pass = false;
      }
      const std::size_t i = *next;
      if (holders.contains(i)) {
        ++next;
        continue;
      }
      holders.insert(i);
      by_member[i].insert(static_cast<std::int32_t>(p));
      --to_make;
      assigned_this_pass = true;
      next = static_cast<std::int64_t>(by_member[i].size()) >= quota[i] ? unfilled.erase(next) : std::next(next);
    }
  }
  for (std::size_t i = 0; i < members.size(); ++i) out[members[i]] = std::move(by_member[i]);
  return out;
}

}  // namespace ksim::models
