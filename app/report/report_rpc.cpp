#include "app/report/report_rpc.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace ksim::app {

namespace {

using RpcRow = RpcFigures;
using U = FigureUnit;

constexpr Figure<RpcRow> kRpc[] = {
    {.name = "kind", .value = [](const RpcRow&) { return figure_value(std::string("rpc")); }, .unit = U::Text},
    {.name = "sent", .value = of<&RpcRow::sent>, .label = "sent"},
    {.name = "completed", .value = of<&RpcRow::completed>, .label = "completed"},
    {.name = "timed_out", .value = of<&RpcRow::timed_out>, .label = "timed out", .expect = ExpectAs::Bound,
     .description = "requests that timed out (request_timeout)", .expect_key = "timeouts"},
    {.name = "failed", .value = of<&RpcRow::failed>, .label = "failed"},
    {.name = "not_sent", .value = of<&RpcRow::not_sent>, .label = "not sent"},
    {.name = "lost_in_crash", .value = of<&RpcRow::lost_in_crash>, .label = "lost in crashes"},
    {.name = "completed_fraction", .value = of<&RpcRow::completed_fraction>, .unit = U::Fraction, .label = "completed fraction",
     .new_line = true, .expect = ExpectAs::Bound, .description = "completed requests over sent requests"},
    {.name = "throughput_per_s", .value = of<&RpcRow::throughput_per_s>, .unit = U::PerSecond, .label = "throughput"},
    {.name = "latency_ms.p50", .value = of<&RpcRow::latency_p50_ms>, .unit = U::Milliseconds, .label = "latency p50",
     .new_line = true, .significant = 3},
    {.name = "latency_ms.p99", .value = of<&RpcRow::latency_p99_ms>, .unit = U::Milliseconds, .label = "p99",
     .expect = ExpectAs::Bound, .description = "the requests' 99th percentile latency", .expect_key = "p99_latency", .significant = 3},
    {.name = "latency_ms.p999", .value = of<&RpcRow::latency_p999_ms>, .unit = U::Milliseconds, .label = "p99.9", .significant = 3},
    {.name = "latency_ms.max", .value = of<&RpcRow::latency_max_ms>, .unit = U::Milliseconds, .label = "max"},
};

constexpr Section<RpcRow> kRpcSection{"rpc workload", SectionScope::Rpc, "workload", kRpc};

}  // namespace

const Section<RpcFigures>& rpc_section() { return kRpcSection; }

RpcFigures rpc_figures(const Cluster& cluster, double sim_time_s) {
  RpcFigures r;
  Histogram latency;
  for (const auto* client : cluster.clients()) {
    const auto& s = client->stats();
    r.sent += s.sent;
    r.completed += s.completed;
    r.timed_out += s.timed_out;
    r.failed += s.failed;
    r.not_sent += s.not_sent;
    r.lost_in_crash += s.lost_in_crash;
    latency.merge(s.latency);
  }
  r.throughput_per_s = sim_time_s > 0 ? static_cast<double>(r.completed) / sim_time_s : 0;
  r.latency_p50_ms = to_milliseconds(latency.percentile(50));
  r.latency_p99_ms = to_milliseconds(latency.percentile(99));
  r.latency_p999_ms = to_milliseconds(latency.percentile(99.9));
  r.latency_max_ms = to_milliseconds(latency.max());
  return r;
}

void add_rpc_json(const RpcFigures& r, nlohmann::ordered_json& j) { add_json(kRpcSection, r, j); }

void print_rpc(const RpcFigures& r, std::ostream& out) {
  fmt::print(out, "rpc workload\n");
  print_figures(kRpcSection, r, out);
}

}  // namespace ksim::app
