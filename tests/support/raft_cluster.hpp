#pragma once
// A test harness for the Raft core (models/raft/), after Kafka's
// RaftEventSimulationTest: replicas hosted by sim Nodes, one per host, over
// ksim's network (raft_test_node.hpp); a workload that appends a new sequence
// number to every leader ready to write (SequentialAppendAction); and the
// invariants, checked after every event: SingleLeader (one leader per epoch,
// over every replica's persisted election), MonotonicEpoch (persisted epochs
// never go back), MonotonicHighWatermark and MajorityReachedHighWatermark.
// Kafka's test checks the last two on the running leader of the largest
// epoch; here every running leader's high watermark never goes back in its
// epoch, is never below one a leader of an earlier epoch showed (nor above
// one of a later epoch), and is flushed on a majority of voters. (When the
// newest leader crashes while a partitioned older one still leads, the
// largest running epoch's high watermark does go back, legitimately.) Every
// committed entry a replica replays is checked against what was committed at
// its offset before (ConsistentCommittedData as it happens);
// check_committed_data() checks every running replica's log below its high
// watermark at the end.
#include <algorithm>
#include <cassert>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/probe_node.hpp"
#include "tests/support/raft_test_node.hpp"

namespace ksim::testing {

struct RaftClusterOptions {
  int voters = 3;
  int observers = 0;  // replicas voters + 0, voters + 1, ...: brokers that fetch the log
  std::uint64_t seed = 1;
  models::RaftConfig config{};
  // Every leader ready to write appends one record this often.
  SimTime append_interval = milliseconds(20);
  Distribution jitter = Distribution::exponential(microseconds(100));

  std::string describe() const { return "voters " + std::to_string(voters) + ", seed " + std::to_string(seed); }
};

// The runs a behaviour is checked over: every quorum size in `sizes`, with seeds 1 to `seeds`.
inline std::vector<RaftClusterOptions> raft_runs(std::initializer_list<int> sizes, std::uint64_t seeds) {
  std::vector<RaftClusterOptions> runs;
  for (const int voters : sizes) {
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) runs.push_back({.voters = voters, .seed = seed});
  }
  return runs;
}

class RaftCluster final : private RaftTestListener {
 public:
  explicit RaftCluster(RaftClusterOptions options);

  const RaftClusterOptions& options() const { return options_; }
  int size() const { return static_cast<int>(nodes_.size()); }
  RaftTestNode& node(RaftNodeId id) { return *nodes_.at(static_cast<std::size_t>(id)); }
  const std::vector<RaftNodeId>& voters() const { return quorum_.voters; }
  std::vector<RaftNodeId> all() const;
  int majority() const { return static_cast<int>(quorum_.voters.size()) / 2 + 1; }

  // Runs until `done` holds (checked every 10 ms of simulated time) or `limit`; false at the limit.
  bool run_until(const std::function<bool()>& done, SimTime limit);
  void run_for(SimTime duration) { sim.run_until(sim.now() + duration); }
  // Runs until every running replica has `more` entries committed past the
  // largest high watermark any has now; false if that takes longer than `within`.
  bool commits(Offset more, SimTime within = seconds(30)) {
    const Offset target = max_high_watermark(all()) + more;
    return run_until([&] { return all_running_reached(target); }, sim.now() + within);
  }
  // Runs `action` (a fault, a call on a replica) as an event, at the time of the
  // next pending one (the workload's tick is never far), and returns after it.
  // The engine runs an event scheduled from outside the loop in order only if
  // it is not earlier than its next pending event: after sim.run_until(t) that
  // event may be far past t, and one scheduled before it would run after it,
  // with the clock going back. So nothing here acts from outside the loop.
  void act(std::function<void()> action);

  // ---- what the running replicas say (RaftEventSimulationTest's Cluster) ----
  // The leader named by the running replica of the largest epoch.
  std::optional<RaftNodeId> latest_leader() const;
  // Every running replica persisted the same leader and epoch.
  bool has_consistent_leader() const;
  // The high watermark of the running leader of the largest epoch.
  std::optional<Offset> leader_high_watermark() const;
  Offset high_watermark(RaftNodeId id) const {  // 0 when down or unknown
    const models::RaftReplica* r = nodes_.at(static_cast<std::size_t>(id))->replica();
    return r ? r->high_watermark().value_or(0) : 0;
  }
  bool all_reached(Offset hw, const std::vector<RaftNodeId>& ids) const {
    return std::all_of(ids.begin(), ids.end(), [&](RaftNodeId id) { return high_watermark(id) >= hw; });
  }
  bool all_running_reached(Offset hw) const {
    return std::all_of(nodes_.begin(), nodes_.end(),
                       [&](const RaftTestNode* n) { return !n->replica() || high_watermark(n->raft_id()) >= hw; });
  }
  Offset max_high_watermark(const std::vector<RaftNodeId>& ids) const {
    Offset max = 0;
    for (const RaftNodeId id : ids) max = std::max(max, high_watermark(id));
    return max;
  }

  // ---- faults, each through act() ----
  FaultHandle partition(const std::vector<RaftNodeId>& side);  // cut `side` from everyone else
  void heal(FaultHandle cut);
  void crash(RaftNodeId id, CrashKind kind) {
    act([&] { node(id).crash(kind); });
  }
  void restart(RaftNodeId id) {
    act([&] { node(id).restart(); });
  }
  void pause(RaftNodeId id) {
    act([&] { node(id).pause(); });
  }
  void resume(RaftNodeId id) {
    act([&] { node(id).resume(); });
  }

  // ---- checks ----
  const std::vector<std::string>& violations() const { return violations_; }
  // ConsistentCommittedData: every running replica's log below its high watermark agrees with what was committed.
  void check_committed_data();
  // check_committed_data(), then every violation of the run, one a line ("" when sound).
  std::string final_check();
  struct LeaderElected {
    SimTime at;
    RaftNodeId leader;
    Epoch epoch;
    friend bool operator==(const LeaderElected&, const LeaderElected&) = default;
  };
  const std::vector<LeaderElected>& leader_history() const { return leader_history_; }
  // Offset -> sequence number, as first replayed by any replica.
  const std::map<Offset, std::uint64_t>& committed() const { return committed_; }

  Simulation sim;

 private:
  void applied(RaftNodeId id, Offset offset, std::uint64_t value) override;
  void leader_elected(RaftNodeId id, Epoch epoch) override { leader_history_.push_back({sim.now(), id, epoch}); }
  void check_invariants();
  void check_leader_high_watermark(const models::RaftReplica& leader);
  void append_tick();
  void violation(const std::string& what) {
    if (violations_.size() >= 20) return;
    violations_.push_back(what + " (at " + std::to_string(to_seconds(sim.now())) + " s, seed " +
                          std::to_string(options_.seed) + ")");
  }

  RaftClusterOptions options_;
  RaftQuorum quorum_;
  std::vector<RaftTestNode*> nodes_;  // by replica id; owned by sim
  std::uint64_t next_value_ = 1;
  std::map<Epoch, RaftNodeId> leaders_;             // SingleLeader
  std::vector<Epoch> epochs_;                       // MonotonicEpoch, by replica id
  std::map<Epoch, Offset> leader_high_watermarks_;  // MonotonicHighWatermark: the largest per epoch
  std::map<Offset, std::uint64_t> committed_;
  std::vector<LeaderElected> leader_history_;
  std::vector<std::string> violations_;
};

inline RaftCluster::RaftCluster(RaftClusterOptions options)
    : sim(options.seed, ProbeCluster::make_topology(options.voters + options.observers, 100, {1.25e8, microseconds(10)}),
          NetworkOptions{.jitter = options.jitter}),
      options_(std::move(options)) {
  const int replicas = options_.voters + options_.observers;
  for (int i = 0; i < options_.voters; ++i) quorum_.voters.push_back(i);
  quorum_.config = options_.config;
  epochs_.assign(static_cast<std::size_t>(replicas), 0);
  for (int i = 0; i < replicas; ++i) {
    const HostId host = *sim.topology().find("h" + std::to_string(i));
    RaftTestListener& listener = *this;
    nodes_.push_back(&sim.spawn<RaftTestNode>("c" + std::to_string(i), host, i, quorum_, listener));
    quorum_.nodes.push_back(nodes_.back()->id());
  }
  for (RaftTestNode* n : nodes_) n->start();
  sim.add_after_event_hook([this] { check_invariants(); });
  sim.events().schedule_after(options_.append_interval, [this] { append_tick(); });
}

inline std::vector<RaftNodeId> RaftCluster::all() const {
  std::vector<RaftNodeId> ids;
  for (const RaftTestNode* n : nodes_) ids.push_back(n->raft_id());
  return ids;
}

inline bool RaftCluster::run_until(const std::function<bool()>& done, SimTime limit) {
  while (sim.now() < limit) {
    if (done()) return true;
    sim.run_until(std::min(limit, sim.now() + milliseconds(10)));
  }
  return done();
}

inline void RaftCluster::act(std::function<void()> action) {
  const SimTime at = sim.events().next_time();  // the workload's tick keeps one pending
  assert(at != kNever && at >= sim.now());
  sim.events().schedule_at(at, [a = std::move(action)]() mutable { a(); });
  sim.run_until(at);
}

inline std::optional<RaftNodeId> RaftCluster::latest_leader() const {
  std::optional<RaftNodeId> leader;
  Epoch latest = -1;
  for (const RaftTestNode* n : nodes_) {
    const models::RaftReplica* r = n->replica();
    if (!r || r->epoch() < latest) continue;
    if (r->epoch() > latest) leader.reset();
    latest = r->epoch();
    if (r->leader() != models::kNoRaftNode) leader = r->leader();
  }
  return leader;
}

inline bool RaftCluster::has_consistent_leader() const {
  std::optional<models::RaftElection> first;
  for (const RaftTestNode* n : nodes_) {
    if (!n->replica()) continue;
    const models::RaftElection& e = n->durable().election();
    if (!e.has_leader()) return false;
    if (!first) first = e;
    if (e.epoch != first->epoch || e.leader != first->leader) return false;
  }
  return first.has_value();
}

inline std::optional<Offset> RaftCluster::leader_high_watermark() const {
  const models::RaftReplica* leader = nullptr;
  for (const RaftTestNode* n : nodes_) {
    const models::RaftReplica* r = n->replica();
    if (r && r->role() == models::RaftRole::Leader && (!leader || r->epoch() > leader->epoch())) leader = r;
  }
  return leader ? leader->high_watermark() : std::nullopt;
}

inline FaultHandle RaftCluster::partition(const std::vector<RaftNodeId>& side) {
  std::vector<NodeId> inside;
  std::vector<NodeId> outside;
  for (const RaftTestNode* n : nodes_) {
    const bool in = std::find(side.begin(), side.end(), n->raft_id()) != side.end();
    (in ? inside : outside).push_back(n->id());
  }
  FaultHandle cut = 0;
  act([&] { cut = sim.network().faults().add_cut(inside, outside, false); });
  return cut;
}

inline void RaftCluster::heal(FaultHandle cut) {
  act([&] {
    sim.network().faults().remove(cut);
    sim.network().release_held_messages();
  });
}

inline void RaftCluster::check_invariants() {
  for (const RaftTestNode* n : nodes_) {
    const models::RaftElection& e = n->durable().election();
    const auto i = static_cast<std::size_t>(n->raft_id());
    if (e.epoch < epochs_[i]) {
      violation("MonotonicEpoch: replica " + std::to_string(i) + " went back to epoch " + std::to_string(e.epoch));
    }
    epochs_[i] = e.epoch;
    if (!e.has_leader()) continue;
    const auto [it, first] = leaders_.emplace(e.epoch, e.leader);
    if (!first && it->second != e.leader) {
      violation("SingleLeader: epoch " + std::to_string(e.epoch) + " has leaders " + std::to_string(it->second) +
                " and " + std::to_string(e.leader));
    }
  }
  for (const RaftTestNode* n : nodes_) {
    const models::RaftReplica* r = n->replica();
    if (r && r->role() == models::RaftRole::Leader && r->high_watermark()) check_leader_high_watermark(*r);
  }
}

inline void RaftCluster::check_leader_high_watermark(const models::RaftReplica& leader) {
  const Offset hw = *leader.high_watermark();
  const Epoch epoch = leader.epoch();
  for (const auto& [e, seen] : leader_high_watermarks_) {
    if ((e <= epoch && hw < seen) || (e > epoch && hw > seen)) {
      violation("MonotonicHighWatermark: " + std::to_string(hw) + " in epoch " + std::to_string(epoch) + " after " +
                std::to_string(seen) + " in epoch " + std::to_string(e));
    }
  }
  Offset& largest = leader_high_watermarks_[epoch];
  largest = std::max(largest, hw);
  int reached = 0;
  for (const RaftNodeId v : quorum_.voters) reached += node(v).durable().log().flushed_end_offset() >= hw ? 1 : 0;
  if (reached < majority()) {
    violation("MajorityReachedHighWatermark: " + std::to_string(reached) + " voters have " + std::to_string(hw) +
              " flushed");
  }
}

inline void RaftCluster::applied(RaftNodeId id, Offset offset, std::uint64_t value) {
  const auto [it, first] = committed_.emplace(offset, value);
  if (!first && it->second != value) {
    violation("ConsistentCommittedData: replica " + std::to_string(id) + " replayed " + std::to_string(value) +
              " at offset " + std::to_string(offset) + ", committed as " + std::to_string(it->second));
  }
}

inline void RaftCluster::check_committed_data() {
  for (RaftTestNode* n : nodes_) {
    const models::RaftReplica* r = n->replica();
    if (!r || !r->high_watermark()) continue;
    for (Offset offset = 0; offset < *r->high_watermark(); ++offset) {
      const models::RaftEntry& entry = n->durable().log().at(offset);
      if (entry.record->is_control()) continue;
      applied(n->raft_id(), offset, static_cast<const SequenceRecord&>(*entry.record).value);
    }
  }
}

inline std::string RaftCluster::final_check() {
  check_committed_data();
  std::string out;
  for (const std::string& v : violations_) out += v + "\n";
  return out;
}

// SequentialAppendAction: every leader that may write appends the next number.
inline void RaftCluster::append_tick() {
  for (RaftTestNode* n : nodes_) {
    models::RaftReplica* r = n->replica();
    if (!r || !r->leader_ready()) continue;
    std::vector<models::RaftRecordPtr> records{std::make_shared<SequenceRecord>(next_value_++)};
    r->append(r->epoch(), std::move(records));
  }
  sim.events().schedule_after(options_.append_interval, [this] { append_tick(); });
}

}  // namespace ksim::testing
