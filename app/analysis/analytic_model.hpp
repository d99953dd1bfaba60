#pragma once
// The analytic cross-check of a run: the same workload and hardware profile
// as a flow network (app/analysis/flow_model.hpp) over every resource the
// simulation models (broker CPU and its thread pools, disks, NICs, client
// threads), giving each resource's expected utilisation and the throughput
// at which the first one saturates. Batching (records per batch, batches per
// request) depends on timing (linger.ms, in-flight requests), so it is taken
// from the run; everything else comes from the profile and the scenario.
// Covers the produce, replicate and consume paths of the producers' topic;
// transactions and group coordination are left out.
#include <optional>
#include <string>

#include "app/harness/cluster.hpp"
#include "app/harness/resource_usage.hpp"

namespace ksim::app {

struct AnalyticFigures {
  double offered_records_per_s = 0;  // the open-loop producers' rates (0 for closed loops)
  double max_records_per_s = 0;      // where the bottleneck saturates
  double records_per_s = 0;          // expected: the offered rate, or the maximum for closed loops or overload
  Utilization utilization;           // expected, at records_per_s
};

// Only for Kafka scenarios with a hardware profile and a producer.
std::optional<AnalyticFigures> analytic_figures(const Cluster& cluster);

}  // namespace ksim::app
