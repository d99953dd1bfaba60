#pragma once
// The request/response workload's part of a run's report: what the clients
// sent and how it ended, throughput and latency; one figure table, as JSON
// (under "workload") and text.
#include <cstdint>
#include <ostream>

#include <nlohmann/json.hpp>

#include "app/harness/cluster.hpp"
#include "app/report/figure_table.hpp"

namespace ksim::app {

struct RpcFigures {
  std::uint64_t sent = 0, completed = 0, timed_out = 0, failed = 0, not_sent = 0, lost_in_crash = 0;
  double throughput_per_s = 0;
  double latency_p50_ms = 0, latency_p99_ms = 0, latency_p999_ms = 0, latency_max_ms = 0;
  double completed_fraction() const { return sent ? static_cast<double>(completed) / static_cast<double>(sent) : 0.0; }
};

const Section<RpcFigures>& rpc_section();

RpcFigures rpc_figures(const Cluster& cluster, double sim_time_s);
void add_rpc_json(const RpcFigures& r, nlohmann::ordered_json& j);
void print_rpc(const RpcFigures& r, std::ostream& out);

}  // namespace ksim::app
