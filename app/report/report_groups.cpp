#include "app/report/report_groups.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/harness/cluster.hpp"
#include "app/report/report.hpp"

namespace ksim::app {

std::string guarantee_verdict(bool at_most_once, bool at_least_once, bool exactly_once) {
  if (exactly_once) return "exactly-once";
  if (at_least_once) return "at-least-once";
  if (at_most_once) return "at-most-once";
  return "none";
}

std::vector<GroupFigures> group_figures(const Cluster& cluster, const models::FinalLogs& logs,
                                        const models::DeliveryReport& delivery) {
  std::vector<GroupFigures> groups;
  std::vector<models::ConsumerGroupSpec> specs;
  std::uint32_t index = 0;
  for (const auto& entry : cluster.scenario().kafka->consumers) {
    auto it = std::find_if(specs.begin(), specs.end(), [&](const auto& s) { return s.group == entry.config.group_id; });
    if (it == specs.end()) {
      specs.push_back({entry.config.group_id, entry.workload.topic, {}, {}, cluster.sim().now()});
      it = specs.end() - 1;
    }
    for (int i = 0; i < entry.nodes.count; ++i) {
      it->consumers.push_back(index);
      it->consumer_names.push_back(cluster.consumers()[index]->name());
      ++index;
    }
  }
  for (const auto& spec : specs) {
    GroupFigures g;
    g.group = spec.group;
    g.members = spec.consumer_names;
    g.report = models::check_consumption(cluster.consumption(), logs, spec);
    // A record the producer wrote twice is two log records: processing both is a duplicate end to end.
    g.end_to_end_at_most_once = g.report.at_most_once() && delivery.at_most_once();
    g.end_to_end_at_least_once = g.report.at_least_once() && delivery.at_least_once();
    for (const auto& entry : cluster.scenario().kafka->consumers) {
      if (entry.config.group_id != spec.group || !entry.transform) continue;
      // A transform application: end to end means each input once in the committed output.
      g.transform = models::check_transform(logs, cluster.history(), entry.workload.topic, entry.workload.output_topic);
      g.end_to_end_at_most_once = g.transform->duplicates == 0 && delivery.at_most_once();
      g.end_to_end_at_least_once = g.transform->missing == 0 && delivery.at_least_once();
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

nlohmann::ordered_json groups_json(const std::vector<GroupFigures>& groups) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const auto& g : groups) {
    const auto& r = g.report;
    nlohmann::ordered_json causes = nlohmann::ordered_json::array();
    for (const auto& c : r.duplicate_causes) causes.push_back({{"cause", c.cause}, {"count", c.count}});
    const auto examples = [](const std::vector<models::ConsumedRecordExample>& list) {
      nlohmann::ordered_json out = nlohmann::ordered_json::array();
      for (const auto& e : list) {
        out.push_back({{"partition", e.partition.partition}, {"offset", e.offset},
                       {"record", models::to_string(models::RecordRef{e.writer, e.partition, e.record})},
                       {"detail", e.detail}});
      }
      return out;
    };
    nlohmann::ordered_json rebalances = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < r.rebalances.size(); ++i) {
      const auto& b = r.rebalances[i];
      nlohmann::ordered_json entry{{"trigger", b.trigger}, {"started_s", to_seconds(b.started)},
                                   {"generation", b.generation}, {"members", b.members},
                                   {"partitions_moved", b.partitions_moved}, {"protocol", b.protocol}};
      entry["duration_s"] = b.completed == kNever ? nlohmann::ordered_json() : nlohmann::ordered_json(to_seconds(b.completed - b.started));
      entry["stop_the_world_partition_s"] = r.rebalance_stop_the_world_s[i];
      rebalances.push_back(entry);
    }
    all.push_back({{"group", g.group},
                   {"members", g.members},
                   {"processed", r.processed},
                   {"committed", r.committed},
                   {"duplicates", r.duplicated},
                   {"unprocessed", r.unprocessed},
                   {"uncommitted_seen", r.uncommitted_seen},
                   {"aborted_reads", r.aborted_reads},
                   {"out_of_order", r.out_of_order},
                   {"lag", r.lag},
                   {"commits", r.commits},
                   {"failed_commits", r.failed_commits},
                   {"poll_timeouts", r.poll_timeouts},
                   {"crashes", r.crashes},
                   {"coordinator_loads", r.coordinator_loads},
                   {"rebalances", r.rebalances.size()},
                   {"rebalance_time_s", r.rebalance_time_s},
                   {"longest_rebalance_s", r.longest_rebalance_s},
                   {"stop_the_world_partition_s", r.stop_the_world_partition_s},
                   {"at_most_once", r.at_most_once()},
                   {"at_least_once", r.at_least_once()},
                   {"exactly_once", r.exactly_once()},
                   {"verdict", guarantee_verdict(r.at_most_once(), r.at_least_once(), r.exactly_once())},
                   {"end_to_end",
                    {{"at_most_once", g.end_to_end_at_most_once},
                     {"at_least_once", g.end_to_end_at_least_once},
                     {"exactly_once", g.end_to_end_exactly_once()},
                     {"verdict", guarantee_verdict(g.end_to_end_at_most_once, g.end_to_end_at_least_once,
                                                   g.end_to_end_exactly_once())}}},
                   {"output", g.transform ? nlohmann::ordered_json{{"inputs", g.transform->inputs},
                                                                   {"outputs", g.transform->outputs},
                                                                   {"missing", g.transform->missing},
                                                                   {"duplicates", g.transform->duplicates},
                                                                   {"exactly_once", g.transform->exactly_once()}}
                                          : nlohmann::ordered_json()},
                   {"duplicate_causes", causes},
                   {"examples", {{"unprocessed", examples(r.unprocessed_examples)},
                                 {"duplicated", examples(r.duplicate_examples)}}},
                   {"rebalance_log", rebalances}});
  }
  return all;
}

void print_groups(const std::vector<GroupFigures>& groups, std::ostream& out) {
  for (const auto& g : groups) {
    const auto& r = g.report;
    fmt::print(out, "\nconsumer group {} ({} members): {}, end to end {}\n", g.group, g.members.size(),
               guarantee_verdict(r.at_most_once(), r.at_least_once(), r.exactly_once()),
               guarantee_verdict(g.end_to_end_at_most_once, g.end_to_end_at_least_once, g.end_to_end_exactly_once()));
    fmt::print(out, "  processed {} of {} committed  unprocessed {}  duplicates {}  uncommitted seen {}  aborted reads {}  out of order {}\n",
               r.processed, r.committed, r.unprocessed, r.duplicated, r.uncommitted_seen, r.aborted_reads, r.out_of_order);
    fmt::print(out, "  lag at the end {}  commits {} (failed {})  poll timeouts {}  crashes {}  coordinator loads {}\n",
               r.lag, r.commits, r.failed_commits, r.poll_timeouts, r.crashes, r.coordinator_loads);
    fmt::print(out, "  rebalances {}  total {:.3f}s  longest {:.3f}s  stop-the-world {:.3f} partition-s\n",
               r.rebalances.size(), r.rebalance_time_s, r.longest_rebalance_s, r.stop_the_world_partition_s);
    if (g.transform) {
      fmt::print(out, "  output: {} records for {} committed inputs, missing {}, duplicated {}\n", g.transform->outputs,
                 g.transform->inputs, g.transform->missing, g.transform->duplicates);
    }
    for (const auto& c : r.duplicate_causes) fmt::print(out, "  {} duplicates after {}\n", c.count, c.cause);
    for (const auto& e : r.unprocessed_examples) {
      fmt::print(out, "  never processed: partition {} offset {}\n", e.partition.partition, e.offset);
    }
    for (std::size_t i = 0; i < r.rebalances.size(); ++i) {
      const auto& b = r.rebalances[i];
      fmt::print(out, "  rebalance at {:.3f}s to generation {}: {} ({} members, {} partitions moved, {}, stop-the-world {:.3f} partition-s)\n",
                 to_seconds(b.started), b.generation, b.trigger, b.members, b.partitions_moved,
                 b.completed == kNever ? std::string("unfinished") : fmt::format("{:.3f}s", to_seconds(b.completed - b.started)),
                 r.rebalance_stop_the_world_s[i]);
    }
  }
}

namespace {

std::uint64_t group_count(const GroupFigures& g, const std::string& name) {
  const auto& r = g.report;
  if (name == "processed") return r.processed;
  if (name == "duplicates") return r.duplicated;
  if (name == "unprocessed") return r.unprocessed;
  if (name == "uncommitted_seen") return r.uncommitted_seen;
  if (name == "aborted_reads") return r.aborted_reads;
  if (name == "out_of_order") return r.out_of_order;
  if (name == "lag") return r.lag;
  if (name == "commits") return r.commits;
  if (name == "failed_commits") return r.failed_commits;
  if (name == "rebalances") return r.rebalances.size();
  if (name == "poll_timeouts") return r.poll_timeouts;
  if (name == "coordinator_loads") return r.coordinator_loads;
  return 0;
}

bool meets(const std::string& required, bool amo, bool alo, bool eo) {
  if (required == "exactly-once") return eo;
  if (required == "at-least-once") return alo;
  if (required == "at-most-once") return amo;
  return true;
}

}  // namespace

void check_groups(const std::vector<GroupExpectation>& expected, const std::vector<GroupFigures>& groups,
                  std::vector<ExpectationResult>& results) {
  for (const GroupExpectation& e : expected) {
    const auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.group == e.group; });
    if (it == groups.end()) continue;  // validated when the scenario was read
    const GroupFigures& g = *it;
    const auto& r = g.report;
    const std::string prefix = "groups." + e.group + ".";
    if (e.consumption) {
      const std::string verdict = guarantee_verdict(r.at_most_once(), r.at_least_once(), r.exactly_once());
      results.push_back({prefix + "consumption",
                         meets(*e.consumption, r.at_most_once(), r.at_least_once(), r.exactly_once()),
                         fmt::format("required {}, verdict {}", *e.consumption, verdict)});
    }
    if (e.end_to_end) {
      const std::string verdict =
          guarantee_verdict(g.end_to_end_at_most_once, g.end_to_end_at_least_once, g.end_to_end_exactly_once());
      results.push_back({prefix + "end_to_end",
                         meets(*e.end_to_end, g.end_to_end_at_most_once, g.end_to_end_at_least_once,
                               g.end_to_end_exactly_once()),
                         fmt::format("required {}, verdict {}", *e.end_to_end, verdict)});
    }
    if (e.max_stop_the_world_partition_s) {
      results.push_back({prefix + "max_stop_the_world_partition_s",
                         r.stop_the_world_partition_s <= *e.max_stop_the_world_partition_s,
                         fmt::format("{:.4g} <= {:.4g}", r.stop_the_world_partition_s, *e.max_stop_the_world_partition_s)});
    }
    if (e.min_stop_the_world_partition_s) {
      results.push_back({prefix + "min_stop_the_world_partition_s",
                         r.stop_the_world_partition_s >= *e.min_stop_the_world_partition_s,
                         fmt::format("{:.4g} >= {:.4g}", r.stop_the_world_partition_s, *e.min_stop_the_world_partition_s)});
    }
    for (const CountExpectation& c : e.counts) {
      const std::uint64_t actual = group_count(g, c.name);
      results.push_back({prefix + c.name, c.holds(actual), fmt::format("{} (expected {})", actual, c.text())});
    }
  }
}

}  // namespace ksim::app
