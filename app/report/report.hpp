#pragma once
// What a run produced: the figures of the run and its workloads, fault
// coverage and the verdict on the scenario's expectations; as text or JSON.
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/harness/cluster.hpp"
#include "app/report/report_groups.hpp"
#include "app/report/report_resources.hpp"
#include "app/report/report_transactions.hpp"
#include "models/check/consumption_checker.hpp"
#include "models/check/delivery_checker.hpp"

namespace ksim::app {

struct ExpectationResult {
  std::string name;
  bool held = false;
  std::string detail;  // "0.973 >= 0.9"
};

struct RpcFigures {
  std::uint64_t sent = 0, completed = 0, timed_out = 0, failed = 0, not_sent = 0, lost_in_crash = 0;
  double throughput_per_s = 0;
  double latency_p50_ms = 0, latency_p99_ms = 0, latency_p999_ms = 0, latency_max_ms = 0;
};

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
  std::uint64_t producer_requests = 0, producer_retries = 0, blocked_sends = 0, epoch_bumps = 0;
  std::vector<LogDirFigures> log_dirs;
  std::vector<models::TopicPartition> offline_partitions;
  models::ControllerStats controller;
  std::uint64_t invariant_violations = 0;
  std::vector<GroupFigures> groups;
  std::optional<TransactionFigures> transactions;  // when a producer is transactional
  PerformanceFigures performance;
};

struct RunReport {
  std::string scenario;
  std::string file;
  std::uint64_t seed = 0;
  std::uint64_t trace_hash = 0;
  std::uint64_t trace_records = 0;
  double sim_time_s = 0;
  std::uint64_t events = 0;
  double wall_s = 0;
  std::optional<RpcFigures> rpc;
  std::optional<KafkaFigures> kafka;
  NetworkStats network;
  std::map<std::string, std::uint64_t> faults_fired;
  std::vector<ExpectationResult> expectations;

  bool expectations_held() const;
};

RunReport make_report(const Cluster& cluster, double wall_s);
void check_groups(const std::vector<GroupExpectation>& expected, const std::vector<GroupFigures>& groups,
                  std::vector<ExpectationResult>& results);
nlohmann::ordered_json to_json(const RunReport& report);
void print_report(const RunReport& report, std::ostream& out);

}  // namespace ksim::app
