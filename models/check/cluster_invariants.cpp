#include "models/check/cluster_invariants.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "models/check/replica_agreement.hpp"

namespace ksim::models {

namespace {

constexpr Invariant kInvariants[] = {
    {"single_leader_per_epoch", "one leader epoch of a partition belongs to one broker, for the whole run"},
    {"high_watermark_monotonic",
     "a partition's high watermark never goes back within a leader epoch, but when its leader lost its log's tail "
     "(power loss) and leads the same epoch again (a ZooKeeper-era controller that did not see the broker bounce)"},
    {"high_watermark_within_isr",
     "a leader's high watermark never exceeds the log end offset of a running ISR member that has not lost its "
     "log's tail (power loss, truncation before KIP-101) since it last reached the high watermark"},
    {"eligible_leaders_hold_committed",
     "a leader's high watermark never exceeds the log end offset of an eligible leader replica (KIP-966), running "
     "or not, that has not lost its log's tail since it last reached the high watermark: it may be elected"},
    {"replicas_agree_on_committed_prefix",
     "every replica of a partition holds what its leader holds below both their high watermarks: the same batches "
     "at the same offsets, from the same leader epochs and producers (at each leader change and at the end)"},
    // Retention (UnifiedLog.deleteOldSegments), on every replica whose log start offset moved:
    {"log_start_within_high_watermark",
     "a replica's log start offset is at most its high watermark, which is at most its log end offset: retention "
     "deletes only committed records"},
    {"log_start_offset_monotonic",
     "a replica's log start offset never goes back, but by a truncation below it (a follower starting again at its "
     "leader's log start)"},
    {"tiered_local_log_start_within_remote",
     "under tiered storage (KIP-405) a replica's local log start is at most the end of what the remote store holds "
     "of its partition: a local segment is deleted only once it was copied (UnifiedLog.isSegmentEligibleForDeletion)"},
    // The log cleaner (cleanup.policy=compact), on every replica it cleaned:
    {"compacted_offsets_increasing",
     "a cleaned log's batches have strictly increasing, non-overlapping offsets within [log start, log end): "
     "compaction leaves gaps, never moves or repeats an offset"},
    {"compaction_spares_active_segment",
     "the cleaner's first dirty offset is at most the active segment's base offset and at most the high watermark: "
     "the active segment and uncommitted records are never cleaned"},
    {"compacted_segment_sizes_match",
     "after a cleaning, each segment's size is the sum of its batches' sizes, and the log's size their total"},
    // KIP-932's share-partitions (SharePartition), on their leaders, after each event that changed one:
    {"share_start_within_end",
     "a share-partition's start offset (SPSO) is at most its end offset (SPEO), and every offset between is in flight"},
    {"share_acquired_records_locked", "an ACQUIRED record has a holder and a live acquisition lock"},
    {"share_delivery_count_within_limit",
     "no record is delivered more than group.share.delivery.count.limit times, and none is AVAILABLE at the limit "
     "(it is ARCHIVED)"},
};

}  // namespace

std::string to_string(const InvariantViolation& v) {
  if (v.partition.topic < 0) return fmt::format("{} at {}ns (seed {}): {}", v.invariant, v.at, v.seed, v.detail);
  return fmt::format("{} at {}ns (seed {}), partition {}-{}, broker {}: {}", v.invariant, v.at, v.seed,
                     v.partition.topic, v.partition.partition, v.broker, v.detail);
}

std::span<const Invariant> ClusterInvariants::all() { return kInvariants; }

ClusterInvariants::ClusterInvariants(std::vector<Broker*> brokers, const ControllerQuorum& controller, std::uint64_t seed,
                                     Scope scope)
    : brokers_(std::move(brokers)), controller_(controller), seed_(seed), scope_(scope) {
  const std::int32_t topics = controller_.partitions().empty() ? 0 : controller_.partitions().rbegin()->first.topic + 1;
  epochs_.resize(static_cast<std::size_t>(topics));
  for (std::int32_t t = 0; t < topics; ++t) epochs_[static_cast<std::size_t>(t)].resize(static_cast<std::size_t>(controller_.partition_count(t)));
  for (Broker* b : brokers_) b->add_partition_listener(this);
  if (controller_.is_quorum()) quorum_ = std::make_unique<QuorumInvariants>(controller_, seed_, violations_);
}

void ClusterInvariants::partition_changed(const Partition& partition, PartitionChange change) {
  switch (change) {
    case PartitionChange::LogStartMoved:
      log_start_moves_.push_back(
          {partition.tp(), partition.broker(), partition.log().log_start_offset(), partition.log().high_watermark(),
           partition.log().log_end_offset(),
           brokers_[static_cast<std::size_t>(partition.broker())]->remote_covered_end(partition.tp()).value_or(INT64_MAX)});
      return;
    case PartitionChange::LogShrank:
      log_starts_.erase({partition.broker(), partition.tp()});  // a truncation below the log start may move it back
      break;
    case PartitionChange::LogCleaned:
      cleaned_.emplace_back(partition.tp(), partition.broker());  // checked after the event
      return;
    case PartitionChange::State:
    case PartitionChange::LogReplaced:
    case PartitionChange::LeaderHighWatermark: break;
    case PartitionChange::LogGrew:
      if (broken_.empty()) return;  // a longer log breaks nothing; it may end a violation
      break;
    case PartitionChange::FollowerHighWatermark:
    case PartitionChange::PendingIsr: return;  // no invariant reads them
  }
  changed_.emplace_back(partition.tp(), partition.broker());
}

void ClusterInvariants::on_event(const Node&, const ModelEvent& event) {
  if (const auto* l = std::get_if<BecameLeader>(&event)) {
    new_leaders_.push_back(l->partition);  // checked after the event, once it leads
    return;
  }
  if (const auto* t = std::get_if<LogTruncated>(&event)) {
    // Losses Kafka does not detect (before KIP-966): not the model's fault.
    if (t->cause != TruncationCause::Divergence) lost_tail_.emplace(t->broker, t->partition);
  }
}

void ClusterInvariants::on_node(const Node& node, NodeChange change) {
  if (change.kind == NodeChange::Kind::ShutdownRequested) return;
  for (const Broker* b : brokers_) {
    if (b->id() != node.id()) continue;
    // Its logs count, or stop counting, for the ISRs it is in: check every partition it hosts.
    for (const TopicPartition tp : b->hosted_partitions()) changed_.emplace_back(tp, b->broker_id());
  }
}

void ClusterInvariants::after_event(SimTime now) {
  if (quorum_) quorum_->after_event(now);
  if (!log_start_moves_.empty()) check_log_starts(now);
  if (!cleaned_.empty()) check_cleaned_logs(now);
  for (Broker* b : brokers_) {
    if (b->take_share_changes() || (scope_ == Scope::Everything && b->is_running())) check_share_partitions(*b, now);
  }
  if (!new_leaders_.empty()) {
    for (const TopicPartition tp : new_leaders_) check_agreement(tp, now);
    new_leaders_.clear();
  }
  if (scope_ == Scope::Everything) {
    changed_.clear();
    for (const auto& [tp, state] : controller_.partitions()) check_all_leaders(tp, now);
    return;
  }
  if (changed_.empty()) return;
  if (changed_.size() > 1) {
    std::sort(changed_.begin(), changed_.end());
    changed_.erase(std::unique(changed_.begin(), changed_.end()), changed_.end());
  }
  for (const auto& [tp, broker] : changed_) check(tp, broker, now);
  changed_.clear();
}

void ClusterInvariants::check_log_starts(SimTime now) {
  for (const LogStartMove& m : log_start_moves_) {
    verdict(m.log_start <= m.high_watermark && m.high_watermark <= m.log_end, "log_start_within_high_watermark", m.tp,
            m.broker, now, [&] {
              return fmt::format("log start {}, high watermark {}, log end {}", m.log_start, m.high_watermark,
                                 m.log_end);
            });
    verdict(m.log_start <= m.remote_covered_end, "tiered_local_log_start_within_remote", m.tp, m.broker, now, [&] {
      return fmt::format("local log start {} past the end of what the remote store holds, {}", m.log_start,
                         m.remote_covered_end);
    });
    Offset& before = log_starts_.try_emplace({m.broker, m.tp}, m.log_start).first->second;
    verdict(m.log_start >= before, "log_start_offset_monotonic", m.tp, m.broker, now,
            [&] { return fmt::format("log start {} after {}", m.log_start, before); });
    before = std::max(before, m.log_start);
  }
  log_start_moves_.clear();
}

void ClusterInvariants::check(TopicPartition tp, BrokerId broker, SimTime now) {
  const Broker& b = *brokers_[static_cast<std::size_t>(broker)];
  if (b.is_leader(tp)) return check_leader(b, *b.partition(tp), now);
  check_all_leaders(tp, now);  // a follower changed: it counts for the leaders' ISRs
}

void ClusterInvariants::check_all_leaders(TopicPartition tp, SimTime now) {
  for (const Broker* b : brokers_) {
    if (b->is_leader(tp)) check_leader(*b, *b->partition(tp), now);
  }
}

void ClusterInvariants::check_at_end(SimTime now) {
  divergences_at_end_ = 0;
  for (const auto& [tp, state] : controller_.partitions()) divergences_at_end_ += check_agreement(tp, now);
}

// Each replica's log (a crashed broker's too: its log is on its disks) against the leader's.
std::size_t ClusterInvariants::check_agreement(TopicPartition tp, SimTime now) {
  const Broker* leader = nullptr;  // the newest, if a deposed one does not know it yet
  for (const Broker* b : brokers_) {
    if (b->is_leader(tp) && (!leader || b->partition(tp)->leader_epoch() > leader->partition(tp)->leader_epoch())) {
      leader = b;
    }
  }
  if (!leader) return 0;
  const PartitionLog& leader_log = leader->partition(tp)->log();
  std::size_t diverged = 0;
  for (const Broker* b : brokers_) {
    const Partition* replica = b->partition(tp);
    if (b == leader || !replica) continue;
    const auto divergence = committed_divergence(leader_log, leader->broker_id(), replica->log(), b->broker_id());
    verdict(!divergence, kReplicaDivergence, tp, b->broker_id(), now,
            [&] { return divergence->detail; });
    if (divergence) ++diverged;
  }
  return diverged;
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

// Grown as topics are created during the run (a create_topic operation, auto-creation).
std::vector<ClusterInvariants::EpochRecord>& ClusterInvariants::epochs_of(TopicPartition tp) {
  const auto topic = static_cast<std::size_t>(tp.topic);
  const auto partition = static_cast<std::size_t>(tp.partition);
  if (topic >= epochs_.size()) epochs_.resize(topic + 1);
  if (partition >= epochs_[topic].size()) epochs_[topic].resize(partition + 1);
  return epochs_[topic][partition];
}

void ClusterInvariants::check_leader(const Broker& leader, const Partition& p, SimTime now) {
  const TopicPartition tp = p.tp();
  const BrokerId id = leader.broker_id();
  const Epoch epoch = p.leader_epoch();
  const Offset hw = p.log().high_watermark();
  std::vector<EpochRecord>& seen = epochs_of(tp);
  auto record = std::find_if(seen.rbegin(), seen.rend(), [&](const EpochRecord& r) { return r.epoch == epoch; });
  if (record == seen.rend()) {
    seen.push_back({epoch, id, hw});
    record = seen.rbegin();
  }
  const BrokerId first_leader = record->leader;
  verdict(first_leader == id, "single_leader_per_epoch", tp, id, now, [&] {
    return fmt::format("broker {} leads epoch {}, which broker {} led", id, epoch, first_leader);
  });
  if (first_leader == id) {
    // A leader that lost its log's tail and leads the same epoch again: Kafka does not detect it either
    // (a ZooKeeper-era controller elected after the broker's old session expired pushes the epoch ZooKeeper holds).
    if (hw < record->high_watermark && lost_tail_.erase({id, tp}) > 0) record->high_watermark = hw;
    const Offset before = record->high_watermark;
    verdict(hw >= before, "high_watermark_monotonic", tp, id, now,
            [&] { return fmt::format("high watermark {} after {} in epoch {}", hw, before, epoch); });
    record->high_watermark = std::max(before, hw);
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
  // KIP-966's safety: the high watermark cannot advance while the ISR is below
  // min ISR (KAFKA-15583), so every ELR member still holds what is committed.
  for (const BrokerId member : p.state().elr) {
    if (member < 0 || static_cast<std::size_t>(member) >= brokers_.size()) continue;
    const Partition* replica = brokers_[static_cast<std::size_t>(member)]->partition(tp);
    if (!replica) continue;
    const Offset end = replica->log().log_end_offset();
    if (end >= hw) {
      lost_tail_.erase({member, tp});
    } else if (lost_tail_.contains({member, tp})) {
      continue;
    }
    verdict(end >= hw, "eligible_leaders_hold_committed", tp, member, now, [&] {
      return fmt::format("leader {} has high watermark {} in epoch {}; eligible leader replica {} ends at {}", id, hw,
                         epoch, member, end);
    });
  }
}

// KIP-932: each share-partition the broker leads (a broken one is one violation until it holds again).
void ClusterInvariants::check_share_partitions(const Broker& b, SimTime now) {
  for (const auto& [key, entry] : b.share_partitions()) {
    const auto broken = entry.partition.check(now);
    for (const std::string_view name :
         {"share_start_within_end", "share_acquired_records_locked", "share_delivery_count_within_limit"}) {
      verdict(!broken || broken->invariant != name, name, key.second, b.broker_id(), now,
              [&] { return broken->detail; });
    }
  }
}

// The log cleaner's invariants, on each replica it compacted in the event.
void ClusterInvariants::check_cleaned_logs(SimTime now) {
  for (const auto& [tp, broker] : cleaned_) {
    const Partition* p = brokers_[static_cast<std::size_t>(broker)]->partition(tp);
    if (!p) continue;
    const PartitionLog& log = p->log();
    Offset next = log.log_start_offset();
    Offset broken_at = -1;
    for (const RecordBatch& b : log.batches()) {
      if (b.record_count <= 0 || b.next_offset() <= next || b.base_offset < next) {
        broken_at = b.base_offset;
        break;
      }
      next = b.next_offset();
    }
    verdict(broken_at < 0 && next <= log.log_end_offset(), "compacted_offsets_increasing", tp, broker, now, [&] {
      return fmt::format("batch at offset {} overlaps or goes back (log start {}, log end {})", broken_at,
                         log.log_start_offset(), log.log_end_offset());
    });
    const Offset dirty = log.first_dirty_offset();
    verdict(dirty <= log.segments().back().base_offset && dirty <= log.high_watermark(),
            "compaction_spares_active_segment", tp, broker, now, [&] {
              return fmt::format("first dirty offset {}, active segment at {}, high watermark {}", dirty,
                                 log.segments().back().base_offset, log.high_watermark());
            });
    std::uint64_t total = 0;
    std::size_t s = 0;
    std::vector<std::uint64_t> sums(log.segments().size(), 0);
    for (const RecordBatch& b : log.batches()) {
      while (s + 1 < log.segments().size() && log.segments()[s + 1].base_offset <= b.base_offset) ++s;
      sums[s] += b.bytes;
      total += b.bytes;
    }
    std::size_t mismatch = sums.size();
    for (std::size_t i = 0; i < sums.size() && mismatch == sums.size(); ++i) {
      if (sums[i] != log.segments()[i].bytes) mismatch = i;
    }
    verdict(mismatch == sums.size() && total == log.size_bytes(), "compacted_segment_sizes_match", tp, broker, now, [&] {
      if (mismatch == sums.size()) return fmt::format("log size {}, its batches {}", log.size_bytes(), total);
      return fmt::format("segment at {} has size {}, its batches {}", log.segments()[mismatch].base_offset,
                         log.segments()[mismatch].bytes, sums[mismatch]);
    });
  }
  cleaned_.clear();
}

}  // namespace ksim::models
