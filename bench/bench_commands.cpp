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

}  // namespace ksim::bench
