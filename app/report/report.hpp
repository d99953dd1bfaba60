#pragma once
// What a run produced: the figures of the run and its workloads, fault
// coverage and the verdict on the scenario's expectations; as text or JSON.
// Each section of the report is a figure table (figure_table.hpp): the run's
// and the network's here, the others beside their figures.
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/harness/cluster.hpp"
#include "app/report/figure_table.hpp"
#include "app/report/report_expectations.hpp"
#include "app/report/report_kafka.hpp"
#include "app/report/report_release.hpp"
#include "app/report/report_rpc.hpp"
#include "app/report/report_timeseries.hpp"

namespace ksim::app {

struct RunReport {
  std::string scenario;
  std::string file;
  std::uint64_t seed = 0;
  std::uint64_t trace_hash = 0;
  std::uint64_t trace_records = 0;
  double sim_time_s = 0;
  std::uint64_t events = 0;
  double wall_s = 0;
  std::optional<ReleaseFigures> release;  // the Kafka modelled (a scenario with brokers)
  std::optional<RpcFigures> rpc;
  std::optional<KafkaFigures> kafka;
  NetworkStats network;
  std::map<std::string, std::uint64_t> faults_fired;
  std::uint64_t faults_missed = 0;        // faults whose targets stood for nobody when due (leader:T-P of an offline partition)
  FaultPathCounts fault_paths;            // what the faults hit (app/harness/fault_paths.hpp)
  ProtocolStateCounts protocol_states;    // the protocol states it went through (app/harness/protocol_coverage.hpp)
  nlohmann::ordered_json fault_schedule;  // each fault fired, as a `faults:` entry (app/report/fault_schedule.hpp)
  std::vector<ExpectationResult> expectations;
  std::vector<std::string> warnings;         // the scenario's, "file:line:column: key: message"
  std::vector<std::string> ignored_configs;  // "file:line: key.path", accepted by --ignore-unmodelled
  SimTime sample_interval = 0;               // the time series' step (a Kafka scenario's)
  std::vector<models::TimeSample> timeseries;

  double events_per_wall_s() const { return wall_s > 0 ? static_cast<double>(events) / wall_s : 0.0; }
  bool expectations_held() const;
};

const Section<RunReport>& run_section();
const Section<NetworkStats>& network_section();

RunReport make_report(const Cluster& cluster, double wall_s);
nlohmann::ordered_json to_json(const RunReport& report);
void print_report(const RunReport& report, std::ostream& out);

}  // namespace ksim::app
