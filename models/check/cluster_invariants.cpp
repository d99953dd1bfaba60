#include "models/check/cluster_invariants.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace ksim::models {

namespace {

constexpr Invariant kInvariants[] = {
    {"single_leader_per_epoch", "one leader epoch of a partition belongs to one broker, for the whole run"},
    {"high_watermark_monotonic", "a partition's high watermark never goes back within a leader epoch"},
    {"high_watermark_within_isr",
     "a leader's high watermark never exceeds the log end offset of a running ISR member that has not lost its "
     "log's tail (power loss, truncation before KIP-101) since it last reached the high watermark"},
};

}  // namespace

std::string to_string(const InvariantViolation& v) {
  return fmt::format("{} at {}ns (seed {}), partition {}-{}, broker {}: {}", v.invariant, v.at, v.seed,
                     v.partition.topic, v.partition.partition, v.broker, v.detail);
}

std::span<const Invariant> ClusterInvariants::all() { return kInvariants; }

ClusterInvariants::ClusterInvariants(std::vector<Broker*> brokers, const Controller& controller, std::uint64_t seed,
                                     Scope scope)
    : brokers_(std::move(brokers)), controller_(controller), seed_(seed), scope_(scope) {
  for (Broker* b : brokers_) b->set_partition_listener(this);
}

void ClusterInvariants::on_event(const Node&, const ModelEvent& event) {
  if (const auto* t = std::get_if<LogTruncated>(&event)) {
    // Losses Kafka does not detect (before KIP-966): not the model's fault.
    if (t->cause != TruncationCause::Divergence) lost_tail_.emplace(t->broker, t->partition);
  }
}

void ClusterInvariants::on_node(const Node& node, NodeChange change) {
  if (change.kind != NodeChange::Kind::Started && change.kind != NodeChange::Kind::Resumed) return;
  for (const Broker* b : brokers_) {
    if (b->id() != node.id()) continue;
    // Its logs count again for the ISRs it is in: check every partition it hosts.
    for (const TopicPartition tp : b->hosted_partitions()) changed_.push_back(tp);
  }
}

void ClusterInvariants::after_event(SimTime now) {
  if (scope_ == Scope::Everything) {
    changed_.clear();
    for (const auto& [tp, state] : controller_.partitions()) check(tp, now);
    return;
  }
  if (changed_.empty()) return;
  std::sort(changed_.begin(), changed_.end());
  changed_.erase(std::unique(changed_.begin(), changed_.end()), changed_.end());
  for (const TopicPartition tp : changed_) check(tp, now);
  changed_.clear();
}

void ClusterInvariants::check(TopicPartition tp, SimTime now) {
  for (const Broker* b : brokers_) {
    if (!b->is_leader(tp)) continue;
    check_leader(*b, *b->partition(tp), now);
  }
}

template <class Detail>
void ClusterInvariants::verdict(bool holds, std::string_view invariant, TopicPartition tp, BrokerId broker,
                                SimTime now, const Detail& detail) {
  if (holds) {
    if (!broken_.empty()) broken_.erase({invariant, tp, broker});
    return;
  }
  if (!broken_.insert({invariant, tp, broker}).second) return;  // still the same violation
  violations_.push_back({invariant, now, seed_, tp, broker, detail()});
}

void ClusterInvariants::check_leader(const Broker& leader, const Partition& p, SimTime now) {
  const TopicPartition tp = p.tp();
  const BrokerId id = leader.broker_id();
  const Epoch epoch = p.leader_epoch();
  const Offset hw = p.log().high_watermark();
  const auto record = epochs_.try_emplace({tp, epoch}, id, hw).first;
  const BrokerId first_leader = record->second.first;
  verdict(first_leader == id, "single_leader_per_epoch", tp, id, now, [&] {
    return fmt::format("broker {} leads epoch {}, which broker {} led", id, epoch, first_leader);
  });
  if (first_leader == id) {
    const Offset before = record->second.second;
    verdict(hw >= before, "high_watermark_monotonic", tp, id, now,
            [&] { return fmt::format("high watermark {} after {} in epoch {}", hw, before, epoch); });
    record->second.second = std::max(before, hw);
  }
  for (const BrokerId member : p.state().isr) {
    if (member == id || member < 0 || static_cast<std::size_t>(member) >= brokers_.size()) continue;
    const Broker& follower = *brokers_[static_cast<std::size_t>(member)];
    const Partition* replica = follower.partition(tp);
    if (!follower.is_running() || !replica) continue;
    const Offset end = replica->log().log_end_offset();
    if (end >= hw) {
      lost_tail_.erase({member, tp});
    } else if (lost_tail_.contains({member, tp})) {
      continue;
    }
    verdict(end >= hw, "high_watermark_within_isr", tp, member, now, [&] {
      return fmt::format("leader {} has high watermark {} in epoch {}; ISR member {} ends at {}", id, hw, epoch,
                         member, end);
    });
  }
}

}  // namespace ksim::models
