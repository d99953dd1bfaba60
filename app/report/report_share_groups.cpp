#include "app/report/report_share_groups.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/harness/cluster.hpp"

namespace ksim::app {

namespace {

using S = ShareGroupFigures;
using R = models::ShareGroupReport;
using U = FigureUnit;

template <auto Member>
constexpr auto of_share = [](const S& s) { return figure_value(std::invoke(Member, s.report)); };
template <auto Member>
constexpr auto of_duplicates = [](const S& s) { return figure_value(std::invoke(Member, s.report.duplicates_by)); };
template <auto Member>
constexpr auto of_redeliveries = [](const S& s) { return figure_value(std::invoke(Member, s.report.redelivered_by)); };

constexpr Figure<S> kShareGroup[] = {
    {.name = "group", .value = of<&S::group>, .unit = U::Text},
    {.name = "members", .value = of<&S::members>, .unit = U::Names},
    {.name = "committed", .value = of_share<&R::committed>, .label = "committed", .expect = ExpectAs::Count,
     .description = "committed records of the topic from where the share group started"},
    {.name = "deliveries", .value = of_share<&R::deliveries>, .label = "deliveries", .expect = ExpectAs::Count,
     .description = "records the share consumers' applications got, every time"},
    {.name = "processed", .value = of_share<&R::processed>, .label = "processed", .expect = ExpectAs::Count,
     .description = "successful processings of a record, every time"},
    {.name = "failed", .value = of_share<&R::failed>, .label = "failed", .expect = ExpectAs::Count,
     .description = "processings of poison records (they fail every time)"},
    {.name = "accepted", .value = of_share<&R::accepted>, .label = "accepted", .new_line = true,
     .expect = ExpectAs::Count, .description = "committed records acknowledged with ACCEPT"},
    {.name = "archived", .value = of_share<&R::archived>, .label = "archived", .expect = ExpectAs::Count,
     .description = "committed records archived (rejected, or at the delivery count limit)"},
    {.name = "archived_rejected", .value = of_share<&R::archived_rejected>, .label = "rejected",
     .expect = ExpectAs::Count, .description = "committed records archived by a REJECT"},
    {.name = "archived_delivery_limit", .value = of_share<&R::archived_delivery_limit>, .label = "at delivery limit",
     .expect = ExpectAs::Count,
     .description = "committed records archived when released at group.share.delivery.count.limit deliveries"},
    {.name = "undelivered", .value = of_share<&R::undelivered>, .label = "undelivered", .new_line = true,
     .expect = ExpectAs::Count, .description = "committed records never delivered to the share group"},
    {.name = "unfinished", .value = of_share<&R::unfinished>, .label = "unfinished", .expect = ExpectAs::Count,
     .description = "committed records neither accepted nor archived at the end"},
    {.name = "unprocessed", .value = of_share<&R::unprocessed>, .label = "unprocessed", .expect = ExpectAs::Count,
     .description = "committed records never processed and not archived: lost for the share group"},
    {.name = "offline_partitions", .value = of_share<&R::offline_partitions>, .label = "offline partitions",
     .expect = ExpectAs::Count,
     .description = "partitions of the topic with no leader at the end: their committed records cannot be read, so "
                    "delivered_until_done cannot hold"},
    {.name = "redeliveries", .value = of_share<&R::redeliveries>, .label = "redeliveries", .new_line = true,
     .expect = ExpectAs::Count, .description = "deliveries of a record after its first"},
    {.name = "redeliveries_lock_expiry", .value = of_redeliveries<&models::RedeliveryCauses::lock_expiry>,
     .label = "after lock expiry", .expect = ExpectAs::Count,
     .description = "redeliveries after the acquisition lock expired while its holder lived"},
    {.name = "redeliveries_crash", .value = of_redeliveries<&models::RedeliveryCauses::crash>, .label = "after crash",
     .expect = ExpectAs::Count, .description = "redeliveries after the lock of a crashed consumer expired"},
    {.name = "redeliveries_release", .value = of_redeliveries<&models::RedeliveryCauses::release>,
     .label = "after RELEASE", .expect = ExpectAs::Count, .description = "redeliveries after a RELEASE"},
    {.name = "redeliveries_member_left", .value = of_redeliveries<&models::RedeliveryCauses::member_left>,
     .label = "after leaving", .expect = ExpectAs::Count,
     .description = "redeliveries of records a member held when it closed"},
    {.name = "redeliveries_leader_change", .value = of_redeliveries<&models::RedeliveryCauses::leader_change>,
     .label = "after a leader change", .expect = ExpectAs::Count,
     .description = "redeliveries of records acquired when a new share-partition leader loaded the persisted state "
                    "(acquisition locks are not persisted: they came back AVAILABLE)"},
    {.name = "duplicates", .value = of_share<&R::duplicates>, .label = "duplicates", .new_line = true,
     .expect = ExpectAs::Count, .description = "extra successful processings of a record"},
    {.name = "duplicates_lock_expiry", .value = of_duplicates<&models::RedeliveryCauses::lock_expiry>,
     .label = "by lock expiry", .expect = ExpectAs::Count,
     .description = "duplicates whose redelivery followed a lock expiry while the holder lived (slow processing)"},
    {.name = "duplicates_crash", .value = of_duplicates<&models::RedeliveryCauses::crash>, .label = "by crash",
     .expect = ExpectAs::Count, .description = "duplicates whose redelivery followed a crashed consumer's lock expiry"},
    {.name = "duplicates_release", .value = of_duplicates<&models::RedeliveryCauses::release>, .label = "by RELEASE",
     .expect = ExpectAs::Count, .description = "duplicates whose redelivery followed a RELEASE"},
    {.name = "duplicates_member_left", .value = of_duplicates<&models::RedeliveryCauses::member_left>,
     .label = "by leaving", .expect = ExpectAs::Count,
     .description = "duplicates whose redelivery followed their holder closing"},
    {.name = "duplicates_leader_change", .value = of_duplicates<&models::RedeliveryCauses::leader_change>,
     .label = "by a leader change", .expect = ExpectAs::Count,
     .description = "duplicates whose redelivery followed a new share-partition leader loading the persisted state"},
    {.name = "max_delivery_count", .value = of_share<&R::max_delivery_count>, .label = "most deliveries",
     .new_line = true, .expect = ExpectAs::Count, .description = "the most deliveries of one record"},
    {.name = "over_delivery_limit", .value = of_share<&R::over_delivery_limit>, .label = "over the limit",
     .expect = ExpectAs::Count, .description = "deliveries past group.share.delivery.count.limit (never, in Kafka)"},
    {.name = "delivery_count_limit", .value = of<&S::delivery_count_limit>, .label = "limit"},
    {.name = "lock_duration_s", .value = of<&S::lock_duration_s>, .unit = U::Seconds, .label = "lock"},
    {.name = "crashes", .value = of_share<&R::crashes>, .label = "crashes", .expect = ExpectAs::Count,
     .description = "crashes of the share group's consumers"},
    {.name = "persister_writes", .value = of<&S::persister_writes>, .label = "share state writes", .new_line = true},
    {.name = "persister_loads", .value = of<&S::persister_loads>, .label = "loads by a new leader",
     .expect = ExpectAs::Count,
     .description = "share-partitions a leader loaded from the persisted share state (every share group's)"},
    {.name = "delivered_until_done", .value = [](const S& s) { return figure_value(s.delivered_until_done()); },
     .unit = U::Held, .expect = ExpectAs::Flag,
     .description = "every committed record delivered until accepted or archived, and processed unless archived "
                    "(fails when nothing was delivered)"},
    {.name = "vacuous", .value = [](const S& s) { return figure_value(s.report.vacuous); }, .unit = U::Text},
};

constexpr Section<S> kShareGroupSection{"share group", SectionScope::ShareGroup, "", kShareGroup};

}  // namespace

const Section<ShareGroupFigures>& share_group_section() { return kShareGroupSection; }

std::vector<ShareGroupFigures> share_group_figures(const Cluster& cluster, const models::FinalLogs& logs) {
  std::vector<ShareGroupFigures> out;
  if (!cluster.scenario().kafka) return out;
  const KafkaSpec& kafka = *cluster.scenario().kafka;
  const models::GroupCoordinatorConfig& g = kafka.broker.group_coordinator;
  const models::ShareHistory& history = cluster.share_history();
  for (const auto& entry : kafka.share_consumers) {
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& s) { return s.group == entry.config.group_id; });
    if (it == out.end()) {
      it = out.insert(out.end(), ShareGroupFigures{});
      it->group = entry.config.group_id;
      it->delivery_count_limit = g.share_delivery_count_limit;
      it->lock_duration_s = to_seconds(g.share_record_lock_duration);
      it->persister_writes = history.persister_writes;
      it->persister_loads = history.persister_loads;
      models::ShareGroupSpec spec{entry.config.group_id, entry.workload.topic, g.share_delivery_count_limit};
      it->report = models::check_share_group(spec, history, logs);
    }
    for (const auto& c : history.consumers) {
      if (c.group == entry.config.group_id && c.name.starts_with(entry.name + "-")) it->members.push_back(c.name);
    }
  }
  return out;
}

std::vector<ShareGroupFigures> share_group_figures(const RecordedHistory& h) {
  std::vector<ShareGroupFigures> out;
  for (const auto& group : h.share_groups) {
    ShareGroupFigures s;
    s.group = group.name;
    s.delivery_count_limit = group.delivery_count_limit;
    s.lock_duration_s = to_seconds(group.record_lock_duration);
    std::int32_t topic = 0;
    for (const auto& c : h.share.consumers) {
      if (c.group != group.name) continue;
      s.members.push_back(c.name);
      topic = c.topic;
    }
    s.report = models::check_share_group({group.name, topic, group.delivery_count_limit}, h.share, h.logs);
    out.push_back(std::move(s));
  }
  return out;
}

nlohmann::ordered_json share_groups_json(const std::vector<ShareGroupFigures>& groups) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const auto& s : groups) {
    nlohmann::ordered_json j;
    add_json(kShareGroupSection, s, j);
    all.push_back(std::move(j));
  }
  return all;
}

void print_share_groups(const std::vector<ShareGroupFigures>& groups, std::ostream& out) {
  for (const auto& s : groups) {
    const Held done = s.delivered_until_done();
    fmt::print(out, "\nshare group {} ({} members): every record delivered until done: {}\n", s.group,
               s.members.size(), format_figure(done, U::Held));
    print_figures(kShareGroupSection, s, out);
  }
}

}  // namespace ksim::app
