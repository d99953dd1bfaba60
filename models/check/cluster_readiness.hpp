#pragma once
// When a cluster is ready for clients: what a benchmark of real Kafka waits
// for before it measures (kafka-producer-perf-test runs against a topic that
// exists; OpenMessaging Benchmark creates its topics, then warms up). Every
// partition has a leader that acts as leader in the controller's epoch, and
// every other in-sync replica has fetched from it once, so its next fetch is
// parked in the leader's purgatory and wakes on the first append
// (AbstractFetcherThread: a partition added while a fetch is in flight waits
// for that fetch's answer, up to replica.fetch.wait.max.ms).
#include <optional>
#include <string>

#include "models/check/committed_logs.hpp"

namespace ksim::models {

// Nullopt when ready; otherwise the first thing still missing, in words.
std::optional<std::string> cluster_not_ready(const ClusterView& cluster);

}  // namespace ksim::models
