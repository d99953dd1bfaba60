#pragma once
// How busy each resource was over the workload's duration: brokers' CPU and
// thread pools, disks, network links and the clients' threads. Read at the
// end of `duration` (before the drain), from the busy time each resource
// accumulated; the busiest of each kind is reported, and the bottleneck is
// the kind whose busiest instance is nearest saturation.
#include <string>
#include <vector>

#include "models/broker/broker.hpp"
#include "models/client/consumer/consumer.hpp"
#include "models/client/producer/producer.hpp"
#include "sim/network/topology.hpp"

namespace ksim::app {

struct Utilization {
  double broker_cpu = 0;              // the busiest broker: CPU time over cores x time
  double broker_network_threads = 0;  // ... over its network threads
  double broker_io_threads = 0;       // ... over its request handlers
  double disk = 0;                    // the busiest disk
  double nic = 0;                     // the busiest direction of any host's link
  double client_cpu = 0;              // the busiest client thread (a producer's application or sender thread, a consumer)
  std::string bottleneck;             // broker_cpu, disk, nic, client_cpu or round_trips; "" without CPU costs
  std::string bottleneck_node;        // where: a broker, a host or a client
  // The busiest resource is at least 90% busy. Otherwise the run is bound by
  // something else: round trips (a connection's one request at a time), the
  // offered rate, or buffer.memory.
  bool saturated() const;
  // The busiest resource is a producer's application thread, but records
  // pile up in the accumulators (more than 5% of those sent are not yet
  // acknowledged): the acknowledged rate is bound by the requests' round
  // trips, not by send(); the bottleneck is then `round_trips`.
  double unacknowledged = 0;  // of the records the producers sent, the fraction not acknowledged
};

struct ResourceSample {
  std::vector<std::pair<std::string, models::BrokerCpuUsage>> brokers;
  std::vector<std::pair<std::string, SimTime>> disks;           // busy time per log dir
  std::vector<std::pair<std::string, SimTime>> links;           // busy time per directed link, named by host
  std::vector<std::pair<std::string, SimTime>> client_threads;  // busy time per client thread
  std::uint64_t records_sent = 0;   // handed to the producers' send(), so far
  std::uint64_t records_acked = 0;  // by the producers, so far
  std::uint64_t bytes_acked = 0;
  std::uint64_t batches_sent = 0;     // in produce requests
  std::uint64_t produce_requests = 0;
  std::uint64_t records_consumed = 0;
};

ResourceSample sample_resources(const std::vector<models::Broker*>& brokers,
                                const std::vector<models::Producer*>& producers,
                                const std::vector<models::Consumer*>& consumers, const Topology& topology);
// What was used between two samples of the same cluster (`earlier` may be empty: nothing yet).
ResourceSample used_since(const ResourceSample& later, const ResourceSample& earlier);
Utilization utilization(const ResourceSample& sample, SimTime duration);

}  // namespace ksim::app
