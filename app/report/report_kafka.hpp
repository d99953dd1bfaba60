#pragma once
// The Kafka cluster's part of a run's report: delivery, produce and cluster
// sections (one figure table each), then the consumer groups, transactions
// and performance sections of their own files; as JSON and text.
#include <optional>
#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/harness/cluster.hpp"
#include "app/report/figure_table.hpp"
#include "app/report/report_availability.hpp"
#include "app/report/report_compaction.hpp"
#include "app/report/report_tiered.hpp"
#include "app/report/report_groups.hpp"
#include "app/report/report_partition_costs.hpp"
#include "app/report/report_quorum.hpp"
#include "app/report/report_resources.hpp"
#include "app/report/report_share_groups.hpp"
#include "app/report/report_startup.hpp"
#include "app/report/report_operations.hpp"
#include "app/report/report_transactions.hpp"
#include "models/check/delivery_checker.hpp"

namespace ksim::app {

struct LogDirFigures {
  models::BrokerId broker;
  models::LogDirStats stats;
};

struct KafkaFigures {
  models::DeliveryReport delivery;
  double records_per_s = 0;
  double bytes_per_s = 0;
  double latency_p50_ms = 0, latency_p99_ms = 0, latency_p999_ms = 0, latency_max_ms = 0;
  std::uint64_t producer_memory_peak_bytes = 0;
  std::uint64_t producer_requests = 0, producer_retries = 0, blocked_sends = 0, metadata_waits = 0, epoch_bumps = 0;
  double blocked_s = 0, longest_block_ms = 0;  // send() waiting for buffer.memory: summed, and the longest
  std::vector<LogDirFigures> log_dirs;
  std::vector<models::TopicPartition> offline_partitions;
  models::ControllerStats controller;
  QuorumFigures quorum;  // the controller, or the controller quorum: when it had an active controller
  std::uint64_t invariant_violations = 0;
  std::uint64_t replica_divergences = 0;  // of them, replicas_agree_on_committed_prefix
  std::uint64_t replica_divergences_at_end = 0;  // those nothing repaired by the end of the run
  std::vector<models::InvariantViolation> invariants;  // each violation, by invariant name
  std::vector<GroupFigures> groups;
  std::vector<ShareGroupFigures> share_groups;  // KIP-932
  std::optional<TransactionFigures> transactions;  // when a producer is transactional
  PerformanceFigures performance;
  models::AvailabilityFigures availability;
  StartupFigures startup;  // how the clients started, and the warm-up's figures
  PartitionCosts partition_costs;
  OperationFigures operations;  // the scenario's operations and its partition reassignments (KIP-455)
  models::CompactionReport compaction;  // the log cleaner (cleanup.policy=compact)
  std::optional<TieredFigures> tiered;  // when a topic has remote.storage.enable (KIP-405)
};

const Section<models::DeliveryReport>& delivery_section();
const Section<KafkaFigures>& produce_section();
const Section<KafkaFigures>& cluster_section();

KafkaFigures kafka_figures(const Cluster& cluster);
// The delivery section alone (ksim check prints it as ksim run does).
void add_delivery_json(const models::DeliveryReport& d, nlohmann::ordered_json& j);
void print_delivery(const models::DeliveryReport& d, std::ostream& out);
// Its sections, at the top level of a run's JSON report.
void add_kafka_json(const KafkaFigures& k, nlohmann::ordered_json& j);
void print_kafka(const KafkaFigures& k, std::ostream& out);

}  // namespace ksim::app
