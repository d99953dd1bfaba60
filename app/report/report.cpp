#include "app/report/report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "app/scenario/units.hpp"

namespace ksim::app {

namespace {

ExpectationResult at_least(std::string name, double value, double bound) {
  return {std::move(name), value >= bound, fmt::format("{:.4g} >= {:.4g}", value, bound)};
}
ExpectationResult at_most(std::string name, double value, double bound) {
  return {std::move(name), value <= bound, fmt::format("{:.4g} <= {:.4g}", value, bound)};
}

void check_rpc(const ExpectSpec& expect, const RpcFigures& r, std::vector<ExpectationResult>& results) {
  const double completed_fraction = r.sent ? static_cast<double>(r.completed) / static_cast<double>(r.sent) : 0.0;
  if (expect.min_completed_fraction) {
    results.push_back(at_least("min_completed_fraction", completed_fraction, *expect.min_completed_fraction));
  }
  if (expect.max_completed_fraction) {
    results.push_back(at_most("max_completed_fraction", completed_fraction, *expect.max_completed_fraction));
  }
  if (expect.min_timeouts) {
    results.push_back(at_least("min_timeouts", static_cast<double>(r.timed_out), static_cast<double>(*expect.min_timeouts)));
  }
  if (expect.max_timeouts) {
    results.push_back(at_most("max_timeouts", static_cast<double>(r.timed_out), static_cast<double>(*expect.max_timeouts)));
  }
  if (expect.max_p99_latency) {
    const auto p99 = static_cast<SimTime>(r.latency_p99_ms * 1e6);
    results.push_back({"max_p99_latency", p99 <= *expect.max_p99_latency,
                       units::format_duration(p99) + " <= " + units::format_duration(*expect.max_p99_latency)});
  }
}

std::uint64_t count_named(const KafkaFigures& k, const std::string& name) {
  const auto& d = k.delivery;
  if (name == "produced") return d.produced;
  if (name == "acknowledged") return d.acknowledged;
  if (name == "failed") return d.failed;
  if (name == "pending") return d.pending;
  if (name == "lost") return d.lost;
  if (name == "unavailable") return d.unavailable;
  if (name == "duplicated") return d.duplicated;
  if (name == "reordered") return d.reordered;
  if (name == "failed_but_written") return d.failed_but_written;
  if (name == "offline_partitions") return k.offline_partitions.size();
  if (name == "unclean_elections") return k.controller.unclean_elections;
  if (name == "invariant_violations") return k.invariant_violations;
  return 0;
}

bool guarantee_held(const models::DeliveryReport& d, const std::string& guarantee) {
  if (guarantee == "exactly-once") return d.exactly_once();
  if (guarantee == "at-least-once") return d.at_least_once();
  if (guarantee == "at-most-once") return d.at_most_once();
  return true;
}

void check_kafka(const ExpectSpec& expect, const KafkaFigures& k, std::vector<ExpectationResult>& results) {
  if (expect.delivery) {
    results.push_back({"delivery", guarantee_held(k.delivery, *expect.delivery),
                       fmt::format("required {}, verdict {}", *expect.delivery, k.delivery.verdict())});
  }
  for (const CountExpectation& e : expect.counts) {
    const std::uint64_t actual = count_named(k, e.name);
    results.push_back({e.name, e.holds(actual), fmt::format("{} (expected {})", actual, e.text())});
  }
  check_groups(expect.groups, k.groups, results);
  if (!k.transactions) return;
  const TransactionFigures& t = *k.transactions;
  if (expect.transactions_exactly_once) {
    results.push_back({"transactions.exactly_once", t.exactly_once() == *expect.transactions_exactly_once,
                       fmt::format("{} (expected {})", t.exactly_once(), *expect.transactions_exactly_once)});
  }
  for (const CountExpectation& e : expect.transaction_counts) {
    const std::uint64_t actual = e.name == "committed"           ? t.committed
                                 : e.name == "aborted"           ? t.aborted
                                 : e.name == "fenced"            ? t.fenced
                                 : e.name == "output_missing"    ? t.output_missing
                                 : e.name == "output_duplicates" ? t.output_duplicates
                                 : e.name == "aborted_reads"     ? t.aborted_reads
                                 : e.name == "zombie_writes"     ? t.zombie_writes
                                                                 : t.hanging.size();
    results.push_back({"transactions." + e.name, e.holds(actual), fmt::format("{} (expected {})", actual, e.text())});
  }
}

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

KafkaFigures kafka_figures(const Cluster& cluster) {
  KafkaFigures k;
  const models::FinalLogs logs = cluster.final_logs();
  k.delivery = models::check_delivery(cluster.history(), logs);
  k.offline_partitions = logs.offline;
  Histogram latency;
  for (const auto* p : cluster.producers()) {
    const auto& s = p->stats();
    latency.merge(s.latency);
    k.producer_memory_peak_bytes = std::max(k.producer_memory_peak_bytes, s.memory_peak_bytes);
    k.producer_requests += s.requests;
    k.producer_retries += s.retries;
    k.blocked_sends += s.blocked_sends;
    k.epoch_bumps += s.epoch_bumps;
  }
  const double seconds = to_seconds(cluster.scenario().duration);
  // Acknowledged within the workload's duration: what a closed loop's
  // buffer.memory holds is acknowledged in the drain and is not throughput.
  const ResourceSample& at_end = cluster.resources_at_end_of_workload();
  k.records_per_s = static_cast<double>(at_end.records_acked) / seconds;
  k.bytes_per_s = static_cast<double>(at_end.bytes_acked) / seconds;
  k.latency_p50_ms = to_milliseconds(latency.percentile(50));
  k.latency_p99_ms = to_milliseconds(latency.percentile(99));
  k.latency_p999_ms = to_milliseconds(latency.percentile(99.9));
  k.latency_max_ms = to_milliseconds(latency.max());
  for (const auto* b : cluster.brokers()) {
    for (const auto& d : b->log_dir_stats()) k.log_dirs.push_back({b->broker_id(), d});
  }
  k.controller = cluster.controller()->stats();
  k.invariant_violations = cluster.invariant_violations().size();
  k.groups = group_figures(cluster, logs, k.delivery);
  if (cluster.has_transactions()) k.transactions = transaction_figures(cluster, k.delivery, k.groups);
  k.performance = performance_figures(cluster);
  return k;
}

std::string ref(const models::RecordRef& r) { return models::to_string(r); }

nlohmann::ordered_json kafka_json(const KafkaFigures& k) {
  const auto& d = k.delivery;
  nlohmann::ordered_json j;
  j["delivery"] = {{"produced", d.produced},
                   {"acknowledged", d.acknowledged},
                   {"failed", d.failed},
                   {"pending", d.pending},
                   {"lost", d.lost},
                   {"unavailable", d.unavailable},
                   {"duplicated", d.duplicated},
                   {"reordered", d.reordered},
                   {"failed_but_written", d.failed_but_written},
                   {"at_most_once", d.at_most_once()},
                   {"at_least_once", d.at_least_once()},
                   {"exactly_once", d.exactly_once()},
                   {"verdict", d.verdict()}};
  nlohmann::ordered_json lost = nlohmann::ordered_json::array();
  for (const auto& l : d.lost_examples) lost.push_back({{"record", ref(l.record)}, {"acknowledged_offset", l.acknowledged_offset}});
  nlohmann::ordered_json duplicated = nlohmann::ordered_json::array();
  for (const auto& x : d.duplicate_examples) duplicated.push_back({{"record", ref(x.record)}, {"offsets", x.offsets}});
  nlohmann::ordered_json reordered = nlohmann::ordered_json::array();
  for (const auto& x : d.reordered_examples) {
    reordered.push_back({{"record", ref(x.record)}, {"offset", x.offset}, {"committed_after", x.committed_after}});
  }
  j["delivery"]["examples"] = {{"lost", lost}, {"duplicated", duplicated}, {"reordered", reordered}};
  j["throughput"] = {{"records_per_s", k.records_per_s}, {"bytes_per_s", k.bytes_per_s}};
  j["latency_ms"] = {{"p50", k.latency_p50_ms}, {"p99", k.latency_p99_ms}, {"p999", k.latency_p999_ms}, {"max", k.latency_max_ms}};
  j["producer_memory_peak_bytes"] = k.producer_memory_peak_bytes;
  j["producer"] = {{"requests", k.producer_requests},
                   {"retries", k.producer_retries},
                   {"blocked_sends", k.blocked_sends},
                   {"epoch_bumps", k.epoch_bumps}};
  nlohmann::ordered_json dirs = nlohmann::ordered_json::array();
  for (const auto& d2 : k.log_dirs) {
    dirs.push_back({{"broker", d2.broker}, {"path", d2.stats.path}, {"partitions", d2.stats.partitions},
                    {"bytes", d2.stats.bytes}, {"online", d2.stats.online},
                    {"bytes_read_from_disk", d2.stats.bytes_read_from_disk}});
  }
  j["log_dirs"] = dirs;
  nlohmann::ordered_json offline = nlohmann::ordered_json::array();
  for (const auto& tp : k.offline_partitions) offline.push_back(fmt::format("{}-{}", tp.topic, tp.partition));
  j["offline_partitions"] = offline;
  j["controller"] = {{"elections", k.controller.elections},
                     {"unclean_elections", k.controller.unclean_elections},
                     {"isr_changes", k.controller.isr_changes},
                     {"fencings", k.controller.fencings},
                     {"controlled_shutdowns", k.controller.controlled_shutdowns},
                     {"max_leaderless_ms", to_milliseconds(k.controller.max_leaderless)}};
  j["invariant_violations"] = k.invariant_violations;
  j["groups"] = groups_json(k.groups);
  if (k.transactions) j["transactions"] = transactions_json(*k.transactions);
  add_performance_json(k.performance, j);
  return j;
}

void print_kafka(const KafkaFigures& k, std::ostream& out) {
  const auto& d = k.delivery;
  fmt::print(out, "delivery: {}\n", d.verdict());
  fmt::print(out, "  produced {}  acknowledged {}  failed {}  pending {}\n", d.produced, d.acknowledged, d.failed, d.pending);
  fmt::print(out, "  lost {}  unavailable {}  duplicated {}  reordered {}  failed but written {}\n", d.lost,
             d.unavailable, d.duplicated, d.reordered, d.failed_but_written);
  fmt::print(out, "  at-most-once {}  at-least-once {}  exactly-once {}\n", d.at_most_once() ? "held" : "VIOLATED",
             d.at_least_once() ? "held" : "VIOLATED", d.exactly_once() ? "held" : "VIOLATED");
  for (const auto& l : d.lost_examples) fmt::print(out, "  lost {} (acknowledged at offset {})\n", ref(l.record), l.acknowledged_offset);
  for (const auto& x : d.duplicate_examples) fmt::print(out, "  duplicated {} at offsets {}\n", ref(x.record), fmt::join(x.offsets, ", "));
  for (const auto& x : d.reordered_examples) {
    fmt::print(out, "  reordered {} at offset {}, after record #{}\n", ref(x.record), x.offset, x.committed_after);
  }
  fmt::print(out, "\nproduce\n");
  fmt::print(out, "  throughput {:.0f} records/s  {}\n", k.records_per_s, units::format_bandwidth(k.bytes_per_s));
  fmt::print(out, "  latency p50 {:.3f}ms  p99 {:.3f}ms  p99.9 {:.3f}ms  max {:.3f}ms\n", k.latency_p50_ms,
             k.latency_p99_ms, k.latency_p999_ms, k.latency_max_ms);
  fmt::print(out, "  requests {}  retries {}  blocked sends {}  producer memory peak {}\n", k.producer_requests,
             k.producer_retries, k.blocked_sends, units::format_bytes(k.producer_memory_peak_bytes));
  print_performance(k.performance, out);
  fmt::print(out, "\ncluster\n");
  fmt::print(out, "  elections {}  unclean {}  ISR changes {}  fencings {}  longest leaderless {:.1f}ms\n",
             k.controller.elections, k.controller.unclean_elections, k.controller.isr_changes, k.controller.fencings,
             to_milliseconds(k.controller.max_leaderless));
  fmt::print(out, "  offline partitions {}  invariant violations {}\n", k.offline_partitions.size(), k.invariant_violations);
  std::map<models::BrokerId, std::uint64_t> per_broker;
  for (const auto& dir : k.log_dirs) per_broker[dir.broker] += dir.stats.bytes;
  for (const auto& [broker, bytes] : per_broker) {
    fmt::print(out, "  broker {}: {:.1f} MiB\n", broker, static_cast<double>(bytes) / 1048576.0);
    for (const auto& dir : k.log_dirs) {
      if (dir.broker != broker) continue;
      fmt::print(out, "    {}: {} partitions, {:.1f} MiB{}\n", dir.stats.path, dir.stats.partitions,
                 static_cast<double>(dir.stats.bytes) / 1048576.0, dir.stats.online ? "" : " (offline)");
    }
  }
  print_groups(k.groups, out);
  if (k.transactions) print_transactions(*k.transactions, out);
}

void print_rpc(const RpcFigures& r, std::ostream& out) {
  fmt::print(out, "requests\n");
  fmt::print(out, "  sent {}  completed {}  timed out {}  failed {}  not sent {}  lost in crashes {}\n", r.sent,
             r.completed, r.timed_out, r.failed, r.not_sent, r.lost_in_crash);
  fmt::print(out, "  throughput {:.1f}/s\n", r.throughput_per_s);
  fmt::print(out, "  latency p50 {:.3f}ms  p99 {:.3f}ms  p99.9 {:.3f}ms  max {:.3f}ms\n", r.latency_p50_ms,
             r.latency_p99_ms, r.latency_p999_ms, r.latency_max_ms);
}

}  // namespace

bool RunReport::expectations_held() const {
  for (const auto& e : expectations) {
    if (!e.held) return false;
  }
  return true;
}

RunReport make_report(const Cluster& cluster, double wall_s) {
  const Simulation& sim = cluster.sim();
  const Scenario& scenario = cluster.scenario();
  RunReport r;
  r.scenario = scenario.name;
  r.file = scenario.file;
  r.seed = scenario.seed;
  r.trace_hash = sim.trace().hash();
  r.trace_records = sim.trace().records();
  r.sim_time_s = to_seconds(sim.now());
  r.events = sim.events().events_executed();
  r.wall_s = wall_s;
  if (scenario.rpc) {
    r.rpc = rpc_figures(cluster, to_seconds(scenario.duration));
    check_rpc(scenario.expect, *r.rpc, r.expectations);
  }
  if (scenario.kafka) {
    r.kafka = kafka_figures(cluster);
    check_kafka(scenario.expect, *r.kafka, r.expectations);
  }
  r.network = sim.network().stats();
  r.faults_fired = cluster.faults().coverage();
  return r;
}

nlohmann::ordered_json to_json(const RunReport& r) {
  nlohmann::ordered_json j;
  j["scenario"] = r.scenario;
  j["file"] = r.file;
  j["seed"] = r.seed;
  j["trace_hash"] = format_hash(r.trace_hash);
  j["trace_records"] = r.trace_records;
  j["sim_time_s"] = r.sim_time_s;
  j["events"] = r.events;
  j["wall_s"] = r.wall_s;
  j["events_per_wall_s"] = r.wall_s > 0 ? static_cast<double>(r.events) / r.wall_s : 0.0;
  if (r.kafka) {
    const nlohmann::ordered_json kafka = kafka_json(*r.kafka);
    for (const auto& [key, value] : kafka.items()) j[key] = value;
  }
  if (r.rpc) {
    j["workload"] = {{"kind", "rpc"},
                     {"sent", r.rpc->sent},
                     {"completed", r.rpc->completed},
                     {"timed_out", r.rpc->timed_out},
                     {"failed", r.rpc->failed},
                     {"not_sent", r.rpc->not_sent},
                     {"lost_in_crash", r.rpc->lost_in_crash},
                     {"throughput_per_s", r.rpc->throughput_per_s},
                     {"latency_ms", {{"p50", r.rpc->latency_p50_ms}, {"p99", r.rpc->latency_p99_ms},
                                     {"p999", r.rpc->latency_p999_ms}, {"max", r.rpc->latency_max_ms}}}};
  }
  j["network"] = {{"messages_sent", r.network.messages_sent},
                  {"messages_delivered", r.network.messages_delivered},
                  {"messages_dropped", r.network.messages_dropped},
                  {"messages_held", r.network.messages_held},
                  {"bytes_sent", r.network.bytes_sent},
                  {"connections_opened", r.network.connections_opened},
                  {"connections_reset", r.network.connections_reset}};
  j["faults_fired"] = r.faults_fired;
  nlohmann::ordered_json expectations = nlohmann::ordered_json::array();
  for (const auto& e : r.expectations) expectations.push_back({{"name", e.name}, {"held", e.held}, {"detail", e.detail}});
  j["expectations"] = expectations;
  j["expectations_held"] = r.expectations_held();
  return j;
}

void print_report(const RunReport& r, std::ostream& out) {
  fmt::print(out, "ksim run: {} ({})\n", r.scenario.empty() ? r.file : r.scenario, r.file);
  fmt::print(out, "  seed {}  trace hash {}  ({} trace records)\n", r.seed, format_hash(r.trace_hash), r.trace_records);
  fmt::print(out, "  simulated {:.3f}s in {:.3f}s of wall time, {} events\n\n", r.sim_time_s, r.wall_s, r.events);
  if (r.kafka) print_kafka(*r.kafka, out);
  if (r.rpc) print_rpc(*r.rpc, out);
  fmt::print(out, "\nnetwork\n");
  fmt::print(out, "  messages sent {}  delivered {}  dropped {}  held by cuts {}\n", r.network.messages_sent,
             r.network.messages_delivered, r.network.messages_dropped, r.network.messages_held);
  fmt::print(out, "  connections opened {}  reset {}\n\n", r.network.connections_opened, r.network.connections_reset);
  fmt::print(out, "faults fired\n ");
  for (const auto& [kind, count] : r.faults_fired) fmt::print(out, " {} {}", kind, count);
  fmt::print(out, "\n");
  if (!r.expectations.empty()) {
    fmt::print(out, "\nexpectations\n");
    for (const auto& e : r.expectations) fmt::print(out, "  [{}] {}: {}\n", e.held ? "ok" : "FAILED", e.name, e.detail);
  }
}

}  // namespace ksim::app
