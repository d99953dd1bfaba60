// Writes the share groups' part of a history (share_history_writer.hpp).
#include "app/history/share_history_writer.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/history/history_format.hpp"

namespace ksim::app::history {

void add_share_header(const Cluster& cluster, nlohmann::json& header) {
  const models::ShareHistory& h = cluster.share_history();
  if (h.consumers.empty()) return;
  nlohmann::json consumers = nlohmann::json::array();
  for (const auto& c : h.consumers) consumers.push_back({{"name", c.name}, {"group", c.group}, {"topic", c.topic}});
  header["share_consumers"] = std::move(consumers);
  const models::GroupCoordinatorConfig& g = cluster.scenario().kafka->broker.group_coordinator;
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& c : h.consumers) {
    const bool known = std::any_of(groups.begin(), groups.end(), [&](const nlohmann::json& x) { return x["name"] == c.group; });
    if (known) continue;
    groups.push_back({{"name", c.group},
                      {"delivery_count_limit", g.share_delivery_count_limit},
                      {"record_lock_duration_ms", g.share_record_lock_duration / 1'000'000}});
  }
  header["share_groups"] = std::move(groups);
}

void write_share_events(const models::ShareHistory& h, std::ostream& out) {
  for (const auto& [member, started] : h.members) {
    fmt::print(out, R"({{"event":"share_member","t":{},"consumer":{},"member":{}}})"
                    "\n",
               started.second, started.first, nlohmann::json(member).dump());
  }
  for (const auto& [key, offset] : h.start_offsets) {
    fmt::print(out, R"({{"event":"share_start","group":{},"topic":{},"partition":{},"offset":{}}})"
                    "\n",
               nlohmann::json(key.first).dump(), key.second.topic, key.second.partition, offset);
  }
  for (const auto& e : h.client_events) {
    fmt::print(out,
               R"({{"event":"{}","t":{},"consumer":{},"topic":{},"partition":{},"offset":{},"writer":{},"record":{},"delivery_count":{})",
               e.processed ? "share_process" : "share_deliver", e.at, e.consumer, e.partition.topic,
               e.partition.partition, e.offset, e.writer, e.record, e.delivery_count);
    if (e.processed) fmt::print(out, R"(,"failed":{})", e.poison);
    out << "}\n";
  }
  for (const auto& e : h.leader_events) {
    fmt::print(out,
               R"({{"event":"share_ack","t":{},"group":{},"topic":{},"partition":{},"offset":{},"outcome":"{}","why":"{}","member":{},"delivery_count":{}}})"
               "\n",
               e.at, nlohmann::json(e.group).dump(), e.partition.topic, e.partition.partition, e.offset,
               share_outcome_name(e.outcome), share_release_name(e.why), nlohmann::json(e.member).dump(),
               e.delivery_count);
  }
  for (const auto& [key, times] : h.loads) {
    for (const SimTime at : times) {
      fmt::print(out, R"({{"event":"share_load","t":{},"group":{},"topic":{},"partition":{}}})"
                      "\n",
                 at, nlohmann::json(key.first).dump(), key.second.topic, key.second.partition);
    }
  }
  for (const auto& [consumer, at] : h.crashes) {
    fmt::print(out, R"({{"event":"share_crash","t":{},"consumer":{}}})"
                    "\n",
               at, consumer);
  }
}

}  // namespace ksim::app::history
