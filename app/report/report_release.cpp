#include "app/report/report_release.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

namespace ksim::app {

namespace {

using models::Mechanism;
using models::Mechanisms;
using models::Modelled;

// The switches that differ from what the side's release has.
std::vector<std::string> differing(const Mechanisms& release_default, const MechanismSwitches& switches) {
  std::vector<std::string> out;
  for (const auto& [mechanism, on] : switches) {
    if (release_default.has(mechanism) == on) continue;
    out.push_back(fmt::format("{}: {}", models::info(mechanism).key, on ? "on" : "off"));
  }
  return out;
}

// Is the side of `mechanism` this run is on one ksim does not model?
bool unmodelled(const models::MechanismInfo& i, bool on) {
  return i.implicit && ((on && i.modelled == Modelled::WithoutOnly) || (!on && i.modelled == Modelled::WithOnly) ||
                        i.modelled == Modelled::Neither);
}

// A mechanism that only matters to runs with transactions.
bool relevant(Mechanism m, const KafkaSpec& kafka) {
  return m != Mechanism::TransactionsV2 || kafka.has_transactions();
}

std::string note(const models::MechanismInfo& i, bool on, const std::string& who) {
  return fmt::format("{} ({}, {} {}): {}", i.key, who, on ? "with it since" : "without it before", i.since.name(),
                     i.instead);
}

}  // namespace

ReleaseFigures release_figures(const KafkaSpec& kafka) {
  ReleaseFigures r;
  r.kafka_version = kafka.release.release.name();
  r.given = kafka.release.given;
  const Mechanisms cluster_default(kafka.release.release);
  r.switches = differing(cluster_default, kafka.release.switches);
  const auto add_client = [&](const std::string& name, models::KafkaRelease release, const MechanismSwitches& own) {
    std::vector<std::string> switches = differing(Mechanisms(release), own);
    if (release == kafka.release.release && switches.empty()) return;
    r.clients.push_back({name, release.name(), std::move(switches)});
  };
  for (const auto& p : kafka.producers) add_client(p.name, p.release, p.switches);
  for (const auto& c : kafka.consumers) add_client(c.name, c.release, c.switches);

  for (const models::MechanismInfo& i : models::mechanisms()) {
    if (!relevant(i.mechanism, kafka)) continue;
    const bool cluster_side = i.sides.find("brokers") != std::string_view::npos ||
                              i.sides.find("controller") != std::string_view::npos;
    const bool on_cluster = kafka.broker.mechanisms.has(i.mechanism);
    if (cluster_side && unmodelled(i, on_cluster)) {
      r.not_modelled.push_back(note(i, on_cluster, "the cluster"));
      continue;
    }
    std::vector<std::string> names;
    bool on_clients = false;
    const auto check = [&](const std::string& name, const Mechanisms& m, std::string_view side) {
      if (i.sides.find(side) == std::string_view::npos || !unmodelled(i, m.has(i.mechanism))) return;
      names.push_back(name);
      on_clients = m.has(i.mechanism);
    };
    for (const auto& p : kafka.producers) check(p.name, p.config.mechanisms, "producers");
    for (const auto& c : kafka.consumers) check(c.name, c.config.mechanisms, "consumers");
    if (!names.empty()) r.not_modelled.push_back(note(i, on_clients, fmt::format("{}", fmt::join(names, ", "))));
  }
  return r;
}

nlohmann::ordered_json release_json(const ReleaseFigures& r) {
  nlohmann::ordered_json j;
  j["kafka_version"] = r.kafka_version;
  j["given"] = r.given;
  j["switches"] = r.switches;
  j["clients"] = nlohmann::ordered_json::array();
  for (const auto& c : r.clients) {
    j["clients"].push_back({{"name", c.name}, {"kafka_version", c.kafka_version}, {"switches", c.switches}});
  }
  j["not_modelled"] = r.not_modelled;
  return j;
}

void print_release(const ReleaseFigures& r, std::ostream& out) {
  fmt::print(out, "kafka {}{}", r.kafka_version, r.given ? "" : " (the latest modelled release; kafka_version sets another)");
  if (!r.switches.empty()) fmt::print(out, "  switched: {}", fmt::join(r.switches, ", "));
  fmt::print(out, "\n");
  for (const auto& c : r.clients) {
    fmt::print(out, "  {}: kafka {}{}{}\n", c.name, c.kafka_version, c.switches.empty() ? "" : ", switched: ",
               fmt::join(c.switches, ", "));
  }
  for (const auto& n : r.not_modelled) fmt::print(out, "  not modelled: {}\n", n);
}

}  // namespace ksim::app
