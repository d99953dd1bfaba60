#include "app/report/report_groups.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/harness/cluster.hpp"

namespace ksim::app {

namespace {

using G = GroupFigures;
using C = models::ConsumptionReport;
using TransformRow = models::TransformReport;
using U = FigureUnit;

template <auto Member>
constexpr auto of_report = [](const G& g) { return figure_value(std::invoke(Member, g.report)); };
template <auto Member>
constexpr auto held_of_report = [](const G& g) { return figure_value(Held{std::invoke(Member, g.report), g.vacuous}); };
template <auto Member>
constexpr auto held_end_to_end = [](const G& g) { return figure_value(Held{std::invoke(Member, g), g.end_to_end_vacuous}); };

constexpr Figure<G> kGroup[] = {
    {.name = "group", .value = of<&G::group>, .unit = U::Text},
    {.name = "members", .value = of<&G::members>, .unit = U::Names},
    {.name = "processed", .value = of_report<&C::processed>, .label = "processed",
     .expect = ExpectAs::Count, .description = "records processed, every time"},
    {.name = "committed", .value = of_report<&C::committed>, .label = "committed"},
    {.name = "duplicates", .value = of_report<&C::duplicated>, .label = "duplicates",
     .expect = ExpectAs::Count, .description = "extra processings of a committed record"},
    {.name = "unprocessed", .value = of_report<&C::unprocessed>, .label = "unprocessed",
     .expect = ExpectAs::Count, .description = "committed records never processed: lost for the group"},
    {.name = "expired_before_consumed", .value = of_report<&C::expired_before_consumed>,
     .label = "expired before consumed", .expect = ExpectAs::Count,
     .description = "committed records retention deleted (retention.ms, retention.bytes) before the group processed "
                    "them: expired, not lost by Kafka (a consumer behind the log start gets OFFSET_OUT_OF_RANGE and "
                    "applies auto.offset.reset)"},
    {.name = "compacted_before_consumed", .value = of_report<&C::compacted_before_consumed>,
     .label = "compacted before consumed", .expect = ExpectAs::Count,
     .description = "committed records the log cleaner removed (cleanup.policy=compact) before the group processed "
                    "them: superseded by a later record of their key, not lost (the consumer's fetch skips to the "
                    "next offset there is)"},
    {.name = "keys_checked", .value = of_report<&C::keys_checked>, .label = "keys checked", .new_line = true,
     .expect = ExpectAs::Count,
     .description = "keys of a compacted topic with a committed write, whose final view by the group is checked"},
    {.name = "stale_keys", .value = of_report<&C::stale_keys>, .label = "stale keys", .expect = ExpectAs::Count,
     .description = "keys whose final view by the group (the latest record of the key it processed) is not the "
                    "latest committed write, a tombstone counting as no record: 0 for a group that read to the end"},
    {.name = "tombstones_missed", .value = of_report<&C::tombstones_missed>, .label = "tombstones missed",
     .expect = ExpectAs::Count,
     .description = "stale keys whose latest write is a tombstone the group never saw, though it saw an older value: "
                    "the cleaner removed the tombstone (delete.retention.ms after its segment was cleaned) before the "
                    "group read it"},
    {.name = "unreached", .value = of_report<&C::unreached>, .label = "not reached by the end",
     .expect = ExpectAs::Count,
     .description = "unprocessed records past the furthest offset the group processed of their partition, skipped "
                    "by no reset: the run ended first (all unprocessed records being such, the verdict is "
                    "\"incomplete\", not \"at-most-once\")"},
    {.name = "uncommitted_seen", .value = of_report<&C::uncommitted_seen>,
     .label = "uncommitted seen", .expect = ExpectAs::Count,
     .description = "processed records not in the committed log (read past the high watermark, or truncated since)"},
    {.name = "unavailable_seen", .value = of_report<&C::unavailable_seen>, .label = "unavailable seen",
     .expect = ExpectAs::Count,
     .description = "processed records of partitions offline at the end (no leader): their committed log cannot be "
                    "read, so they are checked only against each other (duplicates, order), not counted as "
                    "uncommitted"},
    {.name = "offline_partitions", .value = of_report<&C::offline_partitions>, .label = "offline partitions",
     .expect = ExpectAs::Count,
     .description = "partitions of the group's topic with no leader at the end: what the group never processed of "
                    "them is unknown, so at-least-once cannot hold (the verdict is \"incomplete\" if nothing else "
                    "failed it)"},
    {.name = "aborted_reads", .value = of_report<&C::aborted_reads>, .label = "aborted reads",
     .expect = ExpectAs::Count, .description = "processed records of aborted transactions"},
    {.name = "out_of_order", .value = of_report<&C::out_of_order>, .label = "out of order",
     .expect = ExpectAs::Count,
     .description = "records at a lower offset than the one before, by the same consumer process and generation"},
    {.name = "lag", .value = of_report<&C::lag>, .label = "committed-offset lag at the end", .new_line = true,
     .expect = ExpectAs::Count,
     .description = "records of the committed log after the group's committed offsets at the end: Kafka's consumer "
                    "lag, as kafka-consumer-groups.sh shows it (a group that never commits lags by the whole log, "
                    "whatever it processed; `unprocessed` is what it never processed)"},
    {.name = "commits", .value = of_report<&C::commits>, .label = "commits",
     .expect = ExpectAs::Count, .description = "partition offsets committed"},
    {.name = "failed_commits", .value = of_report<&C::failed_commits>, .label = "failed commits",
     .expect = ExpectAs::Count, .description = "offset commits that failed"},
    {.name = "poll_timeouts", .value = of_report<&C::poll_timeouts>, .label = "poll timeouts",
     .expect = ExpectAs::Count, .description = "members that left because processing exceeded max.poll.interval.ms"},
    {.name = "crashes", .value = of_report<&C::crashes>, .label = "crashes"},
    {.name = "stopped", .value = [](const G& g) { return figure_value(g.report.stops.size()); }, .label = "stopped",
     .expect = ExpectAs::Count,
     .description = "members whose application stopped on a fatal error, its poll() throwing (GROUP_MAX_SIZE_REACHED "
                    "when the group was full, FENCED_INSTANCE_ID, ...): the report lists each with its time and error"},
    {.name = "offsets_expired", .value = of_report<&C::offsets_expired>, .label = "offsets expired",
     .expect = ExpectAs::Count,
     .description = "the group's committed offsets (one a partition) the coordinator removed when they expired "
                    "(offsets.retention.minutes: from 2.1 once the group had been Empty that long); a member "
                    "that comes back then applies auto.offset.reset"},
    {.name = "group_deletions", .value = of_report<&C::group_deletions>, .label = "deleted",
     .expect = ExpectAs::Count,
     .description = "times the coordinator deleted the group: Empty, with its last committed offset expired"},
    {.name = "coordinator_loads", .value = of_report<&C::coordinator_loads>,
     .label = "coordinator loads", .expect = ExpectAs::Count,
     .description = "times a broker took the group over from __consumer_offsets (failover)"},
    {.name = "coordinator_load_records", .value = of_report<&C::coordinator_load_records>,
     .label = "records replayed", .expect = ExpectAs::Count,
     .description = "records of __consumer_offsets those loads replayed (the group's partition, every group's on it: "
                    "what the log cleaner left of it; the load takes time per record)"},
    {.name = "fenced_member_epoch", .value = of_report<&C::fenced_member_epoch>, .label = "fenced: by member epoch",
     .new_line = true, .expect = ExpectAs::Count,
     .description = "KIP-848 members the coordinator answered FENCED_MEMBER_EPOCH (a heartbeat with a member epoch "
                    "neither its current nor, with no partition it lost, its previous one: answers lost), once per "
                    "member and epoch; the member gives its partitions up uncommitted and joins again with epoch 0"},
    {.name = "fenced_rebalance_timeout", .value = of_report<&C::fenced_rebalance_timeout>,
     .label = "at rebalance timeout", .expect = ExpectAs::Count,
     .description = "members removed at their rebalance timeout (max.poll.interval.ms): a KIP-848 member that did "
                    "not revoke partitions it was asked to give up, a classic member that did not rejoin (or, in a consumer "
                    "group, sync)"},
    {.name = "fenced_session_timeout", .value = of_report<&C::fenced_session_timeout>,
     .label = "at session timeout", .expect = ExpectAs::Count,
     .description = "members removed at their session timeout (group.consumer.session.timeout.ms, classic: "
                    "session.timeout.ms): no heartbeat reached the coordinator meanwhile"},
    {.name = "protocol_upgrades", .value = of<&G::protocol_upgrades>, .expect = ExpectAs::Count,
     .description = "KIP-848's online upgrades: a member with group.protocol=consumer joined the classic group and "
                    "the coordinator converted it to a consumer group (the report lists each)"},
    {.name = "protocol_downgrades", .value = of<&G::protocol_downgrades>, .expect = ExpectAs::Count,
     .description = "KIP-848's online downgrades: the last member on the consumer protocol left a group of classic "
                    "members, which became a classic group again"},
    {.name = "rebalances", .value = [](const G& g) { return figure_value(g.report.rebalances.size()); },
     .label = "rebalances", .new_line = true, .expect = ExpectAs::Count, .description = "rebalances of the group"},
    {.name = "rebalance_time_s", .value = of_report<&C::rebalance_time_s>, .unit = U::Seconds,
     .label = "total"},
    {.name = "longest_rebalance_s", .value = of_report<&C::longest_rebalance_s>,
     .unit = U::Seconds, .label = "longest", .expect = ExpectAs::Bound,
     .description = "the longest rebalance, from its trigger to the last member's assignment (a duration)",
     .expect_key = "rebalance_time"},
    {.name = "stop_the_world_partition_s", .value = of_report<&C::stop_the_world_partition_s>,
     .unit = U::PartitionSeconds, .label = "stop-the-world", .expect = ExpectAs::Bound,
     .description = "partition-seconds with no live owner, after the first assignment"},
    {.name = "member_rebalance_mean_s", .value = of_report<&C::member_rebalance_mean_s>, .unit = U::Seconds,
     .label = "per member: mean"},
    {.name = "member_rebalance_max_s", .value = of_report<&C::member_rebalance_max_s>, .unit = U::Seconds,
     .label = "most"},
    {.name = "at_most_once", .value = held_of_report<&C::at_most_once>, .unit = U::Held},
    {.name = "at_least_once", .value = held_of_report<&C::at_least_once>, .unit = U::Held},
    {.name = "exactly_once", .value = held_of_report<&C::exactly_once>, .unit = U::Held},
    {.name = "verdict", .value = of<&G::consumption>, .unit = U::Verdict, .expect = ExpectAs::Guarantee,
     .description = "the guarantee the group's processing of the committed log must meet (a verdict of "
                    "`incomplete` meets `at-most-once` and `none` only)",
     .expect_key = "consumption"},
    {.name = "end_to_end.at_most_once", .value = held_end_to_end<&G::end_to_end_at_most_once>, .unit = U::Held},
    {.name = "end_to_end.at_least_once", .value = held_end_to_end<&G::end_to_end_at_least_once>, .unit = U::Held},
    {.name = "end_to_end.exactly_once", .value = held_end_to_end<&G::end_to_end_exactly_once>, .unit = U::Held},
    {.name = "vacuous", .value = of<&G::vacuous>, .unit = U::Text},
    {.name = "incomplete", .value = [](const G& g) { return figure_value(g.report.incomplete()); }, .unit = U::Text},
    {.name = "end_to_end.vacuous", .value = of<&G::end_to_end_vacuous>, .unit = U::Text},
    {.name = "end_to_end.verdict", .value = of<&G::end_to_end>, .unit = U::Verdict, .expect = ExpectAs::Guarantee,
     .description = "the guarantee the producers' records must meet once processed by the group (or, for a "
                    "transform, in its committed output)",
     .expect_key = "end_to_end"},
};

constexpr Figure<TransformRow> kTransformOutput[] = {
    {.name = "inputs", .value = of<&TransformRow::inputs>, .label = "transform inputs"},
    {.name = "outputs", .value = of<&TransformRow::outputs>, .label = "outputs"},
    {.name = "missing", .value = of<&TransformRow::missing>, .label = "missing"},
    {.name = "duplicates", .value = of<&TransformRow::duplicates>, .label = "duplicated"},
    {.name = "exactly_once", .value = of<&TransformRow::exactly_once>, .unit = U::Held, .label = "exactly-once"},
};

constexpr Section<G> kGroupSection{"consumer group", SectionScope::Group, "", kGroup};
constexpr Section<TransformRow> kTransformOutputSection{"transform output", SectionScope::Group, "output", kTransformOutput};

}  // namespace

const Section<GroupFigures>& group_section() { return kGroupSection; }
const Section<models::TransformReport>& transform_output_section() { return kTransformOutputSection; }

std::vector<GroupInput> group_inputs(const Cluster& cluster) {
  std::vector<GroupInput> groups;
  std::uint32_t index = 0;
  for (const auto& entry : cluster.scenario().kafka->consumers) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.spec.group == entry.config.group_id; });
    if (it == groups.end()) {
      groups.push_back({{entry.config.group_id, entry.workload.topic, {}, {}, cluster.sim().now()}, std::nullopt, {}});
      it = groups.end() - 1;
      for (const auto& c : cluster.group_conversions()) {
        if (c.group == entry.config.group_id) it->conversions.push_back(c);
      }
    }
    for (int i = 0; i < entry.nodes.count; ++i) {
      it->spec.consumers.push_back(index);
      it->spec.consumer_names.push_back(cluster.consumers()[index]->name());
      ++index;
    }
    if (entry.transform) it->output_topic = entry.workload.output_topic;
  }
  return groups;
}

std::vector<GroupFigures> group_figures(const std::vector<GroupInput>& inputs, const models::ConsumptionHistory& consumption,
                                        const models::DeliveryHistory& history, const models::FinalLogs& logs,
                                        const models::DeliveryReport& delivery, const std::string& vacuous) {
  std::vector<GroupFigures> groups;
  for (const auto& input : inputs) {
    const auto& spec = input.spec;
    GroupFigures g;
    g.group = spec.group;
    g.members = spec.consumer_names;
    g.report = models::check_consumption(consumption, logs, spec);
    g.conversions = input.conversions;
    // A record the producer wrote twice is two log records: processing both is a duplicate end to end.
    g.end_to_end_at_most_once = g.report.at_most_once() && delivery.at_most_once();
    g.end_to_end_at_least_once = g.report.at_least_once() && delivery.at_least_once();
    if (input.output_topic) {
      // A transform application: end to end means each input once in the committed output.
      g.transform = models::check_transform(logs, history, spec.topic, *input.output_topic);
      g.end_to_end_at_most_once = g.transform->duplicates == 0 && delivery.at_most_once();
      g.end_to_end_at_least_once = g.transform->missing == 0 && delivery.at_least_once();
    }
    g.vacuous = !g.report.vacuous.empty() ? g.report.vacuous : vacuous;
    g.end_to_end_vacuous = !g.vacuous.empty() ? g.vacuous : delivery.vacuous;
    if (g.transform && g.end_to_end_vacuous.empty() && g.transform->outputs == 0) {
      g.end_to_end_vacuous = "no transform output";
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
    nlohmann::ordered_json group = nlohmann::ordered_json::object();
    add_json(kGroupSection, g, group);
    group["output"] = nullptr;
    if (g.transform) add_json(kTransformOutputSection, *g.transform, group);
    group["duplicate_causes"] = causes;
    nlohmann::ordered_json unprocessed = nlohmann::ordered_json::array();
    for (const auto& c : r.unprocessed_causes) {
      unprocessed.push_back({{"cause", c.cause}, {"count", c.count}, {"kafka_behaviour", c.kafka_behaviour}});
    }
    group["unprocessed_causes"] = unprocessed;
    group["examples"] = {{"unprocessed", examples(r.unprocessed_examples)}, {"duplicated", examples(r.duplicate_examples)}};
    group["rebalance_log"] = rebalances;
    nlohmann::ordered_json stops = nlohmann::ordered_json::array();
    for (const auto& stop : r.stops) {
      stops.push_back({{"member", stop.member}, {"at_s", to_seconds(stop.at)}, {"reason", stop.reason}});
    }
    group["stopped_members"] = stops;
    all.push_back(group);
  }
  return all;
}

void print_groups(const std::vector<GroupFigures>& groups, std::ostream& out) {
  for (const auto& g : groups) {
    const auto& r = g.report;
    fmt::print(out, "\nconsumer group {} ({} members): {}, end to end {}\n", g.group, g.members.size(),
               format_figure(g.consumption(), U::Verdict), format_figure(g.end_to_end(), U::Verdict));
    print_figures(kGroupSection, g, out);
    if (g.transform) print_figures(kTransformOutputSection, *g.transform, out);
    for (const auto& c : r.duplicate_causes) fmt::print(out, "  {} duplicates after {}\n", c.count, c.cause);
    for (const auto& c : r.unprocessed_causes) fmt::print(out, "  {} unprocessed: {}\n", c.count, c.cause);
    for (const auto& e : r.unprocessed_examples) {
      fmt::print(out, "  never processed: partition {} offset {}\n", e.partition.partition, e.offset);
    }
    for (const auto& stop : r.stops) {
      fmt::print(out, "  {} stopped at {:.3f}s: {} (fatal: its poll() threw)\n", stop.member, to_seconds(stop.at), stop.reason);
    }
    for (const auto& c : g.conversions) {
      fmt::print(out, "  {} at {:.3f}s: {} ({} members)\n",
                 c.to_consumer ? "upgraded to a consumer group (KIP-848)" : "downgraded to a classic group (KIP-848)",
                 to_seconds(c.at), c.trigger, c.members);
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

}  // namespace ksim::app
