// The sticky assignors: Kafka's AbstractStickyAssignor (its constrained and
// general algorithms), StickyAssignor and CooperativeStickyAssignor.
#include <algorithm>
#include <cassert>
#include <deque>
#include <set>
#include <utility>

#include "models/client/consumer/assignors/assignor_group.hpp"

namespace ksim::models::assignor_detail {

namespace {

// ---------------------------------------------------------------------------
// AbstractStickyAssignor: which previous claims stand.

struct Ownership {
  std::map<std::string, std::vector<TopicPartition>> owned;  // every member: its claims that stand, sorted
  std::set<TopicPartition> multiply_claimed;  // partitionsWithMultiplePreviousOwners
  std::int32_t max_generation = kDefaultGeneration;
};

// allSubscriptionsEqual's claim resolution (KAFKA-12984): a partition of a subscribed topic
// stays with its claimant of the highest generation; when several claim it in that same
// generation, none keeps it.
Ownership resolve_ownership(const Group& group) {
  Ownership ownership;
  std::map<TopicPartition, std::vector<const Member*>> claimants;
  for (const Member& member : group.members) {
    ownership.owned[member.id];
    ownership.max_generation = std::max(ownership.max_generation, member.generation);
    for (const TopicPartition& tp : member.owned) {
      if (exists(group, tp)) claimants[tp].push_back(&member);
    }
  }
  for (const auto& [tp, members] : claimants) {
    const Member* newest = members.front();
    bool tie = false;
    for (const Member* member : members) {
      if (member->generation > newest->generation) {
        newest = member;
        tie = false;
      } else if (member != newest && member->generation == newest->generation) {
        tie = true;
      }
    }
    if (tie) ownership.multiply_claimed.insert(tp);
    else ownership.owned[newest->id].push_back(tp);
  }
  return ownership;
}

bool all_subscriptions_equal(const Group& group) {
  return std::all_of(group.members.begin(), group.members.end(),
                     [&](const Member& m) { return m.topics == group.members.front().topics; });
}

// ---------------------------------------------------------------------------
// AbstractStickyAssignor.ConstrainedAssignmentBuilder: every member subscribes to the same
// topics. Keep owned partitions up to the quota, then fill the members round-robin.

class ConstrainedBuilder {
 public:
  ConstrainedBuilder(const Group& group, const Ownership& ownership) : group_(group), ownership_(ownership) {
    std::int32_t total = 0;
    for (const auto& [topic, count] : group.partitions) total += count;
    const auto members = static_cast<std::int32_t>(group.members.size());
    min_quota_ = total / members;
    max_quota_ = (total + members - 1) / members;
    expected_over_min_ = total % members;
    assignment_ = empty_assignment(group);
  }

  Assignment build() {
    assign_owned_partitions();
    std::sort(under_min_.begin(), under_min_.end());
    std::sort(exactly_min_.begin(), exactly_min_.end());
    assign_round_robin(unassigned_partitions());
    verify_unfilled_members();
    return assignment_;
  }

  const Transfers& transferring() const { return transferring_; }

 private:
  // assignOwnedPartitions: owned lists sorted by partition, then topic (KAFKA-16277).
  void assign_owned_partitions() {
    for (const Member& member : group_.members) {
      std::vector<TopicPartition> owned = ownership_.owned.at(member.id);
      std::sort(owned.begin(), owned.end(), [](const TopicPartition& a, const TopicPartition& b) {
        return std::pair(a.partition, a.topic) < std::pair(b.partition, b.topic);
      });
      const auto size = static_cast<std::int32_t>(owned.size());
      if (size < min_quota_) {
        keep(member.id, owned, size);
        under_min_.push_back(member.id);
      } else if (size >= max_quota_ && current_over_min_ < expected_over_min_) {
        if (++current_over_min_ == expected_over_min_) exactly_min_.clear();
        keep(member.id, owned, max_quota_);
      } else {
        keep(member.id, owned, min_quota_);
        if (current_over_min_ < expected_over_min_) exactly_min_.push_back(member.id);
      }
    }
  }

  // The first `count` owned partitions stay; the rest are revoked.
  void keep(const std::string& member, const std::vector<TopicPartition>& owned, std::int32_t count) {
    for (std::size_t i = 0; i < owned.size(); ++i) {
      if (static_cast<std::int32_t>(i) < count) {
        assignment_[member].push_back(owned[i]);
        assigned_.insert(owned[i]);
      } else {
        revoked_.insert(owned[i]);
      }
    }
  }

  std::vector<TopicPartition> unassigned_partitions() const {
    std::vector<TopicPartition> unassigned;
    for (const auto& [topic, count] : group_.partitions) {
      for (std::int32_t p = 0; p < count; ++p) {
        if (!assigned_.contains({topic, p})) unassigned.push_back({topic, p});
      }
    }
    return unassigned;
  }

  // assignRoundRobin: members under minQuota in turn, then those at minQuota up to maxQuota.
  void assign_round_robin(const std::vector<TopicPartition>& unassigned) {
    std::size_t next = 0;  // the iterator over under_min_
    for (const TopicPartition& tp : unassigned) {
      bool from_under_min = true;
      if (next >= under_min_.size()) {
        assert((!under_min_.empty() || !exactly_min_.empty()) && "no more unfilled consumers to be assigned");
        if (under_min_.empty()) from_under_min = false;
        else next = 0;
      }
      std::string consumer;
      if (from_under_min) {
        consumer = under_min_[next];
      } else {
        consumer = exactly_min_.front();
        exactly_min_.pop_front();
      }
      const std::int32_t count = assign_new_partition(tp, consumer);
      if (from_under_min && count == min_quota_) {
        under_min_.erase(under_min_.begin() + static_cast<std::ptrdiff_t>(next));
        exactly_min_.push_back(consumer);
        continue;
      }
      if (from_under_min) ++next;
      if (count == max_quota_) ++current_over_min_;
    }
  }

  std::int32_t assign_new_partition(const TopicPartition& tp, const std::string& consumer) {
    auto& partitions = assignment_[consumer];
    partitions.push_back(tp);
    // Owned partitions were all kept first, so this one is new to `consumer`.
    if (revoked_.contains(tp) || ownership_.multiply_claimed.contains(tp)) transferring_[tp] = consumer;
    return static_cast<std::int32_t>(partitions.size());
  }

  void verify_unfilled_members() const {
    if (under_min_.empty()) return;
    assert(current_over_min_ == expected_over_min_ && "unfilled members but no partitions left");
    for ([[maybe_unused]] const std::string& member : under_min_) {
      assert(static_cast<std::int32_t>(assignment_.at(member).size()) == min_quota_);
    }
  }

  const Group& group_;
  const Ownership& ownership_;
  std::int32_t min_quota_ = 0;
  std::int32_t max_quota_ = 0;
  std::int32_t expected_over_min_ = 0;  // members that end with maxQuota (0 when min == max)
  std::int32_t current_over_min_ = 0;
  std::vector<std::string> under_min_;   // unfilledMembersWithUnderMinQuotaPartitions
  std::deque<std::string> exactly_min_;  // unfilledMembersWithExactlyMinQuotaPartitions
  std::set<TopicPartition> assigned_;
  std::set<TopicPartition> revoked_;     // allRevokedPartitions
  Assignment assignment_;
  Transfers transferring_;               // partitionsTransferringOwnership
};

// ---------------------------------------------------------------------------
// AbstractStickyAssignor.PartitionMovements: the moves made while balancing, so that a
// partition is not moved along a chain when an earlier move can be undone instead.

class PartitionMovements {
 public:
  void move(const TopicPartition& tp, const std::string& from, const std::string& to) {
    const auto it = moves_.find(tp);
    if (it == moves_.end()) {
      add(tp, {from, to});
      return;
    }
    const Move earlier = it->second;
    erase(tp);
    if (earlier.src != to) add(tp, {earlier.src, to});  // not back to where it was
  }

  // getTheActualPartitionToBeMoved
  TopicPartition partition_to_move(const TopicPartition& tp, std::string from, const std::string& to) const {
    const auto topic = by_topic_.find(tp.topic);
    if (topic == by_topic_.end()) return tp;
    if (const auto it = moves_.find(tp); it != moves_.end()) from = it->second.src;
    const auto reverse = topic->second.find(Move{to, from});
    if (reverse == topic->second.end()) return tp;
    return *reverse->second.begin();  // Kafka takes any (a HashSet's first); ksim the lowest
  }

 private:
  struct Move {
    std::string src;
    std::string dst;
    auto operator<=>(const Move&) const = default;
  };

  void add(const TopicPartition& tp, const Move& move) {
    moves_[tp] = move;
    by_topic_[tp.topic][move].insert(tp);
  }

  void erase(const TopicPartition& tp) {
    const Move move = moves_.at(tp);
    moves_.erase(tp);
    auto& topic = by_topic_.at(tp.topic);
    auto& partitions = topic.at(move);
    partitions.erase(tp);
    if (partitions.empty()) topic.erase(move);
    if (topic.empty()) by_topic_.erase(tp.topic);
  }

  std::map<TopicPartition, Move> moves_;
  std::map<Topic, std::map<Move, std::set<TopicPartition>>> by_topic_;
};

// ---------------------------------------------------------------------------
// AbstractStickyAssignor.GeneralAssignmentBuilder: subscriptions differ. Keep what is still
// valid, give the rest to the least loaded, then move partitions while that improves balance.

class GeneralBuilder {
 public:
  GeneralBuilder(const Group& group, const Ownership& ownership) : group_(group), ownership_(ownership) {
    for (const auto& [topic, count] : group.partitions) consumers_[topic];
    for (const Member& member : group.members) {
      auto& topics = topics_[member.id];
      for (const Topic topic : member.topics) {
        if (!group.partitions.contains(topic)) continue;
        topics.insert(topic);
        consumers_[topic].push_back(member.id);
      }
      current_[member.id];
    }
  }

  Assignment build() {
    prepopulate_prev_assignment();
    const std::set<TopicPartition> assigned = assign_owned_partitions();
    std::vector<TopicPartition> all = sorted_all_partitions();
    std::vector<TopicPartition> unassigned;
    for (const TopicPartition& tp : all) {
      if (!assigned.contains(tp)) unassigned.push_back(tp);
    }
    for (const auto& [member, partitions] : current_) by_load_.insert({partitions.size(), member});
    balance(std::move(all), std::move(unassigned));
    Assignment assignment;
    for (const auto& [member, partitions] : current_) assignment[member] = {partitions.begin(), partitions.end()};
    return assignment;
  }

 private:
  using Partitions = std::set<TopicPartition>;

  // prevAssignment: claims of older generations, the newest of them per partition.
  void prepopulate_prev_assignment() {
    for (const Member& member : group_.members) {
      if (member.generation >= ownership_.max_generation) continue;
      for (const TopicPartition& tp : member.owned) {
        const auto it = prev_.find(tp);
        if (it == prev_.end() || member.generation > it->second.second) prev_[tp] = {member.id, member.generation};
      }
    }
  }

  std::set<TopicPartition> assign_owned_partitions() {
    std::set<TopicPartition> assigned;
    for (const Member& member : group_.members) {
      for (const TopicPartition& tp : ownership_.owned.at(member.id)) {
        if (!member.topics.contains(tp.topic)) {
          revocation_required_ = true;  // no longer subscribed: it has to move
          continue;
        }
        add(member.id, tp);
        assigned.insert(tp);
      }
    }
    return assigned;
  }

  // Topics with fewer potential consumers first (TopicComparator), then by topic.
  std::vector<TopicPartition> sorted_all_partitions() const {
    std::vector<std::pair<std::size_t, Topic>> topics;
    for (const auto& [topic, consumers] : consumers_) topics.emplace_back(consumers.size(), topic);
    std::sort(topics.begin(), topics.end());
    std::vector<TopicPartition> all;
    for (const auto& [consumers, topic] : topics) {
      for (std::int32_t p = 0; p < group_.partitions.at(topic); ++p) all.push_back({topic, p});
    }
    return all;
  }

  void balance(std::vector<TopicPartition> all, std::vector<TopicPartition> unassigned) {
    const bool initializing = by_load_.empty() || by_load_.rbegin()->first == 0;
    for (const TopicPartition& tp : unassigned) assign_to_least_loaded(tp);

    // Narrow down to what can move: topics with two or more potential consumers ...
    const auto fixed = [&](const TopicPartition& tp) { return consumers_.at(tp.topic).size() < 2; };
    std::erase_if(all, fixed);
    std::erase_if(unassigned, fixed);
    // ... and consumers that could get or give a partition.
    for (const auto& [member, topics] : topics_) {
      if (can_participate(member)) continue;
      by_load_.erase({load(member), member});
      fixed_.insert(member);
    }

    const auto pre_balance = current_;
    const auto pre_balance_owners = owner_;
    const long pre_balance_score = balance_score();
    if (!revocation_required_) perform_reassignments(unassigned);  // first move only new partitions
    const bool performed = perform_reassignments(all);
    if (!initializing && performed && balance_score() >= pre_balance_score) {
      current_ = pre_balance;
      owner_ = pre_balance_owners;
    }
  }

  void assign_to_least_loaded(const TopicPartition& tp) {
    if (const auto member = least_loaded_subscriber(tp.topic)) add(*member, tp);
  }

  std::optional<std::string> least_loaded_subscriber(Topic topic) const {
    for (const auto& [load, member] : by_load_) {
      if (topics_.at(member).contains(topic)) return member;
    }
    return std::nullopt;
  }

  std::size_t max_assignment_size(const std::string& member) const {
    std::size_t size = 0;
    for (const Topic topic : topics_.at(member)) size += static_cast<std::size_t>(group_.partitions.at(topic));
    return size;
  }

  bool can_participate(const std::string& member) const {
    if (load(member) < max_assignment_size(member)) return true;
    const Partitions& partitions = current_.at(member);
    return std::any_of(partitions.begin(), partitions.end(),
                       [&](const TopicPartition& tp) { return consumers_.at(tp.topic).size() >= 2; });
  }

  // isBalanced: loads within one, or no partition could move to a less loaded consumer.
  bool is_balanced() const {
    if (by_load_.empty() || by_load_.begin()->first + 1 >= by_load_.rbegin()->first) return true;
    for (const auto& [member_load, member] : by_load_) {
      if (member_load == max_assignment_size(member)) continue;
      for (const Topic topic : topics_.at(member)) {
        for (std::int32_t p = 0; p < group_.partitions.at(topic); ++p) {
          const TopicPartition tp{topic, p};
          if (current_.at(member).contains(tp)) continue;
          if (member_load + 1 < load(owner_.at(tp))) return false;
        }
      }
    }
    return true;
  }

  // Sum of load differences over all pairs of (non-fixed) consumers (getBalanceScore).
  long balance_score() const {
    long score = 0;
    for (auto a = by_load_.begin(); a != by_load_.end(); ++a) {
      for (auto b = std::next(a); b != by_load_.end(); ++b) score += static_cast<long>(b->first - a->first);
    }
    return score;
  }

  bool perform_reassignments(const std::vector<TopicPartition>& reassignable) {
    bool performed = false;
    for (std::size_t pass = 0;; ++pass) {
      if (pass == livelock_passes()) direct_moves_ = true;
      bool modified = false;
      for (const TopicPartition& tp : reassignable) {
        if (is_balanced()) break;
        if (reassign_if_unbalanced(tp)) performed = modified = true;
      }
      if (!modified) return performed;
    }
  }

  // Kafka repeats passes until one moves nothing. Its PartitionMovements substitution can make
  // that a livelock: moving p (which came from C) from A to B is replaced by undoing an earlier
  // move of q from B to C, and the next check moves q from B to C again, forever. Kafka's groups
  // settle within a few passes; past this many, ksim moves the partition itself, which strictly
  // evens the loads, so balancing ends.
  std::size_t livelock_passes() const { return 2 * group_.members.size() + 16; }

  bool reassign_if_unbalanced(const TopicPartition& tp) {
    const std::string consumer = owner_.at(tp);
    // Back to its previous owner (an older generation's claim) when that evens the loads.
    if (const auto prev = usable_prev_owner(tp); prev && load(consumer) > load(*prev) + 1) {
      reassign(tp, *prev);
      return true;
    }
    for (const std::string& other : consumers_.at(tp.topic)) {
      if (load(consumer) > load(other) + 1) {
        reassign(tp, *least_loaded_subscriber(tp.topic));
        return true;
      }
    }
    return false;
  }

  // Kafka looks the previous owner up unchecked; ksim skips one that cannot take the partition
  // (no longer subscribed to the topic, or fixed), where Kafka would misassign or fail.
  std::optional<std::string> usable_prev_owner(const TopicPartition& tp) const {
    const auto it = prev_.find(tp);
    if (it == prev_.end()) return std::nullopt;
    const std::string& prev = it->second.first;
    if (fixed_.contains(prev) || !topics_.at(prev).contains(tp.topic)) return std::nullopt;
    return prev;
  }

  void reassign(const TopicPartition& tp, const std::string& new_consumer) {
    const TopicPartition actual = direct_moves_ ? tp : movements_.partition_to_move(tp, owner_.at(tp), new_consumer);
    const std::string old_consumer = owner_.at(actual);
    movements_.move(actual, old_consumer, new_consumer);
    remove(old_consumer, actual);
    add(new_consumer, actual);
  }

  std::size_t load(const std::string& member) const { return current_.at(member).size(); }

  void add(const std::string& member, const TopicPartition& tp) {
    update_load(member, [&](Partitions& partitions) { partitions.insert(tp); });
    owner_[tp] = member;
  }

  void remove(const std::string& member, const TopicPartition& tp) {
    update_load(member, [&](Partitions& partitions) { partitions.erase(tp); });
  }

  // sortedCurrentSubscriptions is ordered by load: take the member out while its load changes.
  template <typename Change>
  void update_load(const std::string& member, Change change) {
    Partitions& partitions = current_.at(member);
    const bool tracked = by_load_.erase({partitions.size(), member}) > 0;
    change(partitions);
    if (tracked) by_load_.insert({partitions.size(), member});
  }

  const Group& group_;
  const Ownership& ownership_;
  std::map<std::string, std::set<Topic>> topics_;              // consumer2AllPotentialTopics
  std::map<Topic, std::vector<std::string>> consumers_;        // topic2AllPotentialConsumers
  std::map<std::string, Partitions> current_;                  // currentAssignment
  std::map<TopicPartition, std::string> owner_;                // currentPartitionConsumer
  std::set<std::pair<std::size_t, std::string>> by_load_;      // sortedCurrentSubscriptions
  std::set<std::string> fixed_;                                // fixedAssignments' members
  std::map<TopicPartition, std::pair<std::string, std::int32_t>> prev_;  // prevAssignment
  PartitionMovements movements_;
  bool revocation_required_ = false;
  bool direct_moves_ = false;  // the livelock guard has tripped
};

// ---------------------------------------------------------------------------
// StickyAssignor and CooperativeStickyAssignor.

struct StickyResult {
  Assignment assignment;
  std::optional<Transfers> transferring;  // known by the constrained builder only
};

StickyResult sticky_assign(const Group& group) {
  if (group.members.empty()) return {};
  const Ownership ownership = resolve_ownership(group);
  if (all_subscriptions_equal(group)) {
    ConstrainedBuilder builder(group, ownership);
    Assignment assignment = builder.build();
    return {std::move(assignment), builder.transferring()};
  }
  return {GeneralBuilder(group, ownership).build(), std::nullopt};
}

class StickyAssignor final : public Assignor {
 public:
  std::string_view name() const override { return "sticky"; }
  std::vector<RebalanceProtocol> supported_protocols() const override { return {RebalanceProtocol::Eager}; }

  Assignment assign(const PartitionCounts& partitions_per_topic,
                    const std::vector<MemberSubscription>& members) const override {
    Assignment assignment = sticky_assign(make_group(partitions_per_topic, members)).assignment;
    sort_lists(assignment);
    return assignment;
  }
};

class CooperativeStickyAssignor final : public Assignor {
 public:
  std::string_view name() const override { return "cooperative-sticky"; }
  std::vector<RebalanceProtocol> supported_protocols() const override {
    return {RebalanceProtocol::Cooperative, RebalanceProtocol::Eager};
  }

  // The sticky assignment minus every partition that changes owner: the owner revokes it
  // first, and the follow-up rebalance assigns it (adjustAssignment).
  Assignment assign(const PartitionCounts& partitions_per_topic,
                    const std::vector<MemberSubscription>& members) const override {
    const Group group = make_group(partitions_per_topic, members);
    StickyResult result = sticky_assign(group);
    const Transfers transferring = result.transferring ? *result.transferring : transfers(group, result.assignment);
    for (const auto& [tp, member] : transferring) std::erase(result.assignment.at(member), tp);
    sort_lists(result.assignment);
    return result.assignment;
  }

 private:
  // computePartitionsTransferringOwnership: added to one member while revoked from another.
  static Transfers transfers(const Group& group, const Assignment& assignment) {
    Transfers added;
    std::set<TopicPartition> revoked;
    for (const Member& member : group.members) {
      const auto& assigned = assignment.at(member.id);
      const std::set<TopicPartition> assigned_set(assigned.begin(), assigned.end());
      for (const TopicPartition& tp : assigned) {
        if (!member.owned.contains(tp)) added[tp] = member.id;
      }
      for (const TopicPartition& tp : member.owned) {
        if (!assigned_set.contains(tp)) revoked.insert(tp);
      }
    }
    std::erase_if(added, [&](const auto& entry) { return !revoked.contains(entry.first); });
    return added;
  }
};



}  // namespace

std::unique_ptr<Assignor> make_sticky_assignor() { return std::make_unique<StickyAssignor>(); }
std::unique_ptr<Assignor> make_cooperative_sticky_assignor() { return std::make_unique<CooperativeStickyAssignor>(); }

}  // namespace ksim::models::assignor_detail
