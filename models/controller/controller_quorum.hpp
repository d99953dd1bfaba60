#pragma once
// The cluster's controllers as the rest of the model and its checks see
// them: one controller (ksim's default), or a KRaft quorum of them
// (controllers.count), or, before KRaft, the brokers' ZooKeeper sides, one of
// which is the controller. Its metadata is what was committed: alone, the
// controller's (durable at once); in a quorum, the replay of the committed
// metadata log by the controller that has replayed the most; with ZooKeeper,
// the partition states ZooKeeper holds. It also measures the periods without
// an active controller, and in a quorum the brokers' metadata lag (KIP-631).
#include <cstdint>
#include <map>
#include <vector>

#include "models/controller/controller.hpp"
#include "models/controller/zk_controller.hpp"
#include "models/events/broker_events.hpp"
#include "models/zookeeper/zookeeper_server.hpp"

namespace ksim::models {

// The quorum's figures (one controller is a quorum of one, without Raft).
struct QuorumStats {
  std::uint64_t activations = 0;      // a controller became the active one (QuorumController.claim)
  std::uint64_t failovers = 0;        // activations after the first
  std::uint64_t renouncements = 0;    // an active controller stopped leading (renounce, not a crash)
  std::uint64_t reverted_records = 0; // records it had written and not committed then (reverted)
  std::uint64_t raft_elections = 0;   // Raft elections started (a voter became a candidate)
  std::uint64_t inactive_periods = 0; // periods without an active controller after the first activation
  SimTime first_active_at = kNever;   // when the first controller became active
  SimTime inactive = 0;               // time without an active controller after the first activation
  SimTime longest_inactive = 0;       // the longest such period
  // KIP-631 (a quorum's brokers fetch the metadata log): each metadata batch's
  // lag, from its commit on the active controller to a broker applying it,
  // over the batches committed while that broker's process ran.
  struct MetadataLag {
    std::uint64_t batches = 0;
    SimTime total = 0;
    SimTime max = 0;
    void add(SimTime lag);
    double mean_ms() const;
  };
  MetadataLag metadata_lag;                  // every broker's
  std::vector<MetadataLag> metadata_lag_by_broker;  // by broker id (empty without a quorum)
};

class ControllerQuorum {
 public:
  // `controllers` by their id in the quorum.
  explicit ControllerQuorum(std::vector<Controller*> controllers);
  // ZooKeeper mode: every broker's ZooKeeper side (by broker id), and ZooKeeper, whose partition states it follows.
  ControllerQuorum(std::vector<ZkController*> sides, ZooKeeperServer& zookeeper,
                   const std::vector<std::vector<std::vector<BrokerId>>>& assignment);
  bool is_zookeeper() const { return !sides_.empty(); }
  const std::vector<ZkController*>& zookeeper_sides() const { return sides_; }
  const ZkController* active_zookeeper_controller() const;

  const std::vector<Controller*>& controllers() const { return controllers_; }
  bool is_quorum() const { return controllers_.size() > 1; }

  // The committed metadata.
  const std::map<TopicPartition, PartitionState>& partitions() const;
  std::int32_t partition_count(std::int32_t topic) const {
    return is_zookeeper() ? sides_.front()->partition_count(topic) : controllers_.front()->partition_count(topic);
  }
  // The controllers' figures: alone, the controller's; in a quorum, summed
  // (and the first elections of all, in time order).
  ControllerStats stats() const;

  // The controller acting as the active one now (null when none is), and the one that did last.
  const Controller* active() const;
  const Controller* last_active() const { return last_active_; }

  // After every event: notes when the cluster has an active controller, and
  // (in a quorum) when metadata batches are committed.
  void after_event(SimTime now);
  // A broker applied the committed metadata log up to `applied.to` (KIP-631).
  void metadata_applied(SimTime now, const MetadataApplied& applied);
  QuorumStats quorum_stats(SimTime now) const;

 private:
  bool any_active() const { return is_zookeeper() ? active_zookeeper_controller() != nullptr : active() != nullptr; }
  void zookeeper_changed(const std::string& path);
  void note_commits(SimTime now);

  std::vector<Controller*> controllers_;
  std::vector<ZkController*> sides_;
  const ZooKeeperServer* zookeeper_ = nullptr;
  std::map<TopicPartition, PartitionState> zookeeper_partitions_;  // as ZooKeeper holds them
  std::map<std::int32_t, std::vector<zk_data::PartitionAssignment>> zookeeper_assignments_;  // the topic znodes'
  const Controller* last_active_ = nullptr;
  Epoch last_epoch_ = 0;
  SimTime inactive_since_ = kNever;  // kNever: there is an active controller (or never was one)
  QuorumStats stats_;
  // In a quorum: the end offset of every committed metadata batch, and when it was committed.
  std::vector<std::pair<Offset, SimTime>> batch_commits_;
  Offset commits_seen_ = 0;  // the committed end offset they go up to
};

}  // namespace ksim::models
