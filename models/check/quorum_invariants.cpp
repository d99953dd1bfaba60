#include "models/check/quorum_invariants.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace ksim::models {

const std::vector<Invariant>& QuorumInvariants::all() {
  static const std::vector<Invariant> invariants{
      {"controller_single_leader_per_epoch", "one epoch of the controller quorum has one leader, for the whole run"},
      {"controller_epoch_monotonic", "a controller's persisted quorum epoch never goes back"},
      {"controller_high_watermark_monotonic",
       "a leading controller's high watermark never goes back within its epoch, is never below one a leader of an "
       "earlier epoch reached, nor above one of a later epoch"},
      {"controller_high_watermark_on_majority",
       "what a leading controller counts as committed is flushed on a majority of the voters"},
      {"controller_committed_metadata_agrees",
       "below its high watermark every running controller's metadata log holds what was first seen committed at "
       "each offset: the same record from the same epoch"},
  };
  return invariants;
}

QuorumInvariants::QuorumInvariants(const ControllerQuorum& quorum, std::uint64_t seed,
                                   std::vector<InvariantViolation>& violations)
    : quorum_(quorum), seed_(seed), violations_(violations) {
  epochs_.assign(quorum_.controllers().size(), 0);
  checked_.assign(quorum_.controllers().size(), 0);
}

template <class Detail>
void QuorumInvariants::verdict(bool holds, std::string_view invariant, RaftNodeId controller, SimTime now,
                               const Detail& detail) {
  if (holds) {
    if (!broken_.empty()) broken_.erase({invariant, controller});
    return;
  }
  if (!broken_.insert({invariant, controller}).second) return;  // still the same violation
  InvariantViolation v{invariant, now, seed_, {-1, -1}, kNoBroker, detail()};
  violations_.push_back(std::move(v));
}

void QuorumInvariants::after_event(SimTime now) {
  check_elections(now);
  for (const Controller* c : quorum_.controllers()) {
    const RaftReplica* replica = c->raft();
    if (!replica) continue;
    if (replica->role() == RaftRole::Leader && replica->high_watermark()) check_leader(*c, *replica, now);
    check_committed_log(*c, *replica, now);
  }
}

// SingleLeader and MonotonicEpoch, over every controller's persisted election (running or not).
void QuorumInvariants::check_elections(SimTime now) {
  for (const Controller* c : quorum_.controllers()) {
    const RaftNodeId id = c->quorum_id();
    const RaftElection& e = c->raft_state().election();
    Epoch& last = epochs_[static_cast<std::size_t>(id)];
    const Epoch before = last;
    verdict(e.epoch >= before, "controller_epoch_monotonic", id, now,
            [&] { return fmt::format("{} went back from epoch {} to {}", c->name(), before, e.epoch); });
    last = e.epoch;
    if (!e.has_leader()) continue;
    const auto [it, first] = leaders_.emplace(e.epoch, e.leader);
    const RaftNodeId other = it->second;
    verdict(first || other == e.leader, "controller_single_leader_per_epoch", id, now, [&] {
      return fmt::format("{} has controller {} lead epoch {}, which controller {} led", c->name(), e.leader, e.epoch,
                         other);
    });
  }
}

// MonotonicHighWatermark and MajorityReachedHighWatermark, on a running leader.
void QuorumInvariants::check_leader(const Controller& controller, const RaftReplica& leader, SimTime now) {
  const RaftNodeId id = controller.quorum_id();
  const Offset hw = *leader.high_watermark();
  const Epoch epoch = leader.epoch();
  for (const auto& [e, seen] : leader_high_watermarks_) {
    const bool holds = (e > epoch || hw >= seen) && (e <= epoch || hw <= seen);
    verdict(holds, "controller_high_watermark_monotonic", id, now, [&, e = e, seen = seen] {
      return fmt::format("{} leads epoch {} with high watermark {}; a leader of epoch {} had {}", controller.name(),
                         epoch, hw, e, seen);
    });
    if (!holds) break;
  }
  Offset& largest = leader_high_watermarks_[epoch];
  largest = std::max(largest, hw);
  std::size_t flushed = 0;
  for (const Controller* c : quorum_.controllers()) flushed += c->raft_state().log().flushed_end_offset() >= hw ? 1 : 0;
  const std::size_t majority = quorum_.controllers().size() / 2 + 1;
  verdict(flushed >= majority, "controller_high_watermark_on_majority", id, now, [&] {
    return fmt::format("{} counts {} committed in epoch {}; {} of {} voters flushed it", controller.name(), hw, epoch,
                       flushed, quorum_.controllers().size());
  });
}

// ConsistentCommittedData as it happens: the first controller to hold an
// offset below its high watermark fixes what was committed there.
void QuorumInvariants::check_committed_log(const Controller& controller, const RaftReplica& replica, SimTime now) {
  const RaftNodeId id = controller.quorum_id();
  const RaftLog& log = replica.log();
  const Offset hw = std::min(replica.high_watermark().value_or(0), log.end_offset());
  Offset& checked = checked_[static_cast<std::size_t>(id)];
  checked = std::min(checked, log.end_offset());  // a power loss or a truncation: look again when it is back
  for (Offset offset = checked; offset < hw; ++offset) {
    const RaftEntry& entry = log.at(offset);
    if (static_cast<std::size_t>(offset) == committed_.size()) committed_.push_back({entry.epoch, entry.record.get()});
    const Committed& first = committed_[static_cast<std::size_t>(offset)];
    const bool holds = first.epoch == entry.epoch && first.record == entry.record.get();
    verdict(holds, "controller_committed_metadata_agrees", id, now, [&] {
      return fmt::format("{} holds a record of epoch {} at offset {}, committed from epoch {}", controller.name(),
                         entry.epoch, offset, first.epoch);
    });
    if (!holds) return;
  }
  checked = std::max(checked, hw);
}

}  // namespace ksim::models
