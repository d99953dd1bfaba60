#include "models/controller/controller_quorum.hpp"

#include <algorithm>
#include <cassert>
#include <functional>

namespace ksim::models {

ControllerQuorum::ControllerQuorum(std::vector<Controller*> controllers) : controllers_(std::move(controllers)) {
  assert(!controllers_.empty());
}

const std::map<TopicPartition, PartitionState>& ControllerQuorum::partitions() const {
  if (!is_quorum()) return controllers_.front()->partitions();
  const Controller* most = controllers_.front();
  for (const Controller* c : controllers_) {
    if (c->committed().end_offset > most->committed().end_offset) most = c;
  }
  return most->committed().partitions;
}

ControllerStats ControllerQuorum::stats() const {
  if (!is_quorum()) return controllers_.front()->stats();
  ControllerStats sum;
  for (const Controller* c : controllers_) {
    const ControllerStats& s = c->stats();
    sum.first_elections.insert(sum.first_elections.end(), s.first_elections.begin(), s.first_elections.end());
    sum.elections += s.elections;
    sum.unclean_elections += s.unclean_elections;
    sum.elr_elections += s.elr_elections;
    sum.offline_transitions += s.offline_transitions;
    sum.isr_changes += s.isr_changes;
    sum.fencings += s.fencings;
    sum.controlled_shutdowns += s.controlled_shutdowns;
    sum.max_leaderless = std::max(sum.max_leaderless, s.max_leaderless);
    sum.activations += s.activations;
    sum.renouncements += s.renouncements;
    sum.reverted_records += s.reverted_records;
  }
  std::stable_sort(sum.first_elections.begin(), sum.first_elections.end(),
                   [](const Election& a, const Election& b) { return a.at < b.at; });
  if (sum.first_elections.size() > ControllerStats::kElectionsKept) sum.first_elections.resize(ControllerStats::kElectionsKept);
  return sum;
}

// The controller acting as the active one in the epoch a majority of the
// quorum has reached (the largest epoch at least a majority of controllers
// persisted, or a later one): a leader cut off from the others, which may
// not know yet that they moved on, no longer counts once they have; one cut
// off voter raising its epoch alone (there is no pre-vote) does not matter.
const Controller* ControllerQuorum::active() const {
  if (!is_quorum()) return controllers_.front()->is_active() ? controllers_.front() : nullptr;
  std::vector<Epoch> epochs;
  for (const Controller* c : controllers_) epochs.push_back(c->raft_state().election().epoch);
  std::sort(epochs.begin(), epochs.end(), std::greater<>());
  const Epoch majority_epoch = epochs[controllers_.size() / 2];
  for (const Controller* c : controllers_) {
    if (c->is_active() && c->active_epoch() >= majority_epoch) return c;
  }
  return nullptr;
}

void ControllerQuorum::after_event(SimTime now) {
  const Controller* a = active();
  if (!a) {
    if (stats_.first_active_at != kNever && inactive_since_ == kNever) inactive_since_ = now;
    return;
  }
  last_active_ = a;
  if (stats_.first_active_at == kNever) stats_.first_active_at = now;
  if (inactive_since_ == kNever) return;
  const SimTime period = now - inactive_since_;
  stats_.inactive += period;
  stats_.longest_inactive = std::max(stats_.longest_inactive, period);
  ++stats_.inactive_periods;
  inactive_since_ = kNever;
}

QuorumStats ControllerQuorum::quorum_stats(SimTime now) const {
  QuorumStats s = stats_;
  if (inactive_since_ != kNever) {  // a period still going on
    s.inactive += now - inactive_since_;
    s.longest_inactive = std::max(s.longest_inactive, now - inactive_since_);
    ++s.inactive_periods;
  }
  for (const Controller* c : controllers_) {
    s.activations += c->stats().activations;
    s.renouncements += c->stats().renouncements;
    s.reverted_records += c->stats().reverted_records;
    s.raft_elections = std::max<std::uint64_t>(s.raft_elections, static_cast<std::uint64_t>(c->raft_state().election().epoch));
  }
  s.failovers = s.activations > 0 ? s.activations - 1 : 0;
  return s;
}

}  // namespace ksim::models
