#include "models/controller/replica_assignment.hpp"

#include <algorithm>
#include <cassert>
#include <map>

// A port of Kafka's AdminUtils.assignReplicasToBrokers (kafka.admin.AdminUtils,
// later org.apache.kafka.admin.AdminUtils): assignReplicasToBrokersRackUnaware,
// assignReplicasToBrokersRackAware, getRackAlternatedBrokerList and replicaIndex,
// with startPartitionId = -1 (partitions numbered from 0).

namespace ksim::models {
namespace {

using ReplicaLists = std::vector<std::vector<BrokerId>>;

// AdminUtils.replicaIndex: the list index of a follower, at least one place after the first replica.
std::int64_t replica_index(std::int64_t first_replica_index, std::int64_t second_replica_shift,
                           std::int64_t replica, std::int64_t brokers) {
  assert(brokers >= 2);
  const std::int64_t shift = 1 + (second_replica_shift + replica) % (brokers - 1);
  return (first_replica_index + shift) % brokers;
}

// Kafka hands the brokers over sorted by id (AdminUtils.getBrokerMetadatas: sortBy(_.id)).
std::vector<BrokerPlacement> sorted_by_id(std::vector<BrokerPlacement> brokers) {
  std::sort(brokers.begin(), brokers.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  const auto same_id = [](const auto& a, const auto& b) { return a.id == b.id; };
  assert(std::adjacent_find(brokers.begin(), brokers.end(), same_id) == brokers.end() && "broker ids must be unique");
  (void)same_id;
  return brokers;
}

// Racks are used only when every broker has one; with some missing, Kafka's
// RackAwareMode.Safe falls back to the rack-unaware assignment, and so do we.
bool every_broker_has_rack(const std::vector<BrokerPlacement>& brokers) {
  return std::all_of(brokers.begin(), brokers.end(), [](const auto& b) { return !b.rack.empty(); });
}

// The loop both of Kafka's algorithms share: first replicas round-robin from
// `start`, the followers' shift growing by one each time round the broker list.
template <typename PlacePartition>
ReplicaLists round_robin(std::int64_t brokers, std::int32_t partitions, std::int64_t start, std::int64_t shift,
                       PlacePartition place_partition) {
  ReplicaLists assignment;
  assignment.reserve(static_cast<std::size_t>(partitions));
  for (std::int64_t p = 0; p < partitions; ++p) {
    if (p > 0 && p % brokers == 0) ++shift;
    assignment.push_back(place_partition((p + start) % brokers, shift));
  }
  return assignment;
}

// AdminUtils.assignReplicasToBrokersRackUnaware.
ReplicaLists assign_rack_unaware(const std::vector<BrokerPlacement>& sorted, std::int32_t partitions,
                               std::int32_t replication_factor, std::int64_t start, std::int64_t shift) {
  const auto n = static_cast<std::int64_t>(sorted.size());
  return round_robin(n, partitions, start, shift, [&](std::int64_t first, std::int64_t replica_shift) {
    std::vector<BrokerId> replicas{sorted[static_cast<std::size_t>(first)].id};
    for (std::int64_t j = 0; j < replication_factor - 1; ++j)
      replicas.push_back(sorted[static_cast<std::size_t>(replica_index(first, replica_shift, j, n))].id);
    return replicas;
  });
}

// The rack-alternated broker list, with each entry's rack numbered in rack-name order.
struct RackAlternated {
  std::vector<BrokerId> brokers;
  std::vector<std::size_t> rack_of;  // parallel to `brokers`
  std::size_t racks = 0;
};

// AdminUtils.getRackAlternatedBrokerList: racks in name order, each rack's
// brokers in id order, one broker from each rack in turn.
RackAlternated rack_alternated(const std::vector<BrokerPlacement>& sorted) {
  std::map<std::string, std::vector<BrokerId>> by_rack;
  for (const auto& broker : sorted) by_rack[broker.rack].push_back(broker.id);
  RackAlternated list;
  list.racks = by_rack.size();
  for (std::size_t round = 0; list.brokers.size() < sorted.size(); ++round) {
    std::size_t rack = 0;
    for (const auto& [name, ids] : by_rack) {
      if (round < ids.size()) {
        list.brokers.push_back(ids[round]);
        list.rack_of.push_back(rack);
      }
      ++rack;
    }
  }
  return list;
}

// One partition of AdminUtils.assignReplicasToBrokersRackAware: walk the list
// from the leader, skipping a broker whose rack already holds a replica while
// some rack holds none (a broker is never taken twice, as RF <= brokers).
std::vector<BrokerId> rack_aware_replicas(const RackAlternated& list, std::int64_t first, std::int64_t shift,
                                          std::int32_t replication_factor) {
  const auto n = static_cast<std::int64_t>(list.brokers.size());
  std::vector<bool> rack_used(list.racks, false), broker_used(list.brokers.size(), false);
  std::vector<BrokerId> replicas;
  std::size_t racks_used = 0;
  const auto take = [&](std::size_t index) {
    replicas.push_back(list.brokers[index]);
    broker_used[index] = true;
    if (!rack_used[list.rack_of[index]]) ++racks_used;
    rack_used[list.rack_of[index]] = true;
  };
  take(static_cast<std::size_t>(first));
  for (std::int64_t k = 0; replicas.size() < static_cast<std::size_t>(replication_factor); ++k) {
    const auto index = static_cast<std::size_t>(replica_index(first, shift * static_cast<std::int64_t>(list.racks), k, n));
    const bool rack_ok = !rack_used[list.rack_of[index]] || racks_used == list.racks;
    if (rack_ok && !broker_used[index]) take(index);
  }
  return replicas;
}

// AdminUtils.assignReplicasToBrokersRackAware.
ReplicaLists assign_rack_aware(const std::vector<BrokerPlacement>& sorted, std::int32_t partitions,
                             std::int32_t replication_factor, std::int64_t start, std::int64_t shift) {
  const RackAlternated list = rack_alternated(sorted);
  const auto n = static_cast<std::int64_t>(list.brokers.size());
  return round_robin(n, partitions, start, shift, [&](std::int64_t first, std::int64_t replica_shift) {
    return rack_aware_replicas(list, first, replica_shift, replication_factor);
  });
}

}  // namespace

namespace detail {

ReplicaLists assign_replicas(const std::vector<BrokerPlacement>& brokers, std::int32_t partitions,
                           std::int32_t replication_factor, std::int32_t start_index, std::int32_t replica_shift) {
  const auto n = static_cast<std::int64_t>(brokers.size());
  assert(partitions >= 1);  // Kafka: InvalidPartitionsException
  assert(replication_factor >= 1 && replication_factor <= n);  // Kafka: InvalidReplicationFactorException
  assert(start_index >= 0 && start_index < n);
  assert(replica_shift >= 0);
  const auto sorted = sorted_by_id(brokers);
  if (every_broker_has_rack(sorted))
    return assign_rack_aware(sorted, partitions, replication_factor, start_index, replica_shift);
  return assign_rack_unaware(sorted, partitions, replication_factor, start_index, replica_shift);
}

}  // namespace detail

// Kafka draws startIndex, then nextReplicaShift, each as rand.nextInt(brokers).
ReplicaLists assign_replicas(const std::vector<BrokerPlacement>& brokers, std::int32_t partitions,
                           std::int32_t replication_factor, RandomStream& rng) {
  assert(!brokers.empty());
  const auto start = static_cast<std::int32_t>(rng.below(brokers.size()));
  const auto shift = static_cast<std::int32_t>(rng.below(brokers.size()));
  return detail::assign_replicas(brokers, partitions, replication_factor, start, shift);
}

}  // namespace ksim::models
