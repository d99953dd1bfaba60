#include "app/report/report_kafka.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

namespace ksim::app {

namespace {

using D = models::DeliveryReport;
using K = KafkaFigures;
using U = FigureUnit;

// "DELIVERY_TIMEOUT 1120, OUT_OF_ORDER_SEQUENCE_NUMBER 3": the errors that failed records, most first; "none".
std::string failed_because(const D& d) {
  std::vector<std::pair<std::uint64_t, models::Error>> by_count;
  for (const auto& [error, records] : d.failed_by_error) by_count.emplace_back(records, error);
  std::stable_sort(by_count.begin(), by_count.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::string text;
  for (const auto& [records, error] : by_count) {
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", models::to_string(error), records);
  }
  return text.empty() ? "none" : text;
}

constexpr Figure<D> kDelivery[] = {
    {.name = "produced", .value = of<&D::produced>, .label = "produced", .expect = ExpectAs::Count,
     .description = "records handed to the producers"},
    {.name = "acknowledged", .value = of<&D::acknowledged>, .label = "acknowledged", .expect = ExpectAs::Count,
     .description = "records in acknowledged batches"},
    {.name = "failed", .value = of<&D::failed>, .label = "failed", .expect = ExpectAs::Count,
     .description = "records whose batch finally failed"},
    {.name = "pending", .value = of<&D::pending>, .label = "pending", .expect = ExpectAs::Count,
     .description = "records neither acknowledged nor failed at the end"},
    {.name = "lost", .value = of<&D::lost>, .label = "lost", .new_line = true, .expect = ExpectAs::Count,
     .description = "acknowledged records absent from their online partition's committed log"},
    {.name = "unavailable", .value = of<&D::unavailable>, .label = "unavailable", .expect = ExpectAs::Count,
     .description = "acknowledged records of partitions offline at the end"},
    {.name = "expired", .value = of<&D::expired>, .label = "expired", .expect = ExpectAs::Count,
     .description = "committed records retention deleted by the end (retention.ms, retention.bytes): not lost"},
    {.name = "compacted", .value = of<&D::compacted>, .label = "compacted", .expect = ExpectAs::Count,
     .description = "committed records the log cleaner removed by the end (cleanup.policy=compact): superseded by a "
                    "later record of their key, not lost"},
    {.name = "unreplicated", .value = of<&D::unreplicated>, .label = "unreplicated", .expect = ExpectAs::Count,
     .description = "acknowledged records not in the committed log but on its live leader, above the high watermark, "
                    "at the end: neither committed nor lost (the run ended before the followers had them)"},
    {.name = "duplicated", .value = of<&D::duplicated>, .label = "duplicated", .expect = ExpectAs::Count,
     .description = "extra copies of records in the committed logs"},
    {.name = "reordered", .value = of<&D::reordered>, .label = "reordered", .expect = ExpectAs::Count,
     .description = "acknowledged records committed after a later-sent one of the same producer and partition"},
    {.name = "failed_but_written", .value = of<&D::failed_but_written>, .label = "failed but written",
     .expect = ExpectAs::Count, .description = "records of failed batches found in the committed log"},
    {.name = "failed_because", .value = [](const D& d) { return figure_value(failed_because(d)); }, .unit = U::Text,
     .label = "failed because"},
    {.name = "at_most_once", .value = [](const D& d) { return figure_value(Held{d.at_most_once(), d.vacuous}); }, .unit = U::Held, .label = "at-most-once", .new_line = true},
    {.name = "at_least_once", .value = [](const D& d) { return figure_value(Held{d.at_least_once(), d.vacuous}); }, .unit = U::Held, .label = "at-least-once"},
    {.name = "exactly_once", .value = [](const D& d) { return figure_value(Held{d.exactly_once(), d.vacuous}); }, .unit = U::Held, .label = "exactly-once"},
    {.name = "verdict",
     .value =
         [](const D& d) {
           return figure_value(Guarantees{d.at_most_once(), d.at_least_once(), d.exactly_once(), d.vacuous, {}});
         },
     .unit = U::Verdict, .expect = ExpectAs::Guarantee,
     .description = "the guarantee the producers' records must meet: at-most-once (none duplicated), at-least-once "
                    "(none lost or unavailable) or exactly-once (and none reordered)",
     .expect_key = "delivery"},
    {.name = "vacuous", .value = of<&D::vacuous>, .unit = U::Text},
};

constexpr Figure<K> kProduce[] = {
    {.name = "throughput.records_per_s", .value = of<&K::records_per_s>, .unit = U::RecordsPerSecond, .label = "throughput",
     .expect = ExpectAs::Bound,
     .description = "records acknowledged per second while the producers were producing (from the first one's start, "
                    "or the end of the warm-up, to the end of the workload)",
     .expect_key = "throughput"},
    {.name = "throughput.bytes_per_s", .value = of<&K::bytes_per_s>, .unit = U::BytesPerSecond, .label = "in bytes"},
    {.name = "latency_ms.p50", .value = of<&K::latency_p50_ms>, .unit = U::Milliseconds, .label = "latency p50", .new_line = true,
     .expect = ExpectAs::Bound, .description = "the median produce latency (a duration; fails with no record acknowledged)",
     .expect_key = "latency_p50", .significant = 3},
    {.name = "latency_ms.p99", .value = of<&K::latency_p99_ms>, .unit = U::Milliseconds, .label = "p99",
     .expect = ExpectAs::Bound, .description = "the 99th percentile of produce latency", .expect_key = "latency_p99", .significant = 3},
    {.name = "latency_ms.p999", .value = of<&K::latency_p999_ms>, .unit = U::Milliseconds, .label = "p99.9",
     .expect = ExpectAs::Bound, .description = "the 99.9th percentile of produce latency", .expect_key = "latency_p999", .significant = 3},
    {.name = "latency_ms.max", .value = of<&K::latency_max_ms>, .unit = U::Milliseconds, .label = "max",
     .expect = ExpectAs::Bound, .description = "the longest produce latency", .expect_key = "latency_max"},
    {.name = "producer_memory_peak_bytes", .value = of<&K::producer_memory_peak_bytes>, .unit = U::Bytes,
     .label = "producer memory peak", .new_line = true},
    {.name = "producer.requests", .value = of<&K::producer_requests>, .label = "requests"},
    {.name = "producer.retries", .value = of<&K::producer_retries>, .label = "retries"},
    {.name = "producer.blocked_sends", .value = of<&K::blocked_sends>, .label = "blocked sends"},
    {.name = "producer.metadata_waits", .value = of<&K::metadata_waits>, .label = "waiting for the topic",
     .expect = ExpectAs::Count,
     .description = "send() calls that waited for their topic to appear in the metadata (KafkaProducer.waitOnMetadata: each producer process's first send(), and a topic not created yet)",
     .expect_key = "metadata_waits"},
    {.name = "producer.blocked_s", .value = of<&K::blocked_s>, .unit = U::Seconds, .label = "blocked for",
     .expect = ExpectAs::Bound, .description = "time the application's send() calls waited for buffer.memory or their topic's metadata, summed over producers (counted in produce latency)",
     .expect_key = "blocked_time"},
    {.name = "producer.longest_block_ms", .value = of<&K::longest_block_ms>, .unit = U::Milliseconds,
     .label = "longest block", .expect = ExpectAs::Bound,
     .description = "the longest one send() call waited for buffer.memory or its topic's metadata (max.block.ms at most)", .expect_key = "longest_block"},
    {.name = "producer.epoch_bumps", .value = of<&K::epoch_bumps>, .label = "epoch bumps"},
};

constexpr Figure<K> kCluster[] = {
    {.name = "controller.elections", .value = [](const K& k) { return figure_value(k.controller.elections); },
     .label = "elections"},
    {.name = "controller.unclean_elections",
     .value = [](const K& k) { return figure_value(k.controller.unclean_elections); }, .label = "unclean",
     .expect = ExpectAs::Count, .description = "leaders elected from outside the ISR (unclean.leader.election.enable)",
     .expect_key = "unclean_elections"},
    {.name = "controller.elr_elections",
     .value = [](const K& k) { return figure_value(k.controller.elr_elections); }, .label = "from ELR",
     .expect = ExpectAs::Count,
     .description = "leaders elected from the eligible leader replicas (KIP-966: controller.features eligible.leader.replicas.version=1)",
     .expect_key = "elr_elections"},
    {.name = "controller.preferred_elections",
     .value = [](const K& k) { return figure_value(k.controller.preferred_elections); }, .label = "preferred",
     .expect = ExpectAs::Count,
     .description = "preferred replicas made leader again by the controller's leader balancing (auto.leader.rebalance.enable)",
     .expect_key = "preferred_elections"},
    {.name = "controller.isr_changes", .value = [](const K& k) { return figure_value(k.controller.isr_changes); },
     .label = "ISR changes"},
    {.name = "controller.fencings", .value = [](const K& k) { return figure_value(k.controller.fencings); },
     .label = "fencings"},
    {.name = "controller.controlled_shutdowns",
     .value = [](const K& k) { return figure_value(k.controller.controlled_shutdowns); }, .label = "controlled shutdowns"},
    {.name = "controller.max_leaderless_ms",
     .value = [](const K& k) { return figure_value(to_milliseconds(k.controller.max_leaderless)); },
     .unit = U::Milliseconds, .label = "longest leaderless"},
    {.name = "offline_partitions",
     .value =
         [](const K& k) {
           std::vector<std::string> names;
           for (const auto& tp : k.offline_partitions) names.push_back(fmt::format("{}-{}", tp.topic, tp.partition));
           return figure_value(std::move(names));
         },
     .unit = U::Names, .label = "offline partitions", .new_line = true, .expect = ExpectAs::Count,
     .description = "partitions without a leader at the end"},
    {.name = "invariant_violations", .value = of<&K::invariant_violations>, .label = "invariant violations",
     .expect = ExpectAs::Count, .description = "times the cluster's invariants were found broken during the run"},
    {.name = "replica_divergences", .value = of<&K::replica_divergences>, .label = "replica divergences",
     .expect = ExpectAs::Count,
     .description = "replicas found holding other committed records than their leader (replicas_agree_on_committed_prefix)"},
    {.name = "replica_divergences_at_end", .value = of<&K::replica_divergences_at_end>, .label = "at the end",
     .expect = ExpectAs::Count,
     .description = "replicas still holding other committed records than their leader when the run ends: a "
                    "divergence nothing repaired (before KIP-101 and KIP-279 a follower never notices its own)"},
};

constexpr Section<D> kDeliverySection{"delivery", SectionScope::Kafka, "delivery", kDelivery};
constexpr Section<K> kProduceSection{"produce", SectionScope::Kafka, "", kProduce};
constexpr Section<K> kClusterSection{"cluster", SectionScope::Kafka, "", kCluster};

std::string ref(const models::RecordRef& r) { return models::to_string(r); }

nlohmann::ordered_json delivery_examples(const D& d) {
  nlohmann::ordered_json lost = nlohmann::ordered_json::array();
  for (const auto& l : d.lost_examples) lost.push_back({{"record", ref(l.record)}, {"acknowledged_offset", l.acknowledged_offset}});
  nlohmann::ordered_json duplicated = nlohmann::ordered_json::array();
  for (const auto& x : d.duplicate_examples) duplicated.push_back({{"record", ref(x.record)}, {"offsets", x.offsets}});
  nlohmann::ordered_json reordered = nlohmann::ordered_json::array();
  for (const auto& x : d.reordered_examples) {
    reordered.push_back({{"record", ref(x.record)}, {"offset", x.offset}, {"committed_after", x.committed_after}});
  }
  return {{"lost", lost}, {"duplicated", duplicated}, {"reordered", reordered}};
}

nlohmann::ordered_json log_dirs_json(const std::vector<LogDirFigures>& log_dirs) {
  nlohmann::ordered_json dirs = nlohmann::ordered_json::array();
  for (const auto& d : log_dirs) {
    dirs.push_back({{"broker", d.broker}, {"path", d.stats.path}, {"partitions", d.stats.partitions},
                    {"bytes", d.stats.bytes}, {"online", d.stats.online},
                    {"bytes_read_from_disk", d.stats.bytes_read_from_disk}, {"disk_bytes", d.stats.disk_bytes}});
  }
  return dirs;
}

void print_delivery_examples(const D& d, std::ostream& out) {
  for (const auto& l : d.lost_examples) fmt::print(out, "  lost {} (acknowledged at offset {})\n", ref(l.record), l.acknowledged_offset);
  for (const auto& x : d.duplicate_examples) fmt::print(out, "  duplicated {} at offsets {}\n", ref(x.record), fmt::join(x.offsets, ", "));
  for (const auto& x : d.reordered_examples) {
    fmt::print(out, "  reordered {} at offset {}, after record #{}\n", ref(x.record), x.offset, x.committed_after);
  }
}

nlohmann::ordered_json invariants_json(const std::vector<models::InvariantViolation>& violations) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& v : violations) {
    list.push_back({{"name", v.invariant}, {"at_ns", v.at}, {"seed", v.seed},
                    {"partition", v.partition.topic < 0 ? "" : fmt::format("{}-{}", v.partition.topic, v.partition.partition)},
                    {"broker", v.broker}, {"detail", v.detail}});
  }
  return list;
}

void print_invariants(const std::vector<models::InvariantViolation>& violations, std::ostream& out) {
  for (const auto& v : violations) {
    if (v.partition.topic < 0) {
      fmt::print(out, "  invariant {} broken at {:.6f}s (seed {}): {}\n", v.invariant, to_seconds(v.at), v.seed, v.detail);
      continue;
    }
    fmt::print(out, "  invariant {} broken at {:.6f}s (seed {}): partition {}-{}, broker {}: {}\n", v.invariant,
               to_seconds(v.at), v.seed, v.partition.topic, v.partition.partition, v.broker, v.detail);
  }
}

// Which replica each election chose and from which set (the first of the run).
nlohmann::ordered_json elections_json(const models::ControllerStats& c) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& e : c.first_elections) {
    list.push_back({{"at_ns", e.at}, {"partition", fmt::format("{}-{}", e.partition.topic, e.partition.partition)},
                    {"leader", e.leader}, {"epoch", e.epoch}, {"from", models::to_string(e.from)}});
  }
  return list;
}

void print_elections(const models::ControllerStats& c, std::ostream& out) {
  for (const auto& e : c.first_elections) {
    fmt::print(out, "  election at {:.3f}s: partition {}-{}, broker {} (epoch {}) from {}\n", to_seconds(e.at),
               e.partition.topic, e.partition.partition, e.leader, e.epoch, models::to_string(e.from));
  }
  if (c.elections > c.first_elections.size()) {
    fmt::print(out, "  ... {} elections more\n", c.elections - c.first_elections.size());
  }
}

void print_log_dirs(const std::vector<LogDirFigures>& log_dirs, std::ostream& out) {
  std::map<models::BrokerId, std::uint64_t> per_broker;
  for (const auto& dir : log_dirs) per_broker[dir.broker] += dir.stats.bytes;
  for (const auto& [broker, bytes] : per_broker) {
    fmt::print(out, "  broker {}: {:.1f} MiB\n", broker, static_cast<double>(bytes) / 1048576.0);
    for (const auto& dir : log_dirs) {
      if (dir.broker != broker) continue;
      fmt::print(out, "    {}: {} partitions, {:.1f} MiB{}\n", dir.stats.path, dir.stats.partitions,
                 static_cast<double>(dir.stats.bytes) / 1048576.0, dir.stats.online ? "" : " (offline)");
    }
  }
}

// A scenario with faults in which none fired tested its guarantees under no fault.
std::string run_vacuity(const Cluster& cluster) {
  const Scenario& scenario = cluster.scenario();
  const bool has_faults = !scenario.faults.empty() || !scenario.nemesis.rules.empty();
  return has_faults && cluster.faults().started() == 0 ? "no fault fired, though the scenario has faults" : "";
}

}  // namespace

const Section<models::DeliveryReport>& delivery_section() { return kDeliverySection; }
const Section<KafkaFigures>& produce_section() { return kProduceSection; }
const Section<KafkaFigures>& cluster_section() { return kClusterSection; }

KafkaFigures kafka_figures(const Cluster& cluster) {
  KafkaFigures k;
  const models::FinalLogs logs = cluster.final_logs();
  k.delivery = models::check_delivery(cluster.history(), logs);
  const std::string vacuous = run_vacuity(cluster);
  if (k.delivery.vacuous.empty()) k.delivery.vacuous = vacuous;
  k.offline_partitions = logs.offline;
  Histogram latency;
  for (const auto* p : cluster.producers()) {
    const auto& s = p->stats();
    latency.merge(s.latency);
    k.producer_memory_peak_bytes = std::max(k.producer_memory_peak_bytes, s.memory_peak_bytes);
    k.producer_requests += s.requests;
    k.producer_retries += s.retries;
    k.blocked_sends += s.blocked_sends;
    k.metadata_waits += s.metadata_waits;
    k.blocked_s += to_seconds(s.blocked_ns);
    k.longest_block_ms = std::max(k.longest_block_ms, to_seconds(s.longest_block_ns) * 1e3);
    k.epoch_bumps += s.epoch_bumps;
  }
  // Acknowledged within the workload's duration (what a closed loop's
  // buffer.memory holds is acknowledged in the drain and is not
  // throughput), over the time producers were producing: from the first
  // one's start, or from the end of the warm-up.
  const Scenario& scenario = cluster.scenario();
  const SimTime measured_from = std::max(scenario.warmup, cluster.producers_started());
  const double seconds = to_seconds(measured_from < scenario.duration ? scenario.duration - measured_from : scenario.duration);
  const ResourceSample measured = used_since(cluster.resources_at_end_of_workload(), cluster.resources_at_end_of_warmup());
  k.records_per_s = static_cast<double>(measured.records_acked) / seconds;
  k.bytes_per_s = static_cast<double>(measured.bytes_acked) / seconds;
  k.latency_p50_ms = percentile_ms(latency, 50);
  k.latency_p99_ms = percentile_ms(latency, 99);
  k.latency_p999_ms = percentile_ms(latency, 99.9);
  k.latency_max_ms = percentile_ms(latency, 100);
  for (const auto* b : cluster.brokers()) {
    for (const auto& d : b->log_dir_stats()) k.log_dirs.push_back({b->broker_id(), d});
  }
  k.controller = cluster.controller()->stats();
  k.quorum = quorum_figures(cluster);
  k.invariants = cluster.invariant_violations();
  k.invariant_violations = k.invariants.size();
  k.replica_divergences_at_end = cluster.replica_divergences_at_end();
  k.replica_divergences = static_cast<std::uint64_t>(std::count_if(
      k.invariants.begin(), k.invariants.end(),
      [](const models::InvariantViolation& v) { return v.invariant == models::kReplicaDivergence; }));
  k.groups = group_figures(group_inputs(cluster), cluster.consumption(), cluster.history(), logs, k.delivery, vacuous);
  k.share_groups = share_group_figures(cluster, logs);
  if (cluster.has_transactions()) k.transactions = transaction_figures(cluster, k.delivery, k.groups, vacuous);
  k.performance = performance_figures(cluster);
  k.availability = cluster.availability();
  k.startup = startup_figures(cluster);
  k.partition_costs = partition_costs(cluster);
  k.operations = operation_figures(cluster);
  k.compaction = models::check_compaction(logs, cluster.compaction());
  k.tiered = tiered_figures(cluster);
  return k;
}

void add_delivery_json(const models::DeliveryReport& d, nlohmann::ordered_json& j) {
  add_json(kDeliverySection, d, j);
  j["delivery"]["examples"] = delivery_examples(d);
}

void print_delivery(const models::DeliveryReport& d, std::ostream& out) {
  fmt::print(out, "delivery: {}{}\n", d.verdict(), d.vacuous.empty() ? "" : " (" + d.vacuous + ": no guarantee was tested)");
  print_figures(kDeliverySection, d, out);
  print_delivery_examples(d, out);
}

void add_kafka_json(const KafkaFigures& k, nlohmann::ordered_json& j) {
  add_delivery_json(k.delivery, j);
  add_json(kProduceSection, k, j);
  add_startup_json(k.startup, j);
  j["log_dirs"] = log_dirs_json(k.log_dirs);
  add_json(kClusterSection, k, j);
  j["controller"]["first_elections"] = elections_json(k.controller);
  add_quorum_json(k.quorum, j);
  add_operations_json(k.operations, j);
  add_compaction_json(k.compaction, j);
  if (k.tiered) add_tiered_json(*k.tiered, j);
  add_json(partition_costs_section(), k.partition_costs, j);
  j["invariants"] = invariants_json(k.invariants);
  j["groups"] = groups_json(k.groups);
  if (!k.share_groups.empty()) j["share_groups"] = share_groups_json(k.share_groups);
  if (k.transactions) j["transactions"] = transactions_json(*k.transactions);
  add_performance_json(k.performance, j);
  add_availability_json(k.availability, j);
}

void print_kafka(const KafkaFigures& k, std::ostream& out) {
  print_delivery(k.delivery, out);
  fmt::print(out, "\nproduce\n");
  print_figures(kProduceSection, k, out);
  print_startup(k.startup, out);
  print_performance(k.performance, out);
  print_availability(k.availability, out);
  fmt::print(out, "\ncluster\n");
  print_figures(kClusterSection, k, out);
  print_elections(k.controller, out);
  print_quorum(k.quorum, out);
  print_operations(k.operations, out);
  print_compaction(k.compaction, out);
  if (k.tiered) print_tiered(*k.tiered, out);
  print_partition_costs(k.partition_costs, out);
  print_invariants(k.invariants, out);
  print_log_dirs(k.log_dirs, out);
  print_groups(k.groups, out);
  print_share_groups(k.share_groups, out);
  if (k.transactions) print_transactions(*k.transactions, out);
}

}  // namespace ksim::app
