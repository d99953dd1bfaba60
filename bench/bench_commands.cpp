#include "bench/bench_commands.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "app/scenario/units.hpp"
#include "sim/observe/trace.hpp"

namespace ksim::bench {

int bench_engine_command(const PholdOptions& options, bool json, std::ostream& out) {
  const PholdResult r = run_phold(options);
  if (json) {
    nlohmann::ordered_json j{{"benchmark", "phold"},       {"lps", options.lps},
                             {"population", options.population}, {"events", r.events},
                             {"wall_s", r.wall_s},          {"events_per_second", r.events_per_second},
                             {"checksum", r.checksum}};
    out << j.dump() << '\n';
  } else {
    fmt::print(out, "PHOLD: {} LPs, population {}: {} events in {:.3f}s\nevents_per_second {:.0f}\n", options.lps,
               options.population, r.events, r.wall_s, r.events_per_second);
  }
  return 0;
}

int bench_network_command(const NetworkBenchOptions& options, bool json, std::ostream& out) {
  const NetworkBenchResult r = run_network_bench(options);
  if (json) {
    nlohmann::ordered_json j{{"benchmark", "network"},
                             {"pairs", options.pairs},
                             {"rounds", options.rounds},
                             {"size_bytes", options.size_bytes},
                             {"jitter", options.jitter},
                             {"messages", r.messages},
                             {"events", r.events},
                             {"sim_time_s", r.sim_time_s},
                             {"wall_s", r.wall_s},
                             {"messages_per_second", r.messages_per_second},
                             {"trace_hash", format_hash(r.trace_hash)}};
    out << j.dump() << '\n';
  } else {
    fmt::print(out,
               "network: {} pairs x {} rounds of {}-byte request/response: {} messages in {:.3f}s "
               "({:.3f}s simulated)\nmessages_per_second {:.0f}\n",
               options.pairs, options.rounds, options.size_bytes, r.messages, r.wall_s, r.sim_time_s,
               r.messages_per_second);
  }
  return 0;
}

int bench_produce_command(const ProduceBenchOptions& options, bool json, std::ostream& out) {
  const ProduceBenchResult r = run_produce_bench(options);
  if (json) {
    nlohmann::ordered_json j{{"benchmark", "produce"},
                             {"partitions", options.partitions},
                             {"rate_per_s", options.rate_per_s},
                             {"duration_s", options.duration_s},
                             {"record_bytes", options.record_bytes},
                             {"consumers", options.consumers},
                             {"records", r.records},
                             {"consumed", r.consumed},
                             {"events", r.events},
                             {"wall_s", r.wall_s},
                             {"records_per_wall_s", r.records_per_wall_s},
                             {"peak_rss_bytes", r.peak_rss_bytes},
                             {"verdict", r.verdict},
                             {"trace_hash", format_hash(r.trace_hash)}};
    out << j.dump() << '\n';
  } else {
    fmt::print(out,
               "produce: 3 brokers, RF 3, {} partitions, {}-byte records at {:.0f}/s for {}s: {} records, {} events "
               "in {:.3f}s ({})\nconsumed {} by {} consumers\nrecords_per_wall_second {:.0f}\npeak_rss {}\n",
               options.partitions, options.record_bytes, options.rate_per_s, options.duration_s, r.records, r.events,
               r.wall_s, r.verdict, r.consumed, options.consumers, r.records_per_wall_s,
               units::format_bytes(r.peak_rss_bytes));
  }
  return 0;
}

int bench_soak_command(const SoakBenchOptions& options, bool json, std::ostream& out) {
  const SoakBenchResult r = run_soak_bench(options);
  const double speedup = r.run_wall_s > 0 ? r.sim_s / r.run_wall_s : 0;
  const double events_per_s = r.run_wall_s > 0 ? static_cast<double>(r.events) / r.run_wall_s : 0;
  const double records_per_s = r.run_wall_s > 0 ? static_cast<double>(r.records) / r.run_wall_s : 0;
  if (json) {
    nlohmann::ordered_json samples = nlohmann::ordered_json::array();
    for (const SoakSample& s : r.samples)
      samples.push_back({{"sim_s", s.sim_s}, {"wall_s", s.wall_s}, {"rss_bytes", s.rss_bytes}});
    nlohmann::ordered_json j{{"benchmark", "soak"},
                             {"duration_s", options.duration_s},
                             {"partitions", options.partitions},
                             {"brokers", options.brokers},
                             {"producers", options.producers},
                             {"rate_per_s", options.rate_per_s},
                             {"record_bytes", options.record_bytes},
                             {"keys", options.keys},
                             {"retention_s", options.retention_s},
                             {"groups", {options.group_a, options.group_b}},
                             {"sim_s", r.sim_s},
                             {"run_wall_s", r.run_wall_s},
                             {"wall_s", r.wall_s},
                             {"speedup", speedup},
                             {"events", r.events},
                             {"events_per_wall_s", events_per_s},
                             {"records", r.records},
                             {"records_per_wall_s", records_per_s},
                             {"consumed", r.consumed},
                             {"expired", r.expired},
                             {"peak_rss_bytes", r.peak_rss_bytes},
                             {"rss_samples", samples},
                             {"verdict", r.verdict},
                             {"trace_hash", format_hash(r.trace_hash)}};
    out << j.dump() << '\n';
    return 0;
  }
  fmt::print(out,
             "soak: {} brokers, {} partitions RF 3, {} producers x {:.0f} records/s of {} bytes with {} keys, groups of {} "
             "and {}, retention {}s\n",
             options.brokers, options.partitions, options.producers, options.rate_per_s, options.record_bytes,
             options.keys, options.group_a, options.group_b, options.retention_s);
  fmt::print(out, "rss over simulated time:\n");
  for (const SoakSample& s : r.samples)
    fmt::print(out, "  {:>7.0f} s simulated  {:>8.1f} s wall  {}\n", s.sim_s, s.wall_s, units::format_bytes(s.rss_bytes));
  fmt::print(out,
             "simulated_seconds {:.1f}\nwall_seconds {:.1f} (simulation), {:.1f} (with the checks and report)\n"
             "speedup {:.2f}x real time\nevents {} ({:.0f}/s)\nrecords {} acknowledged ({:.0f}/s), {} consumed, {} "
             "expired\npeak_rss {}\nverdict {}\ntrace_hash {}\n",
             r.sim_s, r.run_wall_s, r.wall_s, speedup, r.events, events_per_s, r.records, records_per_s, r.consumed,
             r.expired, units::format_bytes(r.peak_rss_bytes), r.verdict, format_hash(r.trace_hash));
  return 0;
}

}  // namespace ksim::bench
