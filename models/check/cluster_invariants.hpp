#pragma once
// The cluster's invariants, checked after every event (Simulation's
// after-event hook), as Kafka's RaftEventSimulationTest checks its own:
//
// - single_leader_per_epoch: one leader epoch of a partition belongs to one
//   broker, for the whole run.
// - high_watermark_monotonic: a partition's high watermark never goes back
//   within a leader epoch.
// - high_watermark_within_isr: a leader's high watermark never exceeds the
//   log end offset of a running member of its ISR, unless that member lost
//   its log's tail to a power loss, or to truncation before KIP-101, since
//   it last reached the high watermark (Kafka does not detect those losses
//   before KIP-966: the delivery checker reports what they cost).
// - replicas_agree_on_committed_prefix: every replica of a partition agrees
//   with its leader on the records below both their high watermarks
//   (replica_agreement.hpp), checked at each leader change and at the end.
//
// - log_start_within_high_watermark, log_start_offset_monotonic: retention
//   deletes only below the high watermark, and the log start never goes back
//   (but by a truncation below it), on each replica whose log start moved;
//   tiered_local_log_start_within_remote: under tiered storage (KIP-405) a
//   local log deletes only what the remote store holds.
//
// - share_start_within_end, share_acquired_records_locked,
//   share_delivery_count_within_limit: KIP-932's share-partitions on their
//   leaders (SPSO <= SPEO, every ACQUIRED record locked, delivery counts
//   within group.share.delivery.count.limit), after each event that changed one.
//
// (The controller asserts its own: an ISR and a leader among the assigned replicas.)
// With a controller quorum, the quorum's invariants too (quorum_invariants.hpp).
//
// Scope::Changed checks, after each event, the partitions that changed in
// it in a way that can break them (every Partition tells its listener what
// changed: an append cannot break them, only end a violation) and those of a
// broker that started, stopped, paused or resumed; Scope::Everything checks
// every partition after every event, for test builds and for the test that
// both scopes find the same.
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <tuple>
#include <vector>

#include "models/broker/broker.hpp"
#include "models/check/invariant.hpp"
#include "models/check/quorum_invariants.hpp"
#include "models/controller/controller_quorum.hpp"
#include "models/events/model_event.hpp"

namespace ksim::models {

inline constexpr std::string_view kReplicaDivergence = "replicas_agree_on_committed_prefix";

class ClusterInvariants final : public PartitionListener {
 public:
  enum class Scope { Changed, Everything };

  // `brokers` by broker id. Listens to every broker's partitions.
  ClusterInvariants(std::vector<Broker*> brokers, const ControllerQuorum& controller, std::uint64_t seed, Scope scope);
  ClusterInvariants(const ClusterInvariants&) = delete;
  ClusterInvariants& operator=(const ClusterInvariants&) = delete;

  static std::span<const Invariant> all();

  void partition_changed(const Partition& partition, PartitionChange change) override;
  void on_event(const Node& from, const ModelEvent& event);
  void on_node(const Node& node, NodeChange change);
  // After every event: checks what changed (or everything).
  void after_event(SimTime now);
  // At the end of a run: every partition's replicas against its leader.
  void check_at_end(SimTime now);

  const std::vector<InvariantViolation>& violations() const { return violations_; }
  // The replicas check_at_end found diverged from their partition's leader:
  // a divergence nothing repaired by the end of the run.
  std::size_t divergences_at_end() const { return divergences_at_end_; }

 private:
  using Key = std::tuple<std::string_view, TopicPartition, BrokerId>;  // invariant, partition, broker
  struct EpochRecord {
    Epoch epoch;
    BrokerId leader;
    Offset high_watermark;  // the largest seen in the epoch
  };
  // Checks `tp` where `broker` changed: as its leader, or else every leader of it.
  void check(TopicPartition tp, BrokerId broker, SimTime now);
  void check_all_leaders(TopicPartition tp, SimTime now);
  std::vector<EpochRecord>& epochs_of(TopicPartition tp);
  void check_leader(const Broker& leader, const Partition& p, SimTime now);
  void check_share_partitions(const Broker& b, SimTime now);
  void check_log_starts(SimTime now);
  void check_cleaned_logs(SimTime now);
  // The number of replicas of `tp` that diverge from its leader.
  std::size_t check_agreement(TopicPartition tp, SimTime now);
  // Records the start of a violation (once until it holds again); `holds` ends one.
  template <class Detail>  // std::string(): what was seen, formatted only for a violation
  void verdict(bool holds, std::string_view invariant, TopicPartition tp, BrokerId broker, SimTime now,
               const Detail& detail);

  std::vector<Broker*> brokers_;
  const ControllerQuorum& controller_;
  std::uint64_t seed_;
  Scope scope_;
  std::vector<std::pair<TopicPartition, BrokerId>> changed_;  // in this event: a partition, on a broker
  std::vector<TopicPartition> new_leaders_;  // in this event: partitions whose leader changed
  // By topic and partition: each leader epoch seen. Topics created during the run are
  // added when first seen (a flat index fixed at the start put them over other topics).
  std::vector<std::vector<std::vector<EpochRecord>>> epochs_;
  std::set<std::pair<BrokerId, TopicPartition>> lost_tail_;  // replicas excused from high_watermark_within_isr
  struct LogStartMove {
    TopicPartition tp;
    BrokerId broker;
    Offset log_start, high_watermark, log_end;
    Offset remote_covered_end;  // tiered storage: what the remote store holds ends there (INT64_MAX: not tiered)
  };
  std::vector<LogStartMove> log_start_moves_;  // in this event
  std::vector<std::pair<TopicPartition, BrokerId>> cleaned_;  // in this event: logs the cleaner compacted
  std::map<std::pair<BrokerId, TopicPartition>, Offset> log_starts_;  // each replica's largest log start offset seen
  std::set<Key> broken_;  // violations in progress
  std::size_t divergences_at_end_ = 0;
  std::vector<InvariantViolation> violations_;
  std::unique_ptr<QuorumInvariants> quorum_;  // with a controller quorum
};

}  // namespace ksim::models
