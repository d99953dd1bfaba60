#include "models/controller/controller_quorum.hpp"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <functional>

namespace ksim::models {

ControllerQuorum::ControllerQuorum(std::vector<Controller*> controllers) : controllers_(std::move(controllers)) {
  assert(!controllers_.empty());
  if (is_quorum()) stats_.metadata_lag_by_broker.resize(controllers_.front()->committed().brokers.size());
}

ControllerQuorum::ControllerQuorum(std::vector<ZkController*> sides, ZooKeeperServer& zookeeper,
                                   const std::vector<std::vector<std::vector<BrokerId>>>& assignment)
    : sides_(std::move(sides)), zookeeper_(&zookeeper) {
  assert(!sides_.empty());
  for (std::size_t t = 0; t < assignment.size(); ++t) {
    for (std::size_t p = 0; p < assignment[t].size(); ++p) {
      const TopicPartition tp{static_cast<std::int32_t>(t), static_cast<std::int32_t>(p)};
      PartitionState& state = zookeeper_partitions_[tp];
      state.partition = tp;
      state.replicas = assignment[t][p];
      zookeeper_changed(zk_data::partition_state_path(tp));
    }
  }
  zookeeper.observe_changes([this](const std::string& path) { zookeeper_changed(path); });
}

// A topic znode's assignment (written at its creation and by reassignments)
// gives the replicas; a partition state znode the leader and ISR.
void ControllerQuorum::zookeeper_changed(const std::string& path) {
  std::int32_t topic = 0;
  int end = 0;
  if (std::sscanf(path.c_str(), "/brokers/topics/topic%d%n", &topic, &end) == 1 && path.size() == static_cast<std::size_t>(end)) {
    const Znode* node = zookeeper_->tree().find(path);
    const auto assignment = node ? zk_data::decode_assignment(node->data) : std::nullopt;
    if (!assignment) return;
    zookeeper_assignments_[topic] = *assignment;
    for (std::size_t p = 0; p < assignment->size(); ++p) {
      const auto it = zookeeper_partitions_.find({topic, static_cast<std::int32_t>(p)});
      if (it == zookeeper_partitions_.end()) continue;  // its state znode comes next
      it->second.replicas = (*assignment)[p].replicas;
      it->second.adding = (*assignment)[p].adding;
      it->second.removing = (*assignment)[p].removing;
    }
    return;
  }
  TopicPartition tp;
  if (std::sscanf(path.c_str(), "/brokers/topics/topic%d/partitions/%d/state", &tp.topic, &tp.partition) != 2) return;
  const Znode* node = zookeeper_->tree().find(path);
  auto it = zookeeper_partitions_.find(tp);
  if (node && it == zookeeper_partitions_.end()) {  // a topic created while the cluster runs
    const auto assigned = zookeeper_assignments_.find(tp.topic);
    if (assigned == zookeeper_assignments_.end() || static_cast<std::size_t>(tp.partition) >= assigned->second.size()) return;
    PartitionState& created = zookeeper_partitions_[tp];
    created.partition = tp;
    created.replicas = assigned->second[static_cast<std::size_t>(tp.partition)].replicas;
    it = zookeeper_partitions_.find(tp);
  }
  if (!node || it == zookeeper_partitions_.end()) return;
  const auto state = zk_data::decode_leader_and_isr(node->data);
  if (!state) return;
  it->second.leader = state->leader;
  it->second.leader_epoch = state->leader_epoch;
  it->second.isr = state->isr;
  it->second.partition_epoch = node->stat.version;
}

const ZkController* ControllerQuorum::active_zookeeper_controller() const {
  for (const ZkController* side : sides_) {
    if (side->is_active()) return side;
  }
  return nullptr;
}

const std::map<TopicPartition, PartitionState>& ControllerQuorum::partitions() const {
  if (is_zookeeper()) return zookeeper_partitions_;
  if (!is_quorum()) return controllers_.front()->partitions();
  const Controller* most = controllers_.front();
  for (const Controller* c : controllers_) {
    if (c->committed().end_offset > most->committed().end_offset) most = c;
  }
  return most->committed().partitions;
}

ControllerStats ControllerQuorum::stats() const {
  if (!is_quorum() && !is_zookeeper()) return controllers_.front()->stats();
  std::vector<const ControllerStats*> each;
  for (const Controller* c : controllers_) each.push_back(&c->stats());
  for (const ZkController* side : sides_) each.push_back(&side->controller_stats());
  ControllerStats sum;
  for (const ControllerStats* stats : each) {
    const ControllerStats& s = *stats;
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
// off voter raising its epoch alone (before KIP-996's pre-vote, Kafka 3.x, or
// a cut-off leader's one epoch after it resigned) does not matter.
const Controller* ControllerQuorum::active() const {
  if (is_zookeeper()) return nullptr;
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

void QuorumStats::MetadataLag::add(SimTime lag) {
  ++batches;
  total += lag;
  max = std::max(max, lag);
}

double QuorumStats::MetadataLag::mean_ms() const {
  return batches == 0 ? 0.0 : to_milliseconds(total) / static_cast<double>(batches);
}

void ControllerQuorum::after_event(SimTime now) {
  if (is_quorum()) note_commits(now);
  if (!any_active()) {
    if (stats_.first_active_at != kNever && inactive_since_ == kNever) inactive_since_ = now;
    return;
  }
  if (const Controller* a = active()) last_active_ = a;
  if (stats_.first_active_at == kNever) stats_.first_active_at = now;
  if (inactive_since_ == kNever) return;
  const SimTime period = now - inactive_since_;
  stats_.inactive += period;
  stats_.longest_inactive = std::max(stats_.longest_inactive, period);
  ++stats_.inactive_periods;
  inactive_since_ = kNever;
}

// A metadata batch is committed when the first controller replays it (the
// leader, as its high watermark passes it): its end offset and that time.
// Raft's own LeaderChange batches are not metadata.
void ControllerQuorum::note_commits(SimTime now) {
  const Controller* most = controllers_.front();
  for (const Controller* c : controllers_) {
    if (c->committed().end_offset > most->committed().end_offset) most = c;
  }
  const Offset end = most->committed().end_offset;
  if (end <= commits_seen_) return;
  const RaftLog& log = most->raft_state().log();
  for (Offset offset = commits_seen_; offset < end; ++offset) {
    const RaftEntry& entry = log.at(offset);
    if (entry.batch_end && !entry.record->is_control()) batch_commits_.emplace_back(offset + 1, now);
  }
  commits_seen_ = end;
}

// Each batch ending in (from, to], committed since the broker's process first published
// its image (before, it catches up: waiting for its own registration is not lag), once.
void ControllerQuorum::metadata_applied(SimTime now, const MetadataApplied& applied) {
  auto& by_broker = stats_.metadata_lag_by_broker;
  const auto b = static_cast<std::size_t>(applied.broker);
  if (by_broker.size() <= b) by_broker.resize(b + 1);
  auto it = std::upper_bound(batch_commits_.begin(), batch_commits_.end(), applied.from,
                             [](Offset offset, const auto& commit) { return offset < commit.first; });
  for (; it != batch_commits_.end() && it->first <= applied.to; ++it) {
    if (it->second < applied.since) continue;
    assert(it->second <= now && "a broker applies only what was committed");
    stats_.metadata_lag.add(now - it->second);
    by_broker[b].add(now - it->second);
  }
}

QuorumStats ControllerQuorum::quorum_stats(SimTime now) const {
  QuorumStats s = stats_;
  if (inactive_since_ != kNever) {  // a period still going on
    s.inactive += now - inactive_since_;
    s.longest_inactive = std::max(s.longest_inactive, now - inactive_since_);
    ++s.inactive_periods;
  }
  for (const ZkController* side : sides_) s.activations += side->stats().elections_won;
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
