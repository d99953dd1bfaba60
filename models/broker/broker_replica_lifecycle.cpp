// A broker's replicas as the controller's assignment changes (KIP-455,
// ReplicaManager.applyDelta): a partition whose replicas now include this
// broker gets a replica, created empty on the log dir with the fewest
// partitions, which then fetches from the leader from offset 0 like any
// follower; one whose replicas no longer include it is stopped and its log
// deleted (TopicsDelta.localChanges' deletes, stopPartitions with
// deleteLocalLog). Kafka renames the log's directory *-delete and removes it
// file.delete.delay.ms (60 s) later (LogManager.asyncDelete, deleteLogs):
// its bytes hold the disk until then.
#include "models/broker/broker.hpp"
#include "models/protocol/replica_list.hpp"

namespace ksim::models {

Broker::Replica* Broker::replica_as_assigned(const PartitionState& state) {
  Replica* r = replica(state.partition);
  if (state.replicas.empty()) return r;  // a ZooKeeper-era leader-and-ISR state: no assignment in it
  if (const auto departed = departed_.find(state.partition); departed != departed_.end()) {
    if (state.partition_epoch >= departed->second.partition_epoch) departed->second = state;
    if (contains(state.replicas, id_)) departed_.erase(departed);  // moved back here
  }
  const bool assigned = contains(state.replicas, id_);
  if (!r && assigned) {
    create_replica(state.partition);
    r = replica(state.partition);
    publish(ReplicaCreated{id_, state.partition, log_dirs_[r->log_dir].spec.path});
    return r;
  }
  if (r && !assigned && !r->is_stale(state)) {
    delete_replica(*r, state);
    return nullptr;
  }
  return r;
}

void Broker::delete_replica(Replica& r, const PartitionState& state) {
  const TopicPartition tp = r.tp();
  changed(r);  // a fetch session that holds it answers NOT_LEADER_OR_FOLLOWER for it next, not silence
  if (r.future) abandon_move(r, "replica deleted");
  stop_replica(r, state);
  publish(ReplicaDeleted{id_, tp, r.log().size_bytes()});
  if (log_dirs_[r.log_dir].online) free_disk_later(r.log_dir, r.log().size_bytes());
  --log_dirs_[r.log_dir].partitions;
  replica_index_[static_cast<std::size_t>(global_index(tp))] = nullptr;
  replicas_.erase(tp);
  departed_[tp] = state;
}

const PartitionState* Broker::departed_state(TopicPartition tp) const {
  const auto it = departed_.find(tp);
  return it == departed_.end() ? nullptr : &it->second;
}

void Broker::throttle_replication(double bytes_per_s, const std::vector<TopicPartition>& partitions) {
  leader_quota_.set_rate(bytes_per_s);
  follower_quota_.set_rate(bytes_per_s);
  throttled_partitions_.insert(partitions.begin(), partitions.end());
}

// ReplicaManager.shouldLeaderThrottle: a throttled partition, a follower out of the ISR.
// The tool's throttle lasts while the partition is reassigned (--verify removes it after).
bool Broker::leader_throttled(const Replica& r, BrokerId follower) const {
  return leader_quota_.enabled() && r.state().reassigning() && throttled_partitions_.contains(r.tp()) &&
         !r.in_isr(follower);
}

// follower.replication.throttled.replicas lists the moving replicas: those being added here.
bool Broker::follower_throttled(const Replica& r) const {
  return follower_quota_.enabled() && r.state().reassigning() && throttled_partitions_.contains(r.tp()) &&
         contains(r.state().adding, id_);
}

}  // namespace ksim::models
